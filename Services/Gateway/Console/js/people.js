// People and settings: the store's users (made, turned off and on, a role changed, a password
// reset sent) and whether they are clocked in, the store's settings, and its webhooks (made,
// tested, deleted) with their deliveries, each delivered again from here.
import { call } from "./api.js";
import { t } from "./i18n.js";
import { busy, dialog, field, fill, h, pagedTable, submits, table, time, toast } from "./ui.js";
import { storeForm } from "./stores.js";
import { STORE_ROLES, usersSection } from "./users.js";

const EVENTS = ["order.created", "order.claimed", "order.status_changed", "order.released", "stock.low", "stock.out",
  "payment.completed", "payment.refunded"];

export async function show(main, context) {
  const store = context.store;
  if (!store) {
    fill(main, h("h1", {}, t("screen_people")), h("p", { class: "muted" }, t("no_store")));
    return;
  }
  const users = h("div", { id: "users" });
  const settings = h("div", { id: "settings" });
  const webhooks = h("div", { id: "webhooks" });
  fill(main, h("h1", {}, t("screen_people"), ` — ${store.name}`),
    h("h2", {}, t("users")), users, h("h2", {}, t("settings")), settings, h("h2", {}, t("webhooks")), webhooks);

  function renderSettings(current) {
    fill(settings, storeForm(current, context.user, {
      id: "settings-form", button: "save-settings", saved: (saved) => {
        context.store = saved;
        toast(t("saved", [saved.name]));
        window.dispatchEvent(new Event("orderly:stores-changed"));
        renderSettings(saved);
      },
    }));
  }

  async function loadWebhooks() {
    const status = h("div", { id: "webhooks-status" });
    const list = h("div", { id: "webhooks-list" });
    const reload = () => pagedTable(list, `/v1/stores/${store.id}/webhooks`, (found) => table([
      [t("address"), (hook) => hook.url], [t("events"), (hook) => hook.events.join(", ")],
      [t("active"), (hook) => hook.active ? t("yes") : `${t("no")} ${hook.disabled_reason ?? ""}`],
      ["", (hook) => h("span", { class: "toolbar" },
        h("button", { type: "button", id: `deliveries-${hook.id}`, onclick: () => deliveries(hook) }, t("deliveries")),
        h("button", {
          type: "button", id: `test-${hook.id}`, onclick: async (event) => {
            const sent = await busy(event.currentTarget, status, (key) =>
              call("POST", `/v1/webhooks/${hook.id}/test`, { idempotencyKey: key() }));
            if (sent) toast(t("test_sent"));
          },
        }, t("send_test")),
        h("button", { type: "button", class: "danger", id: `delete-${hook.id}`, onclick: () => deleteWebhook(hook, reload) },
          t("delete")))],
    ], found));
    fill(webhooks, h("div", { class: "toolbar" },
      h("button", { type: "button", class: "primary", id: "new-webhook", onclick: () => newWebhook(store, reload) }, t("new_webhook"))),
    status, list);
    await reload();
  }

  renderSettings(store);
  await Promise.all([
    usersSection(users, context, { id: "store-users", parameters: { store_id: store.id }, roles: STORE_ROLES, store }),
    loadWebhooks(),
  ]);
}

function newWebhook(store, done) {
  const { box, body } = dialog(t("new_webhook"));
  const place = h("div");
  const save = h("button", { type: "submit", class: "primary", id: "save-webhook" }, t("create"));
  const form = h("form", { class: "fields", id: "webhook-form" },
    field("url", t("address"), { type: "url", required: true, placeholder: "https://" }),
    h("fieldset", { class: "wide", "data-path": "events" }, h("legend", {}, t("events")),
      EVENTS.map((event) => h("label", {}, h("input", { type: "checkbox", value: event, checked: event.startsWith("order.") }), " ", event))),
    h("div", { class: "actions" }, save), place);
  submits(form, save, place, (draft, key) => {
    draft.events = [...form.querySelectorAll("[data-path=events] input:checked")].map((input) => input.value);
    return call("POST", `/v1/stores/${store.id}/webhooks`, { body: draft, idempotencyKey: key(draft) });
  }, (made) => {
    box.close();
    // The signing secret is shown once, at creation: a receiver needs it to check signatures.
    const { body: shown } = dialog(t("webhook_secret"));
    fill(shown, h("p", {}, t("webhook_secret_once")), h("code", { id: "webhook-secret" }, made.secret));
    done();
  });
  fill(body, form);
}

function deleteWebhook(hook, done) {
  const { box, body } = dialog(t("delete_webhook"));
  const place = h("div");
  const confirm = h("button", {
    type: "button", class: "danger", id: "confirm-delete", onclick: async (event) => {
      const deleted = await busy(event.currentTarget, place, () => call("DELETE", `/v1/webhooks/${hook.id}`));
      if (deleted === undefined) return;
      box.close();
      toast(t("deleted"));
      done();
    },
  }, t("delete"));
  fill(body, h("p", {}, t("delete_webhook_confirm", [hook.url])), h("div", { class: "actions" }, confirm), place);
}

async function deliveries(hook) {
  const { body } = dialog(`${t("deliveries")} — ${hook.url}`);
  const place = h("div");
  const list = h("div", { id: "deliveries-list" });
  fill(body, place, list);
  const load = () => pagedTable(list, `/v1/webhooks/${hook.id}/deliveries`, (rows) => table([
    [t("when"), (delivery) => time(delivery.created_at)], [t("events"), (delivery) => delivery.event_type],
    [t("status"), (delivery) => delivery.status], [t("attempts"), (delivery) => String(delivery.attempts), true],
    [t("answer"), (delivery) => delivery.last_status_code ? String(delivery.last_status_code) : (delivery.last_error ?? "")],
    ["", (delivery) => h("button", {
      type: "button", onclick: async (event) => {
        const done = await busy(event.currentTarget, place, (key) =>
          call("POST", `/v1/webhooks/${hook.id}/deliveries/${delivery.id}/redeliver`, { idempotencyKey: key() }));
        if (done !== undefined) { toast(t("redelivered")); load(); }
      },
    }, t("redeliver"))],
  ], rows));
  await load();
}
