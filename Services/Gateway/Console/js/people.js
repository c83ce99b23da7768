// People and settings: the store's users and whether they are clocked in, the store's settings,
// its webhooks with their deliveries (each delivered again from here).
import { all, call, query } from "./api.js";
import { t } from "./i18n.js";
import {
  busy, changedFrom, dialog, field, fill, h, majorUnits, minorUnits, progress, rowsEditor, showError, submits, table, time, toast, yesNo,
} from "./ui.js";

const DAYS = ["mon", "tue", "wed", "thu", "fri", "sat", "sun"];

export async function show(main, context) {
  let store = context.store;
  if (!store) return fill(main, h("p", { class: "muted" }, t("no_store")));
  const users = h("div", { id: "users" });
  const settings = h("div", { id: "settings" });
  const webhooks = h("div", { id: "webhooks" });
  fill(main, h("h1", {}, t("screen_people"), ` — ${store.name}`),
    h("h2", {}, t("users")), users, h("h2", {}, t("settings")), settings, h("h2", {}, t("webhooks")), webhooks);

  async function loadUsers() {
    fill(users, progress());
    try {
      const found = await all("/v1/users", { store_id: store.id }, 1000);
      fill(users, table([
        [t("name"), (user) => user.name], [t("email"), (user) => user.email],
        [t("role"), (user) => t(`role_${user.role}`) + (user.staff_role ? ` · ${user.staff_role}` : "")],
        [t("clock"), (user) => user.is_clocked_in ? `${t("clocked_in")} ${time(user.clocked_in_at)}` : t("clocked_out")],
        [t("active"), (user) => user.active ? t("yes") : t("no")],
      ], found));
    } catch (error) {
      showError(users, error);
    }
  }

  function renderSettings() {
    const place = h("div");
    const save = h("button", { type: "submit", class: "primary", id: "save-settings" }, t("save"));
    const hours = rowsEditor("opening_hours", [
      { key: "day", label: t("day"), options: DAYS.map((day) => [day, t(`day_${day}`)]) },
      { key: "open", label: t("opens"), type: "time" }, { key: "close", label: t("closes") },
    ], store.opening_hours ?? [], () => ({ day: "mon", open: "09:00", close: "17:00" }));
    const tiers = rowsEditor("delivery_pricing.tiers", [
      { key: "max_boxes", label: t("up_to_boxes"), type: "number", read: (text) => (text === "" ? null : Number(text)) },
      { key: "fee", label: t("delivery_fee"), show: (value) => majorUnits(value ?? 0, store.currency), read: (text) => minorUnits(text, store.currency) },
      { key: "multiplier", label: t("multiplier"), type: "number", read: (text) => Number(text || "1") },
    ], store.delivery_pricing?.tiers ?? [], () => ({ max_boxes: null, fee: 0, multiplier: 1 }));
    const form = h("form", { class: "fields panel", id: "settings-form" },
      field("name", t("name"), { value: store.name }), field("phone", t("phone"), { value: store.phone }),
      field("address", t("address"), { value: store.address }),
      field("accepting_orders", t("accepting_orders"), { options: yesNo(), value: String(store.accepting_orders) }),
      field("auto_accept", t("auto_accept"), { options: yesNo(), value: String(store.auto_accept) }),
      field("require_clock_in", t("require_clock_in"), { options: yesNo(), value: String(store.require_clock_in) }),
      field("minimum_order", t("minimum_order"), { inputmode: "decimal", value: majorUnits(store.minimum_order, store.currency) }),
      field("staff_refund_limit", t("staff_refund_limit"), { inputmode: "decimal", value: majorUnits(store.staff_refund_limit, store.currency) }),
      h("p", { class: "muted wide" }, t("open_now"), ": ", store.is_open_now ? t("yes") : t("no")),
      h("div", { class: "wide" }, h("h3", {}, t("opening_hours")), hours.element),
      h("div", { class: "wide" }, h("h3", {}, t("delivery_tiers")), tiers.element),
      h("div", { class: "actions" }, save), place);
    submits(form, save, place, (entered, key) => {
      for (const name of ["accepting_orders", "auto_accept", "require_clock_in"]) entered[name] = entered[name] === "true";
      for (const name of ["minimum_order", "staff_refund_limit"]) entered[name] = minorUnits(entered[name], store.currency);
      const draft = changedFrom(entered, store);
      const opening = hours.read();
      if (JSON.stringify(opening) !== JSON.stringify(store.opening_hours ?? [])) draft.opening_hours = opening;
      const pricing = { tiers: tiers.read() };
      if (JSON.stringify(pricing) !== JSON.stringify(store.delivery_pricing)) draft.delivery_pricing = pricing;
      draft.expected_version = store.version;
      return call("PATCH", `/v1/stores/${store.id}`, { body: draft, idempotencyKey: key(draft) });
    }, (saved) => {
      store = saved;
      context.store = saved;
      toast(t("saved", [saved.name]));
      renderSettings();
    });
    fill(settings, form);
  }

  async function loadWebhooks() {
    fill(webhooks, progress());
    try {
      const found = await all(`/v1/stores/${store.id}/webhooks`, {}, 200);
      fill(webhooks, found.length ? table([
        [t("address"), (hook) => hook.url], [t("events"), (hook) => hook.events.join(", ")],
        [t("active"), (hook) => hook.active ? t("yes") : `${t("no")} ${hook.disabled_reason ?? ""}`],
        ["", (hook) => h("button", { type: "button", onclick: () => deliveries(hook) }, t("deliveries"))],
      ], found) : h("p", { class: "muted" }, t("none_yet")));
    } catch (error) {
      showError(webhooks, error);
    }
  }

  renderSettings();
  await Promise.all([loadUsers(), loadWebhooks()]);
}

async function deliveries(hook) {
  const { body } = dialog(`${t("deliveries")} — ${hook.url}`);
  const place = h("div");
  async function load() {
    fill(body, progress());
    try {
      const page = await call("GET", `/v1/webhooks/${hook.id}/deliveries${query({ limit: 100 })}`);
      fill(body, place, table([
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
      ], page.data));
    } catch (error) {
      showError(body, error);
    }
  }
  await load();
}
