// Menu and stock: the store's products by category with their stock status; a product created
// or edited; stock adjusted with a reason; a product's ledger.
import { call } from "./api.js";
import { t } from "./i18n.js";
import {
  changedFrom, dialog, field, fill, h, majorUnits, minorUnits, money, pagedTable, rowsEditor, submits, table, time, toast, yesNo,
} from "./ui.js";

const EDITORS = ["admin", "owner", "manager"];
const REASONS = ["restock", "adjustment", "return", "damage", "expired", "transfer", "sale"];

export async function show(main, context) {
  const store = context.store;
  if (!store) {
    fill(main, h("h1", {}, t("screen_menu")), h("p", { class: "muted" }, t("no_store")));
    return;
  }
  const editor = EDITORS.includes(context.user.role);
  const list = h("div", { id: "products" });
  fill(main, h("h1", {}, t("screen_menu"), ` — ${store.name}`),
    editor ? h("div", { class: "toolbar" },
      h("button", { type: "button", class: "primary", id: "new-product", onclick: () => edit(store, null, reload) }, t("new_product"))) : null,
    list);

  /** The products a page at a time (`More`), grouped by category as far as they are read. */
  function reload() {
    return pagedTable(list, `/v1/stores/${store.id}/products`, (products) => {
      const categories = new Map();
      for (const product of products) {
        const name = product.category || t("uncategorised");
        if (!categories.has(name)) categories.set(name, []);
        categories.get(name).push(product);
      }
      return [...categories].map(([category, items]) => h("section", { class: "panel" }, h("h2", {}, category),
        table([
          [t("product"), (product) => `${product.emoji ?? ""} ${product.name}`.trim()],
          [t("price"), (product) => money(product.price, product.currency), true],
          [t("stock"), (product) => product.track_stock ? `${product.available} / ${product.quantity}` : "—", true],
          [t("stock_status"), (product) => h("span", { class: `badge ${product.stock_status}` }, t(`stock_${product.stock_status}`))],
          [t("on_sale"), (product) => product.active ? (product.can_sell ? t("yes") : t("not_sellable")) : t("no")],
          ["", (product) => h("span", { class: "toolbar" },
            editor || context.user.role === "social_media"
              ? h("button", { type: "button", onclick: () => edit(store, product, reload), "aria-label": `${t("edit")} ${product.name}` }, t("edit")) : null,
            editor
              ? h("button", { type: "button", onclick: () => adjust(product, reload), "aria-label": `${t("adjust_stock")} ${product.name}` }, t("adjust_stock")) : null,
            h("button", { type: "button", onclick: () => ledger(product), "aria-label": `${t("ledger")} ${product.name}` }, t("ledger")))],
        ], items)));
    }, {}, 100);
  }
  await reload();
}

function edit(store, product, reload) {
  const { box, body } = dialog(product ? `${t("edit")} ${product.name}` : t("new_product"));
  const place = h("div");
  const save = h("button", { type: "submit", class: "primary", id: "save-product" }, t("save"));
  const currency = store.currency;
  const groups = optionGroupsEditor(product?.option_groups ?? [], currency);
  const form = h("form", { class: "fields", id: "product-form" },
    field("name", t("name"), { required: true, value: product?.name }),
    field("category", t("category"), { value: product?.category }),
    field("price", t("price"), { inputmode: "decimal", required: true, value: product ? majorUnits(product.price, currency) : "" }),
    field("sku", t("sku"), { value: product?.sku }), field("barcode", t("barcode"), { value: product?.barcode }),
    field("emoji", t("emoji"), { value: product?.emoji }),
    field("description", t("description"), { multiline: true, value: product?.description }),
    product ? null : field("track_stock", t("track_stock"), { options: yesNo() }),
    product ? null : field("quantity", t("opening_stock"), { type: "number", min: "0", value: "0" }),
    field("low_stock_threshold", t("low_stock_threshold"), { type: "number", min: "0", value: product?.low_stock_threshold }),
    product ? field("active", t("on_sale"), { options: yesNo(), value: String(product.active) }) : null,
    h("div", { class: "wide" }, h("h3", {}, t("option_groups")), groups.element),
    h("div", { class: "actions" }, save), place);
  if (product?.description) form.description.value = product.description;
  submits(form, save, place, (draft, key) => {
    draft.price = minorUnits(draft.price, currency);
    for (const name of ["track_stock", "active"]) if (name in draft) draft[name] = draft[name] === "true";
    draft.option_groups = groups.read();
    if (!product) return call("POST", `/v1/stores/${store.id}/products`, { body: draft, idempotencyKey: key(draft) });
    // Only what changed, with the version seen, so that a change made meanwhile is not overwritten.
    const changed = changedFrom(draft, product);
    if (JSON.stringify(draft.option_groups) === JSON.stringify(product.option_groups)) delete changed.option_groups;
    changed.expected_version = product.version;
    return call("PATCH", `/v1/products/${product.id}`, { body: changed, idempotencyKey: key(changed) });
  }, (saved) => {
    toast(t("saved", [saved.name]));
    box.close();
    reload();
  });
  fill(body, form);
}

function adjust(product, reload) {
  const { box, body } = dialog(`${t("adjust_stock")} — ${product.name}`);
  const place = h("div");
  const save = h("button", { type: "submit", class: "primary", id: "save-adjustment" }, t("save"));
  const form = h("form", { class: "fields" },
    field("adjustment", t("adjustment"), { type: "number", required: true }),
    field("reason", t("reason"), { options: REASONS.map((reason) => [reason, t(`reason_${reason}`)]) }),
    field("notes", t("notes")), h("div", { class: "actions" }, save), place);
  submits(form, save, place, (adjustment, key) =>
    call("POST", `/v1/products/${product.id}/stock-adjustments`, { body: adjustment, idempotencyKey: key(adjustment) }), (entry) => {
    toast(t("stock_now", [product.name, entry.new_quantity]));
    box.close();
    reload();
  });
  fill(body, h("p", {}, t("stock_now", [product.name, product.quantity])), form);
}

async function ledger(product) {
  const { body } = dialog(`${t("ledger")} — ${product.name}`);
  const entries = h("div", { id: "ledger-entries" });
  fill(body, entries);
  await pagedTable(entries, `/v1/products/${product.id}/stock-ledger`, (rows) => table([
    [t("when"), (entry) => time(entry.created_at)],
    [t("reason"), (entry) => t(`reason_${entry.reason}`)],
    [t("adjustment"), (entry) => (entry.adjustment > 0 ? "+" : "") + entry.adjustment, true],
    [t("stock"), (entry) => String(entry.new_quantity), true],
    [t("notes"), (entry) => entry.notes ?? ""],
  ], rows));
}

/** A product's option groups: each a name, how many of its options a customer picks, and its options with their price. */
function optionGroupsEditor(groups, currency) {
  const place = h("div", { "data-path": "option_groups" });
  let items = groups.map((group) => ({ ...group }));
  let editors = [];

  function current() {
    return [...place.querySelectorAll("fieldset")].map((set, index) => {
      const number = (key, fallback) => {
        const text = set.querySelector(`:scope > .toolbar [data-key="${key}"]`).value.trim();
        return text === "" ? fallback : Number(text);
      };
      const group = items[index]?.id ? { id: items[index].id } : {};
      group.name = set.querySelector(':scope > .toolbar [data-key="name"]').value.trim();
      group.min_select = number("min_select", 0);
      group.max_select = number("max_select", 1);
      group.options = editors[index].read();
      return group;
    });
  }

  function render() {
    editors = items.map((group, index) => rowsEditor(`option_groups[${index}].options`, [
      { key: "name", label: t("option") },
      { key: "price_delta", label: t("price_delta"), show: (value) => majorUnits(value ?? 0, currency), read: (text) => minorUnits(text || "0", currency) },
    ], group.options ?? [], () => ({ name: "", price_delta: 0 })));
    fill(place, items.map((group, index) => h("fieldset", { class: "panel" },
      h("legend", {}, `${t("option_group")} ${index + 1}`),
      h("div", { class: "toolbar" },
        ...[["name", t("name"), "text", group.name ?? ""], ["min_select", t("min_select"), "number", group.min_select ?? 0],
          ["max_select", t("max_select"), "number", group.max_select ?? 1]].map(([key, label, type, value]) =>
          h("label", {}, label, " ", h("input", { name: `option_groups[${index}].${key}`, "data-key": key, type, value: String(value) }))),
        h("button", { type: "button", class: "danger", onclick: () => { items = current(); items.splice(index, 1); render(); } }, t("remove_group"))),
      editors[index].element)),
    h("button", { type: "button", id: "add-option-group", onclick: () => { items = current(); items.push({ name: "", min_select: 0, max_select: 1, options: [{ name: "", price_delta: 0 }] }); render(); } }, t("add_option_group")));
  }

  render();
  return { element: place, read: current };
}
