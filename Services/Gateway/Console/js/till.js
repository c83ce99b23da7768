// The till: the store's customers (searched, created, edited, with their milestones), its NFC
// cards (registered, blocked, unlinked, a tap looked up), its activity as it happens, and each
// staff member's shifts over some days.
import { call, followActivity, query } from "./api.js";
import { language, t } from "./i18n.js";
import { busy, dialog, field, fill, h, money, pagedTable, progress, showError, submits, table, time, toast, values } from "./ui.js";

/** The roles the API shows the activity feed and the shift summary to (others are answered 404). */
const RUNNERS = ["admin", "owner", "manager"];
const MILESTONES = ["first_card_linked_at", "first_payment_at", "auto_sign_enabled_at"];
const CUSTOMER_FIELDS = ["name", "email", "phone", "wallet_address", "notes"];
/** How many activity entries a page shows. */
const ACTIVITY_PAGE = 50;

/** The day `date` falls on in the store's time zone, as `YYYY-MM-DD` (the summary's days are the store's). */
function day(date, timeZone) {
  return new Intl.DateTimeFormat("en-CA", { timeZone, year: "numeric", month: "2-digit", day: "2-digit" }).format(date);
}

export async function show(main, context) {
  const store = context.store;
  if (!store) {
    fill(main, h("h1", {}, t("screen_till")), h("p", { class: "muted" }, t("no_store")));
    return;
  }
  const stop = new AbortController();
  const runner = RUNNERS.includes(context.user.role);
  const customers = h("div", { id: "customers" });
  const cards = h("div", { id: "cards" });
  const lookupResult = h("div", { id: "lookup-result", "aria-live": "polite" });
  const activityPlace = h("div", { id: "activity-feed" });
  const summary = h("div", { id: "shift-summary" });
  /** The customers read so far, by id: names for the cards and the choice of whom a new card is for. */
  const known = new Map();

  // Customers: searched by the server (`q`), newest first.
  const search = h("form", { class: "toolbar", role: "search", id: "customer-search-form" },
    field("q", t("search"), { type: "search", id: "customer-search" }),
    h("button", { type: "submit" }, t("search")),
    h("button", {
      type: "button", class: "primary", id: "new-customer", onclick: () => editCustomer(store, null, () => loadCustomers()),
    }, t("new_customer")));
  search.addEventListener("submit", (event) => { event.preventDefault(); loadCustomers(); });

  // Cards: registered by uid, for a customer or none.
  const chooser = h("select", { id: "card-customer", name: "customer_id" });
  const register = h("button", { type: "submit", class: "primary", id: "register-card" }, t("register_card"));
  const registerStatus = h("div");
  const registerForm = h("form", { class: "fields panel", id: "register-card-form" },
    field("uid", t("card_uid"), { id: "card-uid", required: true, autocomplete: "off", spellcheck: "false" }),
    field("name", t("card_label"), { id: "card-name" }),
    h("label", { for: "card-customer" }, h("span", {}, t("customer")), chooser),
    h("div", { class: "actions" }, register), registerStatus);
  submits(registerForm, register, registerStatus, (draft, key) =>
    call("POST", `/v1/stores/${store.id}/cards`, { body: draft, idempotencyKey: key(draft) }), (card) => {
    toast(t("card_registered", [card.uid_display]));
    registerForm.reset();
    chooser.value = "";
    loadCustomers().then(loadCards);
  });

  // A tap looked up: the card with this uid and its customer.
  const lookupButton = h("button", { type: "submit", id: "lookup-card" }, t("look_up"));
  const lookupForm = h("form", { class: "toolbar", id: "lookup-form" },
    field("uid", t("tapped_uid"), { id: "lookup-uid", required: true, autocomplete: "off", spellcheck: "false" }),
    lookupButton);
  lookupForm.addEventListener("submit", async (event) => {
    event.preventDefault();
    const found = await busy(lookupButton, lookupResult,
      () => call("GET", `/v1/stores/${store.id}/cards/lookup${query(values(lookupForm))}`), lookupForm);
    if (found) fill(lookupResult, tap(found));
  });

  fill(main, h("h1", {}, t("screen_till"), ` — ${store.name}`),
    h("h2", {}, t("customers")), search, customers,
    h("h2", {}, t("cards")), h("h3", {}, t("look_up_tap")), lookupForm, lookupResult,
    h("h3", {}, t("register_card")), registerForm, cards,
    runner ? [h("h2", {}, t("activity")), activityPlace] : null,
    runner ? [h("h2", {}, t("shift_summary")), summary] : null);

  function customerChoices() {
    const chosen = chooser.value;
    fill(chooser, h("option", { value: "" }, t("no_customer")),
      [...known.values()].map((customer) => h("option", { value: customer.id, selected: customer.id === chosen }, customerLabel(customer))));
  }

  async function loadCustomers() {
    await pagedTable(customers, `/v1/stores/${store.id}/customers`, (rows) => {
      for (const customer of rows) known.set(customer.id, customer);
      customerChoices();
      return table([
        [t("name"), (customer) => customer.name ?? ""],
        [t("phone"), (customer) => h("bdi", {}, customer.phone ?? "")],
        [t("email"), (customer) => customer.email ?? ""],
        [t("milestones"), (customer) => milestones(customer)],
        ["", (customer) => h("span", { class: "toolbar" },
          h("button", {
            type: "button", id: `edit-customer-${customer.id}`, "aria-label": `${t("edit")} ${customerLabel(customer)}`,
            onclick: () => editCustomer(store, customer, (saved) => {
              known.set(saved.id, saved);
              loadCustomers().then(loadCards);
            }),
          }, t("edit")),
          h("button", {
            type: "button", id: `card-for-${customer.id}`, "aria-label": `${t("card_for")} ${customerLabel(customer)}`,
            onclick: () => {
              chooser.value = customer.id;
              registerForm.querySelector("#card-uid").focus();
            },
          }, t("card_for")))],
      ], rows);
    }, values(search));
  }

  /** The name of the customer `id`, read once when the customers listed so far do not have it. */
  const names = new Map();
  function customerName(id) {
    const cell = h("span", {}, known.get(id)?.name ?? "…");
    if (!known.has(id)) {
      if (!names.has(id)) names.set(id, call("GET", `/v1/customers/${id}`).then(customerLabel).catch(() => id.slice(0, 8)));
      names.get(id).then((name) => { cell.textContent = name; });
    }
    return cell;
  }

  async function loadCards() {
    const status = h("div");
    await pagedTable(cards, `/v1/stores/${store.id}/cards`, (rows) => h("div", {}, status, table([
      [t("card_uid"), (card) => card.uid_display],
      [t("card_label"), (card) => card.name ?? ""],
      [t("customer"), (card) => card.customer_id ? customerName(card.customer_id) : h("span", { class: "muted" }, t("no_customer"))],
      [t("status"), (card) => h("span", { class: `badge ${card.status}` }, t(`card_${card.status}`))],
      [t("when"), (card) => time(card.created_at)],
      ["", (card) => h("span", { class: "toolbar" },
        h("button", {
          type: "button", class: card.status === "blocked" ? null : "danger", id: `block-${card.id}`,
          "aria-label": `${t(card.status === "blocked" ? "unblock" : "block")} ${card.uid_display}`,
          onclick: (event) => changeCard(event.currentTarget, status, card, { status: card.status === "blocked" ? "active" : "blocked" }),
        }, t(card.status === "blocked" ? "unblock" : "block")),
        card.customer_id ? h("button", {
          type: "button", id: `unlink-${card.id}`, "aria-label": `${t("unlink")} ${card.uid_display}`,
          onclick: (event) => changeCard(event.currentTarget, status, card, { unlink_customer: true }),
        }, t("unlink")) : null)],
    ], rows)));
  }

  /** A card changed (blocked, unblocked, unlinked) as of the version shown. */
  async function changeCard(button, status, card, change) {
    const saved = await busy(button, status, (key) => {
      const body = { ...change, expected_version: card.version };
      return call("PATCH", `/v1/cards/${card.id}`, { body, idempotencyKey: key(body) });
    });
    if (saved) {
      toast(t("saved", [saved.uid_display]));
      loadCustomers().then(loadCards);
    }
  }

  // The feed and the summary show their own progress and errors: the screen (and its clean-up)
  // is the shell's as soon as the customers and the cards are read, the customers first since
  // the cards name theirs from them.
  if (runner) {
    activity(activityPlace, store, stop.signal);
    shiftSummary(summary, store);
  }
  await loadCustomers().then(loadCards);
  return () => stop.abort();
}

/** A customer's milestones: the first card linked, the first payment, auto-sign turned on. */
function milestones(customer) {
  const reached = MILESTONES.filter((name) => customer.milestones?.[name]);
  return reached.length
    ? h("ul", { class: "milestones" }, reached.map((name) => h("li", {}, `${t(`milestone_${name}`)}: ${time(customer.milestones[name])}`)))
    : h("span", { class: "muted" }, t("no_milestones"));
}

/** What a tap answered: the card, whether it pays, and its customer. */
function tap(found) {
  const { card, customer } = found;
  return h("div", { class: "panel", id: "lookup-found" },
    h("p", {}, h("strong", {}, card.uid_display), " ", card.name ?? "", " ",
      h("span", { class: `badge ${card.status}` }, t(`card_${card.status}`))),
    card.status === "active" ? null : h("p", { class: "error", role: "alert" }, t("card_will_not_pay")),
    customer
      ? h("div", { id: "lookup-customer" },
        h("p", {}, h("strong", {}, customerLabel(customer)), customer.phone ? [" · ", h("bdi", {}, customer.phone)] : "",
          customer.email ? [" · ", h("bdi", {}, customer.email)] : ""),
        milestones(customer))
      : h("p", { class: "muted" }, t("no_customer")));
}

/** What names a customer record: its name, else its e-mail, phone, wallet address or id. */
function customerLabel(customer) {
  return customer.name ?? customer.email ?? customer.phone ?? customer.wallet_address ?? customer.id.slice(0, 8);
}

/** A customer record created (`customer` null) or changed: only what changed is sent, with the version it was read at. */
function editCustomer(store, customer, done) {
  const { box, body } = dialog(customer ? `${t("edit")} ${customerLabel(customer)}` : t("new_customer"));
  const place = h("div");
  const save = h("button", { type: "submit", class: "primary", id: "save-customer" }, t("save"));
  const form = h("form", { class: "fields", id: "customer-form" },
    field("name", t("name"), { id: "customer-name", value: customer?.name }),
    field("phone", t("phone"), { id: "customer-phone", type: "tel", value: customer?.phone }),
    field("email", t("email"), { id: "customer-email", type: "email", value: customer?.email }),
    field("wallet_address", t("wallet_address"), { id: "customer-wallet_address", value: customer?.wallet_address }),
    field("auto_sign", t("auto_sign"), {
      id: "customer-auto_sign", options: [["false", t("no")], ["true", t("yes")]], value: String(customer?.auto_sign ?? false),
    }),
    field("notes", t("notes"), { id: "customer-notes", multiline: true }),
    h("div", { class: "actions" }, save), place);
  if (customer?.notes) form.querySelector("#customer-notes").value = customer.notes;
  submits(form, save, place, (_, key) => {
    const draft = {};
    for (const name of CUSTOMER_FIELDS) {
      const value = form.querySelector(`[name="${name}"]`).value.trim();
      // A blank optional text clears it; on a new record it is left out.
      if (customer ? value !== (customer[name] ?? "") : value !== "") draft[name] = value;
    }
    const autoSign = form.querySelector('[name="auto_sign"]').value === "true";
    if (autoSign !== (customer?.auto_sign ?? false)) draft.auto_sign = autoSign;
    if (!customer) return call("POST", `/v1/stores/${store.id}/customers`, { body: draft, idempotencyKey: key(draft) });
    draft.expected_version = customer.version;
    return call("PATCH", `/v1/customers/${customer.id}`, { body: draft, idempotencyKey: key(draft) });
  }, (saved) => {
    toast(t("saved", [saved.name]));
    box.close();
    done(saved);
  });
  fill(body, form);
}

/**
 * The store's activity, newest first, and each new entry at the top as it is kept. The feed is
 * read oldest first after a cursor: it is followed to its end (the newest page kept), older pages
 * are read back from the oldest shown, and the stream opens after the newest.
 */
async function activity(place, store, signal) {
  const path = `/v1/stores/${store.id}/activity`;
  const list = h("ul", { class: "timeline", id: "activity" });
  const status = h("div");
  const seen = new Set();
  let first = null;
  let oldest = null;

  function entry(item) {
    seen.add(item.seq);
    return h("li", { id: `activity-${item.seq}`, "data-type": item.type, "data-payment-id": item.data?.payment_id },
      h("strong", {}, item.title),
      // A payment's and a refund's titles say their amount; a new product's price is said here.
      item.amount !== null && item.amount !== undefined && item.currency && !["payment", "refund"].includes(item.type)
        ? ` · ${money(item.amount, item.currency)}` : "",
      h("br"), h("span", { class: "muted" }, h("bdi", {}, item.subtitle), " · ", h("time", { datetime: item.at }, time(item.at))));
  }

  function moreButton() {
    return oldest !== null && first !== null && oldest > first
      ? h("button", { type: "button", class: "more", id: "activity-more", onclick: (event) => older(event.currentTarget) }, t("more"))
      : null;
  }

  /** The entries before the oldest shown, a page of them (the feed's numbers are the store's, in order). */
  async function older(button) {
    const found = await busy(button, status, async () => {
      let rows = [];
      while (!rows.length && oldest > first) {
        const after = Math.max(first - 1, oldest - 1 - ACTIVITY_PAGE);
        const page = await call("GET", path + query({ after, limit: ACTIVITY_PAGE }));
        rows = page.data.filter((item) => item.seq < oldest);
        oldest = rows.length ? rows[0].seq : after + 1;
      }
      return rows;
    });
    if (!found) return;
    list.append(...found.reverse().filter((item) => !seen.has(item.seq)).map(entry));
    fill(place, list, status, moreButton());
  }

  fill(place, progress());
  let newest = 0;
  try {
    let kept = [];
    for (;;) {
      const page = await call("GET", path + query({ after: newest, limit: 200 }));
      if (first === null && page.data.length) first = page.data[0].seq;
      kept = [...kept, ...page.data].slice(-ACTIVITY_PAGE);
      newest = page.next_cursor;
      if (!page.has_more) break;
    }
    oldest = kept.length ? kept[0].seq : null;
    fill(list, kept.reverse().map(entry));
    fill(place, list.childElementCount ? null : h("p", { class: "muted", id: "activity-empty" }, t("none_yet")), list, status, moreButton());
  } catch (error) {
    showError(place, error);
    return;
  }
  // Live: each entry kept from now on, at the top.
  followActivity(store.id, (item) => {
    if (seen.has(item.seq)) return;
    place.querySelector("#activity-empty")?.remove();
    list.prepend(entry(item));
    first ??= item.seq;
    oldest ??= item.seq;
  }, signal, newest);
}

/** Each staff member's shifts, hours, sales and takings over a range of the store's days. */
async function shiftSummary(place, store) {
  const today = new Date();
  const range = h("form", { class: "toolbar", id: "summary-range" },
    field("from", t("from"), { id: "summary-from", type: "date", value: day(new Date(today.getTime() - 6 * 86400000), store.timezone) }),
    field("to", t("to"), { id: "summary-to", type: "date", value: day(today, store.timezone) }),
    h("button", { type: "submit", class: "primary" }, t("show")));
  const figures = h("div", { id: "summary-table" });
  fill(place, range, figures);
  async function load() {
    fill(figures, progress());
    try {
      const found = await call("GET", `/v1/stores/${store.id}/shifts/summary${query(values(range))}`);
      fill(figures, found.staff.length ? table([
        [t("staff_member"), (row) => row.name ?? row.staff_id.slice(0, 8)],
        [t("shifts_count"), (row) => String(row.shifts_count), true],
        [t("hours_worked"), (row) => row.hours_worked.toLocaleString(language(), { maximumFractionDigits: 2 }), true],
        [t("sales_count"), (row) => String(row.sales_count), true],
        [t("revenue"), (row) => money(row.revenue, store.currency), true],
      ], found.staff) : h("p", { class: "muted" }, t("none_yet")));
    } catch (error) {
      showError(figures, error, range);
    }
  }
  range.addEventListener("submit", (event) => { event.preventDefault(); load(); });
  await load();
}
