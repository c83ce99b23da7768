// Small DOM helpers: elements, money and times in the user's language, errors as the server wrote
// them, progress while waiting.
import { call, query } from "./api.js";
import { t, language } from "./i18n.js";

/** An element: `h("button", { class: "primary", onclick }, "Save")`. */
export function h(tag, attributes = {}, ...children) {
  const element = document.createElement(tag);
  for (const [name, value] of Object.entries(attributes)) {
    if (value === undefined || value === null || value === false) continue;
    if (name.startsWith("on")) element.addEventListener(name.slice(2), value);
    else if (value === true) element.setAttribute(name, "");
    else element.setAttribute(name, String(value));
  }
  append(element, children);
  return element;
}

function append(element, children) {
  for (const child of children.flat()) {
    if (child === undefined || child === null || child === false) continue;
    element.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
}

/** Replaces what `element` holds. */
export function fill(element, ...children) {
  element.replaceChildren();
  append(element, children);
  return element;
}

export function progress() { return h("p", { class: "progress", role: "status" }, t("loading")); }

/** How many digits of `currency` a minor unit is (2 for shekels, 0 for yen). */
function fractionDigits(currency) {
  return new Intl.NumberFormat("en", { style: "currency", currency }).resolvedOptions().maximumFractionDigits;
}

/** Minor units as money in the store's currency; blank for none. */
export function money(minor, currency = "ILS") {
  if (minor === null || minor === undefined) return "";
  return new Intl.NumberFormat(language(), { style: "currency", currency }).format(minor / 10 ** fractionDigits(currency));
}

/** Minor units as a plain number in major units, for an input (`1250` → `12.5`). */
export function majorUnits(minor, currency = "ILS") {
  return String(minor / 10 ** fractionDigits(currency));
}

/**
 * The minor units of an amount typed in major units (`12.50` → 1250); text that is not a number
 * is answered as typed, for the server to name the field.
 */
export function minorUnits(text, currency = "ILS") {
  const value = Number(String(text).replace(",", "."));
  return Number.isFinite(value) && String(text).trim() !== "" ? Math.round(value * 10 ** fractionDigits(currency)) : text;
}

export function time(iso) {
  return iso ? new Date(iso).toLocaleString(language(), { dateStyle: "short", timeStyle: "short" }) : "";
}

/** The server's error, shown in `place`, with each field's reason beside its input in `form`. */
export function showError(place, error, form = null) {
  form?.querySelectorAll(".field-error").forEach((node) => node.remove());
  const message = error?.message ?? String(error);
  fill(place, h("p", { class: "error", role: "alert" }, message));
  if (!form || !error?.details) return;
  for (const [field, reason] of Object.entries(error.details)) {
    if (typeof reason !== "string") continue;
    const input = form.querySelector(`[name="${CSS.escape(field)}"]`);
    if (!input) {
      place.append(h("p", { class: "error" }, `${field}: ${reason}`));
      continue;
    }
    const note = h("span", { class: "field-error", id: `${input.id || field}-error` }, reason);
    input.setAttribute("aria-invalid", "true");
    input.setAttribute("aria-describedby", note.id);
    input.closest("label")?.append(note) ?? input.after(note);
  }
}

/**
 * What each button's last write that failed sent: its body and `Idempotency-Key`, so that the
 * same body sent again is the same submission retried (an answer lost on the way, then a second
 * click, records it once) and a changed body, or the next after a success, a new one.
 */
const attempts = new WeakMap();

/** The `Idempotency-Key` function of writes made from `button` (see `attempts`). */
function keyFor(button) {
  return (body) => {
    const text = JSON.stringify(body ?? null);
    let attempt = attempts.get(button);
    if (!attempt || attempt.text !== text) {
      attempt = { text, key: crypto.randomUUID() };
      attempts.set(button, attempt);
    }
    return attempt.key;
  };
}

/**
 * Runs `work` with `button` showing it is busy; the error goes to `place`. `work` gets the key
 * function of the button's writes: `call(…, { body, idempotencyKey: key(body) })`.
 */
export async function busy(button, place, work, form = null) {
  button.disabled = true;
  fill(place, progress());
  try {
    const result = await work(keyFor(button));
    attempts.delete(button);
    fill(place);
    form?.querySelectorAll(".field-error").forEach((node) => node.remove());
    return result;
  } catch (error) {
    showError(place, error, form);
    return undefined;
  } finally {
    button.disabled = false;
  }
}

/**
 * Sends what `request(values, key)` asks when `form` is submitted, `button` busy meanwhile and
 * the server's errors in `place` (each field's beside it), then calls `done` with the answer.
 * `key(body)` is the submission's `Idempotency-Key`, the same on every retry of it (`busy`).
 */
export function submits(form, button, place, request, done) {
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    const answer = await busy(button, place, (key) => request(values(form), key), form);
    if (answer !== undefined) await done(answer);
  });
}

/** `draft` without what `original` already holds: a change sends only what changed. */
export function changedFrom(draft, original) {
  return Object.fromEntries(Object.entries(draft).filter(([name, value]) => original[name] !== value));
}

/** A choice of yes or no, for a select whose value is read back with `draft[name] === "true"`. */
export function yesNo() { return [["true", t("yes")], ["false", t("no")]]; }

/** A figure with its label, as the totals and an order's amounts show. */
export function figure(label, value, id = null) {
  return h("div", { id }, h("span", { class: "muted" }, label), h("strong", {}, value));
}

/** A labelled input for a form of fields. */
export function field(name, label, attributes = {}) {
  const id = attributes.id ?? `field-${name}`;
  const input = attributes.options
    ? h("select", { id, name }, attributes.options.map(([value, text]) =>
      h("option", { value, selected: value === attributes.value }, text)))
    : attributes.multiline
      ? h("textarea", { id, name, ...without(attributes, ["multiline", "value"]) }, attributes.value ?? "")
      : h("input", { id, name, ...without(attributes, ["options"]) });
  return h("label", { for: id }, h("span", {}, label), input);
}

function without(object, names) {
  return Object.fromEntries(Object.entries(object).filter(([name]) => !names.includes(name)));
}

/** The form's values by name, empty ones left out; numbers where the input is a number. Rows of an editor are its own. */
export function values(form) {
  const result = {};
  for (const input of form.querySelectorAll("input, select, textarea")) {
    if (!input.name || input.value === "" || input.closest("[data-path]")) continue;
    if (input.type === "checkbox") result[input.name] = input.checked;
    else result[input.name] = input.type === "number" ? Number(input.value) : input.value;
  }
  return result;
}

/** A modal dialog with a title; answers the dialog and its body, removed from the page on close. */
export function dialog(title) {
  const body = h("div", { class: "dialog-body" });
  const box = h("dialog", { "aria-labelledby": "dialog-title" },
    h("div", { class: "dialog-head" }, h("h2", { id: "dialog-title" }, title),
      h("button", { type: "button", onclick: () => box.close(), "aria-label": t("close") }, "×")),
    body);
  box.addEventListener("close", () => box.remove());
  document.getElementById("main").append(box);
  box.showModal();
  return { box, body };
}

export function toast(text) {
  const place = document.getElementById("toast");
  place.textContent = text;
  setTimeout(() => { if (place.textContent === text) place.textContent = ""; }, 4000);
}

/** A table of `rows`, each column `[heading, cell(row), numeric?]`. */
export function table(columns, rows, caption) {
  return h("table", {},
    caption ? h("caption", { class: "muted" }, caption) : null,
    h("thead", {}, h("tr", {}, columns.map(([heading, , numeric]) => h("th", { scope: "col", class: numeric ? "number" : null }, heading)))),
    h("tbody", {}, rows.map((row) => h("tr", {}, columns.map(([, cell, numeric]) => h("td", { class: numeric ? "number" : null }, cell(row)))))));
}

/**
 * An editable list: a row of inputs per item, rows added and removed. Each input is named by its
 * path in the request (`opening_hours[1].close`), so that the server's reason for a field shows
 * beside it. `columns`: `{ key, label, type, options, show(value), read(text) }`; `blank()` makes
 * a new item. `read()` answers the items as the request wants them (an item's `id` kept).
 */
export function rowsEditor(path, columns, items, blank) {
  const place = h("div", { "data-path": path });
  let rows = items.map((item) => ({ ...item }));

  function current() {
    return [...place.querySelectorAll("tbody tr")].map((row, index) => {
      const item = rows[index]?.id ? { id: rows[index].id } : {};
      for (const column of columns) {
        const input = row.querySelector(`[data-key="${column.key}"]`);
        const text = input.value.trim();
        item[column.key] = column.read ? column.read(text) : text;
      }
      return item;
    });
  }

  function render() {
    fill(place,
      h("table", { class: "rows" },
        h("thead", {}, h("tr", {}, columns.map((column) => h("th", { scope: "col" }, column.label)), h("th", {}, ""))),
        h("tbody", {}, rows.map((item, index) => h("tr", {},
          columns.map((column) => {
            const attributes = {
              name: `${path}[${index}].${column.key}`, "data-key": column.key, "aria-label": `${column.label} ${index + 1}`,
              type: column.type ?? "text",
            };
            const value = column.show ? column.show(item[column.key]) : item[column.key] ?? "";
            const input = column.options
              ? h("select", attributes, column.options.map(([option, text]) => h("option", { value: option, selected: option === value }, text)))
              : h("input", { ...attributes, value: String(value) });
            return h("td", {}, input);
          }),
          h("td", {}, h("button", {
            type: "button", class: "danger", "aria-label": `${t("remove")} ${index + 1}`,
            onclick: () => { rows = current(); rows.splice(index, 1); render(); },
          }, "×")))))),
      h("button", { type: "button", onclick: () => { rows = current(); rows.push(blank()); render(); } }, t("add_row")));
  }

  render();
  return { element: place, read: current };
}

/**
 * A list read a page at a time with the server's cursors: `render(rows)` draws the rows read so
 * far, and "More" (`#<place id>-more`) reads the next page while there is one, under how many of
 * the list's whole (the first page's `total`, asked with `count=true`) are shown.
 * `parameters` are the list's filters. Answers when the first page is shown (or its error).
 */
export async function pagedTable(place, path, render, parameters = {}, pageSize = 50) {
  const rows = [];
  const status = h("div");
  let total = null;
  async function more(cursor, button) {
    const count = cursor ? undefined : true;
    const load = () => call("GET", path + query({ ...parameters, limit: pageSize, cursor, count }));
    const page = button ? await busy(button, status, load) : await load();
    if (!page) return;
    rows.push(...page.data);
    if (!cursor && typeof page.total === "number") {
      total = (page.total_estimated ? `${page.total.toLocaleString(language())}+` : page.total.toLocaleString(language()));
    }
    fill(place, rows.length ? render(rows) : h("p", { class: "muted" }, t("none_yet")), status,
      page.next_cursor && total ? h("p", { class: "muted" }, t("shown_of", [rows.length.toLocaleString(language()), total])) : null,
      page.next_cursor ? h("button", {
        type: "button", class: "more", id: place.id ? `${place.id}-more` : null,
        onclick: (event) => more(page.next_cursor, event.currentTarget),
      }, t("more")) : null);
  }
  fill(place, progress());
  try {
    await more(null, null);
  } catch (error) {
    showError(place, error);
  }
}
