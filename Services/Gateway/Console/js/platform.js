// The platform: stores (a new one opened here), applications to approve or reject, the
// platform's people (couriers and staff: made, turned off and on, a role changed, a password
// reset sent) and whether couriers are on duty, couriers' accounts, each store's balance and
// payouts. Each part is shown to the roles the API answers.
import { call, query } from "./api.js";
import { t } from "./i18n.js";
import {
  busy, dialog, field, fill, h, minorUnits, money, pagedTable, progress, showError, submits, table, time, toast,
} from "./ui.js";
import { balancesTable, courierAccounts, entriesTable } from "./money.js";
import { storeForm } from "./stores.js";
import { PLATFORM_ROLES, usersSection } from "./users.js";

export async function show(main, context) {
  const role = context.user.role;
  const parts = [];
  const section = (id, title, load) => {
    const place = h("div", { id });
    parts.push([place, load]);
    return [h("h2", {}, title), place];
  };
  fill(main, h("h1", {}, t("screen_platform")),
    section("stores", t("stores"), loadStores),
    ["admin", "supervisor"].includes(role) ? section("applications", t("applications"), loadApplications) : null,
    ["admin", "supervisor"].includes(role) ? section("platform-people", t("platform_people"), loadPeople) : null,
    ["admin", "accountant"].includes(role) ? section("courier-accounts", t("courier_accounts"), (place) => courierAccounts(place, context)) : null,
    ["admin", "accountant"].includes(role) && context.store ? section("balance", `${t("balance")} — ${context.store.name}`, (place) => loadBalance(place, context.store)) : null);
  await Promise.all(parts.map(async ([place, load]) => {
    fill(place, progress());
    try {
      await load(place);
    } catch (error) {
      showError(place, error);
    }
  }));

  async function loadStores(place) {
    const list = h("div", { id: "stores-list" });
    const reload = () => pagedTable(list, "/v1/stores", (stores) => table([
      [t("name"), (store) => store.name], [t("phone"), (store) => store.phone ?? ""],
      [t("tier"), (store) => t(`tier_${store.tier}`)],
      [t("accepting_orders"), (store) => store.accepting_orders ? t("yes") : t("no")],
      [t("open_now"), (store) => store.is_open_now ? t("yes") : t("no")],
    ], stores));
    fill(place, role === "admin" ? h("div", { class: "toolbar" }, h("button", {
      type: "button", class: "primary", id: "open-store", onclick: () => openStore(reload),
    }, t("open_store"))) : null, list);
    await reload();
  }

  function openStore(done) {
    const { box, body } = dialog(t("open_store"));
    fill(body, storeForm(null, context.user, {
      id: "store-form", button: "save-store", saved: (store) => {
        box.close();
        toast(t("store_opened", [store.name]));
        window.dispatchEvent(new CustomEvent("orderly:stores-changed", { detail: store }));
        done();
      },
    }));
  }

  async function loadApplications(place) {
    const status = h("div");
    const list = h("div", { id: "applications-list" });
    const reload = () => pagedTable(list, "/v1/applications", (pending) => table([
      [t("when"), (application) => time(application.created_at)],
      [t("kind"), (application) => t(`application_${application.kind}`)],
      [t("name"), (application) => application.name], [t("email"), (application) => application.email],
      ["", (application) => h("span", { class: "toolbar" },
        h("button", {
          type: "button", class: "primary", id: `approve-${application.id}`, onclick: async (event) => {
            const done = await busy(event.currentTarget, status,
              (key) => call("POST", `/v1/applications/${application.id}/approve`, { idempotencyKey: key() }));
            if (done) { toast(t("approved")); reload(); }
          },
        }, t("approve")),
        h("button", { type: "button", class: "danger", onclick: () => reject(application, reload) }, t("reject")))],
    ], pending), { status: "pending" });
    fill(place, status, list);
    await reload();
  }

  async function loadPeople(place) {
    const people = h("div");
    const chosen = field("role", t("role"), {
      id: "platform-role", options: PLATFORM_ROLES.map((name) => [name, t(`role_${name}`)]), value: "courier",
    });
    const list = () => usersSection(people, context, {
      id: "platform-users", parameters: { role: chosen.querySelector("select").value }, roles: PLATFORM_ROLES,
    });
    chosen.querySelector("select").addEventListener("change", list);
    fill(place, h("div", { class: "toolbar" }, chosen), people);
    await list();
  }
}

function reject(application, done) {
  const { box, body } = dialog(`${t("reject")} — ${application.name}`);
  const place = h("div");
  const save = h("button", { type: "submit", class: "danger" }, t("reject"));
  const form = h("form", { class: "fields" }, field("reason", t("reason"), { required: true }), h("div", { class: "actions" }, save), place);
  submits(form, save, place, (rejection, key) =>
    call("POST", `/v1/applications/${application.id}/reject`, { body: rejection, idempotencyKey: key(rejection) }), () => {
    box.close();
    done();
  });
  fill(body, form);
}

async function loadBalance(place, store) {
  const balance = await call("GET", `/v1/stores/${store.id}/balance${query({ limit: 1 })}`);
  const entries = h("div", { id: "balance-entries" });
  const status = h("div");
  const record = h("button", { type: "submit", class: "primary", id: "record-payout" }, t("record_payout"));
  const payout = h("form", { class: "fields panel", id: "payout-form" },
    field("amount", t("payout_amount"), { inputmode: "decimal", required: true }),
    field("currency", t("currency"), { options: [...new Set([store.currency, ...balance.balances.map((entry) => entry.currency)])].map((code) => [code, code]) }),
    field("reference", t("reference")), field("note", t("notes")),
    h("div", { class: "actions" }, record), status);
  submits(payout, record, status, (draft, key) => {
    draft.amount = minorUnits(draft.amount, draft.currency);
    return call("POST", `/v1/stores/${store.id}/payouts`, { body: draft, idempotencyKey: key(draft) });
  }, (made) => {
    toast(t("payout_recorded", [money(made.amount, made.currency)]));
    loadBalance(place, store);
  });
  fill(place, payout, balancesTable(balance.balances), h("h3", {}, t("entries")), entries);
  await pagedTable(entries, `/v1/stores/${store.id}/balance`, entriesTable);
}
