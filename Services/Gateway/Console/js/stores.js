// A store's settings as one form, every setting the API takes: a new store opened with it by an
// admin, an existing one's changed (only what changed is sent, with `expected_version`). What
// may change, and by whom, is the server's: its reasons show beside the fields.
import { call } from "./api.js";
import { t } from "./i18n.js";
import { changedFrom, field, h, majorUnits, minorUnits, rowsEditor, submits, yesNo } from "./ui.js";

const DAYS = ["mon", "tue", "wed", "thu", "fri", "sat", "sun"];
const TIERS = ["free", "starter", "pro", "enterprise"];
const DISPATCH = ["when_ready", "on_create"];
/** The workflows a store's orders may follow (`workflow`), its own the default of its staff's new orders. */
export const WORKFLOWS = ["standard", "repair"];
const VAT_KINDS = ["product", "repair", "device_sale", "accessory", "device_purchase"];
const SWITCHES = ["accepting_orders", "auto_accept", "require_clock_in"];
const AMOUNTS = ["minimum_order", "staff_refund_limit"];

/**
 * The settings form of `store` (null: a new store), for `user`; `saved(store)` is called with the
 * server's answer. Answers the form. Its id is `id`; its button's `save-<id>`… as given.
 */
export function storeForm(store, user, { id, button, saved }) {
  const currency = store?.currency ?? "ILS";
  const place = h("div");
  const save = h("button", { type: "submit", class: "primary", id: button }, t(store ? "save" : "open_store"));
  const hours = rowsEditor("opening_hours", [
    { key: "day", label: t("day"), options: DAYS.map((day) => [day, t(`day_${day}`)]) },
    { key: "open", label: t("opens"), type: "time" }, { key: "close", label: t("closes") },
  ], store?.opening_hours ?? [], () => ({ day: "mon", open: "09:00", close: "17:00" }));
  const defaultTiers = [{ max_boxes: 8, fee: 3500, multiplier: 1 }, { max_boxes: 16, fee: 7000, multiplier: 2 },
    { max_boxes: null, fee: 10500, multiplier: 3 }];
  const tiers = rowsEditor("delivery_pricing.tiers", [
    { key: "max_boxes", label: t("up_to_boxes"), type: "number", read: (text) => (text === "" ? null : Number(text)) },
    { key: "fee", label: t("delivery_fee"), show: (value) => majorUnits(value ?? 0, currency), read: (text) => minorUnits(text, currency) },
    { key: "multiplier", label: t("multiplier"), type: "number", read: (text) => Number(text || "1") },
  ], store?.delivery_pricing?.tiers ?? defaultTiers, () => ({ max_boxes: null, fee: 0, multiplier: 1 }));
  const vat = VAT_KINDS.map((kind) => field(`vat_rates.${kind}`, t("vat_percent", [t(`vat_${kind}`)]), {
    id: `${id}-vat-${kind}`, inputmode: "decimal", "data-vat": kind,
    value: store?.vat_rates ? String(store.vat_rates[kind] / 100) : "",
  }));
  const text = (name, attributes = {}) => field(name, t(name === "image_url" ? "image_address" : name),
    { id: `${id}-${name}`, value: store?.[name] ?? "", ...attributes });
  const form = h("form", { class: "fields panel", id },
    text("name", { required: true }), text("phone", { type: "tel" }), text("address"), text("cuisine"),
    text("image_url", { type: "url" }),
    field("tier", t("tier"), { id: `${id}-tier`, options: TIERS.map((tier) => [tier, t(`tier_${tier}`)]), value: store?.tier ?? "free" }),
    text("currency", { maxlength: 3, value: currency, readonly: Boolean(store) }),
    text("timezone", { value: store?.timezone ?? Intl.DateTimeFormat().resolvedOptions().timeZone }),
    field("dispatch", t("dispatch"), { id: `${id}-dispatch`, options: DISPATCH.map((when) => [when, t(`dispatch_${when}`)]), value: store?.dispatch ?? "when_ready" }),
    field("workflow", t("workflow"), { id: `${id}-workflow`, options: WORKFLOWS.map((flow) => [flow, t(`workflow_${flow}`)]), value: store?.workflow ?? "standard" }),
    SWITCHES.map((name) => field(name, t(name), {
      id: `${id}-${name}`, options: yesNo(), value: String(store?.[name] ?? name === "accepting_orders"),
    })),
    AMOUNTS.map((name) => field(name, t(name), {
      id: `${id}-${name}`, inputmode: "decimal", value: store ? majorUnits(store[name], currency) : "0",
    })),
    field("low_stock_default", t("low_stock_default"), { id: `${id}-low_stock_default`, type: "number", min: 0, value: store?.low_stock_default ?? "" }),
    user.role === "admin"
      ? field("commission_bp", t("commission_percent"), { id: `${id}-commission_bp`, inputmode: "decimal", value: store ? String(store.commission_bp / 100) : "" })
      : null,
    h("div", { class: "wide" }, h("h3", {}, t("vat_rates")), h("div", { class: "toolbar" }, vat)),
    h("div", { class: "wide" }, field("description", t("description"), { id: `${id}-description`, multiline: true, value: store?.description ?? "" })),
    store ? h("p", { class: "muted wide" }, t("open_now"), ": ", store.is_open_now ? t("yes") : t("no")) : null,
    h("div", { class: "wide" }, h("h3", {}, t("opening_hours")), hours.element),
    h("div", { class: "wide" }, h("h3", {}, t("delivery_tiers")), tiers.element),
    h("div", { class: "actions" }, save), place);

  submits(form, save, place, (entered, key) => {
    for (const name of SWITCHES) entered[name] = entered[name] === "true";
    for (const name of AMOUNTS) entered[name] = minorUnits(entered[name] ?? "0", currency);
    if (entered.commission_bp !== undefined) entered.commission_bp = percentToBasisPoints(entered.commission_bp);
    // The rates typed (the server names any of the five left out).
    const rates = {};
    for (const input of form.querySelectorAll("[data-vat]")) {
      delete entered[input.name];
      if (input.value.trim() !== "") rates[input.dataset.vat] = percentToBasisPoints(input.value);
    }
    const anyRate = Object.keys(rates).length > 0;
    if (store) {
      const draft = changedFrom(entered, store);
      delete draft.currency;
      if (anyRate && JSON.stringify(rates) !== JSON.stringify(pick(store.vat_rates, VAT_KINDS))) draft.vat_rates = rates;
      const opening = hours.read();
      if (JSON.stringify(opening) !== JSON.stringify(store.opening_hours ?? [])) draft.opening_hours = opening;
      const pricing = { tiers: tiers.read() };
      if (JSON.stringify(pricing) !== JSON.stringify(store.delivery_pricing)) draft.delivery_pricing = pricing;
      draft.expected_version = store.version;
      return call("PATCH", `/v1/stores/${store.id}`, { body: draft, idempotencyKey: key(draft) });
    }
    const draft = { ...entered, opening_hours: hours.read(), delivery_pricing: { tiers: tiers.read() } };
    if (anyRate) draft.vat_rates = rates;
    return call("POST", "/v1/stores", { body: draft, idempotencyKey: key(draft) });
  }, saved);
  return form;
}

/** `12.5` (percent) as 1250 basis points; text that is not a number as typed, for the server to name. */
function percentToBasisPoints(text) {
  const value = Number(String(text).replace(",", "."));
  return String(text).trim() === "" ? "" : Number.isFinite(value) ? Math.round(value * 100) : text;
}

function pick(object, names) {
  return Object.fromEntries(names.map((name) => [name, object?.[name]]));
}
