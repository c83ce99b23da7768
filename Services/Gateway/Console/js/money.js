// Money: a store's balance per currency, the ledger entries that moved it and the payouts it
// received; and, for the platform screen, the couriers' accounts (their balance, the cash they
// hold, the payouts recorded, a payout recorded from here).
import { call, query } from "./api.js";
import { t } from "./i18n.js";
import { field, fill, h, minorUnits, money, pagedTable, progress, showError, submits, table, time, toast } from "./ui.js";

/** The roles the API lets record a payout (anyone else is refused). */
const PAYERS = ["admin", "accountant"];

export async function show(main, context) {
  const store = context.store;
  if (!store) {
    fill(main, h("h1", {}, t("screen_money")), h("p", { class: "muted" }, t("no_store")));
    return;
  }
  const path = `/v1/stores/${store.id}/balance`;
  const balances = h("div", { id: "balances" });
  const entries = h("div", { id: "entries" });
  const payouts = h("div", { id: "payouts" });
  fill(main, h("h1", {}, t("screen_money"), ` — ${store.name}`),
    h("h2", {}, t("balance")), balances,
    h("h2", {}, t("payouts_received")), payouts,
    h("h2", {}, t("entries")), entries);
  await Promise.all([
    loadBalances(balances, path),
    pagedTable(payouts, path, payoutsTable),
    pagedTable(entries, path, entriesTable),
  ]);
}

/** The balances per currency of an account (`path` its balance's). */
async function loadBalances(place, path) {
  fill(place, progress());
  try {
    const account = await call("GET", path + query({ limit: 1 }));
    fill(place, balancesTable(account.balances));
    return account;
  } catch (error) {
    showError(place, error);
    return null;
  }
}

export function balancesTable(rows) {
  return rows.length ? table([
    [t("currency"), (entry) => entry.currency],
    [t("earned"), (entry) => money(entry.earned, entry.currency), true],
    [t("cash_held"), (entry) => money(entry.cash_held, entry.currency), true],
    [t("balance"), (entry) => money(entry.balance, entry.currency), true],
    [t("pending"), (entry) => money(entry.pending, entry.currency), true],
    [t("available"), (entry) => money(entry.available, entry.currency), true],
  ], rows) : h("p", { class: "muted" }, t("none_yet"));
}

/** Ledger entries, newest first: what each moved of the holder's balance. */
export function entriesTable(rows) {
  return table([
    [t("when"), (entry) => time(entry.created_at)],
    [t("kind"), (entry) => t(`entry_${entry.kind}`)],
    [t("reference"), (entry) => entry.reference],
    [t("commission"), (entry) => entry.commission === undefined ? "" : money(entry.commission, entry.currency), true],
    [t("amount"), (entry) => money(entry.amount, entry.currency), true],
  ], rows);
}

/**
 * The payouts among the entries read so far (the API lists them with the others, as entries of
 * the `payout` kind): paid out when the holder's balance went down, cash paid in when it went up.
 */
function payoutsTable(rows) {
  const found = rows.filter((entry) => entry.kind === "payout");
  return found.length ? table([
    [t("when"), (entry) => time(entry.created_at)],
    [t("kind"), (entry) => t(entry.amount > 0 ? "cash_paid_in" : "paid_out")],
    [t("amount"), (entry) => money(Math.abs(entry.amount), entry.currency), true],
    [t("reference"), (entry) => entry.reference],
  ], found) : h("p", { class: "muted" }, t("no_payouts"));
}

/**
 * The couriers' accounts, mounted by the platform screen in `place`: the couriers a page at a
 * time, and the chosen one's balance, cash held and payouts recorded; admins and accountants
 * record a payout (or cash handed in) from here.
 */
export async function courierAccounts(place, context) {
  const list = h("div", { id: "courier-accounts-list" });
  const account = h("div", { id: "courier-account", "aria-live": "polite" });
  fill(place, list, account);
  const open = (courier) => courierAccount(account, courier, context);
  await pagedTable(list, "/v1/users", (rows) => table([
    [t("name"), (courier) => courier.name],
    [t("email"), (courier) => courier.email ?? ""],
    [t("phone"), (courier) => courier.phone ?? ""],
    [t("on_duty"), (courier) => courier.on_duty ? t("yes") : t("no")],
    ["", (courier) => h("button", {
      type: "button", id: `courier-account-${courier.id}`, "aria-label": `${t("account")} ${courier.name}`, onclick: () => open(courier),
    }, t("account"))],
  ], rows), { role: "courier" });
  if (list.querySelector("[role=alert]")) {
    // Refused the list of couriers (not every role that keeps their accounts may list them): a
    // courier's account by their id.
    const show = h("button", { type: "submit" }, t("show"));
    const form = h("form", { class: "toolbar", id: "courier-id-form" },
      field("courier_id", t("courier_id"), { id: "courier-id", required: true, autocomplete: "off" }), show);
    form.addEventListener("submit", (event) => {
      event.preventDefault();
      const id = form.querySelector("#courier-id").value.trim();
      if (id) open({ id, name: id });
    });
    list.append(form);
  }
}

/** One courier's account: balances, payouts recorded, entries, and the payout form. */
async function courierAccount(place, courier, context) {
  const path = `/v1/couriers/${courier.id}/balance`;
  const balances = h("div", { id: "courier-balances" });
  const payouts = h("div", { id: "courier-payouts" });
  const entries = h("div", { id: "courier-entries" });
  fill(place, h("h3", {}, `${t("account")} — ${courier.name}`), balances,
    h("div", { id: "courier-payout-place" }),
    h("h4", {}, t("payouts_recorded")), payouts, h("h4", {}, t("entries")), entries);
  const found = await loadBalances(balances, path);
  if (!found) {
    fill(place, balances);
    return;
  }
  if (PAYERS.includes(context.user.role)) {
    place.querySelector("#courier-payout-place").replaceWith(payoutForm(courier, found, context, () => courierAccount(place, courier, context)));
  }
  await Promise.all([
    pagedTable(payouts, path, payoutsTable),
    pagedTable(entries, path, entriesTable),
  ]);
}

function payoutForm(courier, account, context, done) {
  const status = h("div");
  const record = h("button", { type: "submit", class: "primary", id: "record-courier-payout" }, t("record_payout"));
  const currencies = [...new Set([...account.balances.map((entry) => entry.currency), context.store?.currency ?? "ILS"])];
  const form = h("form", { class: "fields panel", id: "courier-payout-form" },
    field("amount", t("payout_amount"), { id: "courier-payout-amount", inputmode: "decimal", required: true }),
    field("currency", t("currency"), { id: "courier-payout-currency", options: currencies.map((code) => [code, code]) }),
    field("reference", t("reference"), { id: "courier-payout-reference" }),
    field("note", t("notes"), { id: "courier-payout-note" }),
    h("div", { class: "actions" }, record), status);
  submits(form, record, status, (draft, key) => {
    draft.amount = minorUnits(draft.amount, draft.currency);
    return call("POST", `/v1/couriers/${courier.id}/payouts`, { body: draft, idempotencyKey: key(draft) });
  }, (made) => {
    toast(t("payout_recorded", [money(made.amount, made.currency)]));
    done();
  });
  return form;
}
