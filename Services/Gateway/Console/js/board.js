// The orders board: a store's orders in columns by status, kept up to date from the caller's
// notifications stream; an order opened with its lines, totals, timeline and the actions the
// server allows the caller; a new order; search and filters. A store's orders follow its
// workflow (`standard`, or `repair` for a repair shop), and the board its columns.
import { all, call, followNotifications, query } from "./api.js";
import { t } from "./i18n.js";
import { WORKFLOWS } from "./stores.js";
import { busy, dialog, field, figure, fill, h, money, progress, showError, submits, table, time, toast, values } from "./ui.js";

// Each column: its name, its statuses, and the one workflow whose orders pass through it (none:
// both). A column of the other workflow than the store's is shown only while it holds an order.
const COLUMNS = [
  ["pending", ["pending"], "standard"], ["booked_in", ["booked_in"], "repair"],
  ["accepted", ["accepted"], "standard"], ["awaiting_parts", ["awaiting_parts"], "repair"],
  ["preparing", ["preparing"], "standard"], ["in_repair", ["in_repair"], "repair"], ["ready", ["ready"]],
  ["out_for_delivery", ["out_for_delivery"], "standard"], ["done", ["delivered", "collected", "despatched"]],
  ["cancelled", ["cancelled"]],
];
const CREATORS = ["admin", "owner", "manager", "staff"];
/** How many orders a page of the board reads. */
const PAGE = 100;
const STORE_ROLES = ["owner", "manager", "staff"];

export async function show(main, context) {
  const orders = new Map();
  const stop = new AbortController();
  const store = context.store;
  const filters = h("form", { class: "toolbar", role: "search" },
    field("q", t("search"), { type: "search", id: "board-search" }),
    field("fulfillment", t("fulfillment"), { options: [["", t("any")], ["delivery", t("delivery")], ["pickup", t("pickup")]] }),
    h("button", { type: "submit" }, t("apply")),
    CREATORS.includes(context.user.role) && store
      ? h("button", { type: "button", class: "primary", id: "new-order", onclick: () => newOrder(context, upsert) }, t("new_order"))
      : null);
  const status = h("div");
  const count = h("p", { class: "muted", id: "board-count", role: "status" });
  const board = h("div", { class: "board", id: "board" });
  let olderCursor = null;
  const older = h("button", { type: "button", id: "board-more", hidden: true, onclick: (event) => loadOlder(event.currentTarget) },
    t("older_orders"));
  fill(main, h("h1", {}, t("screen_board"), store ? ` — ${store.name}` : ""), filters, status, count, board,
    h("div", { class: "toolbar" }, older));

  function render() {
    count.textContent = t("orders_shown", [orders.size]);
    const workflow = store?.workflow ?? "standard";
    fill(board, COLUMNS.map(([name, statuses, only]) => {
      const cards = [...orders.values()].filter((order) => statuses.includes(order.status))
        .sort((a, b) => b.created_at.localeCompare(a.created_at));
      if (only && only !== workflow && !cards.length) return null;
      return h("section", { class: "column", id: `column-${name}`, "aria-label": t(`status_${name}`) },
        h("h2", {}, h("span", {}, t(`status_${name}`)), h("span", { class: "muted" }, String(cards.length))),
        cards.map((order) => card(order)));
    }));
  }

  function card(order) {
    return h("button", {
      type: "button", class: order.fresh ? "card fresh" : "card", id: `order-${order.id}`,
      onclick: () => openOrder(order.id, upsert),
    },
    h("span", { class: "number" }, `#${order.number}`), " ",
    h("span", {}, [order.recipient_first_name, order.recipient_last_name].filter(Boolean).join(" ") || order.customer_name || ""),
    h("br"), h("span", { class: "muted" }, `${t(order.fulfillment)} · ${money(order.total, order.currency)}`),
    order.due_at ? h("span", { class: "muted" }, ` · ${t("due")} ${time(order.due_at)}`) : null,
    // A customer's card order not paid yet holds its lines' stock until its time to be paid runs out.
    order.pay_by ? h("span", { class: "unpaid" }, h("br"), t("awaiting_payment", [time(order.pay_by)])) : null);
  }

  function upsert(order, fresh = false) {
    if (store && order.store_id !== store.id) return;
    orders.set(order.id, { ...order, fresh });
    render();
  }

  /** The newest page of the orders the filters find; older ones a page at a time with "More". */
  function page(cursor) {
    const search = values(filters);
    return call("GET", "/v1/orders" + query({
      store_id: store?.id, q: search.q, fulfillment: search.fulfillment, sort: "-created_at", limit: PAGE, cursor,
    }));
  }

  function received(found, replacing) {
    if (replacing) orders.clear();
    for (const order of found.data) orders.set(order.id, order);
    olderCursor = found.next_cursor ?? null;
    older.hidden = !olderCursor;
    render();
  }

  /** The first page again: all anew, or `quietly` (the platform staff's polling) merged into what is shown. */
  async function load(quietly = false) {
    if (!quietly) fill(status, progress());
    try {
      const found = await page(null);
      if (quietly) {
        for (const order of found.data) orders.set(order.id, order);
        render();
      } else {
        received(found, true);
      }
      fill(status);
    } catch (error) {
      showError(status, error);
    }
  }

  async function loadOlder(button) {
    const found = await busy(button, status, () => page(olderCursor));
    if (found) received(found, false);
  }

  filters.addEventListener("submit", (event) => { event.preventDefault(); load(); });
  await load();

  if (STORE_ROLES.includes(context.user.role)) {
    // Told of every order of the store as it changes: the order is read again, as it is now.
    followNotifications(async (notification) => {
      const id = notification.data?.order_id;
      if (!id) return;
      try {
        const order = await call("GET", `/v1/orders/${id}`);
        if (orders.has(order.id) || matches(order, values(filters))) upsert(order, true);
      } catch { /* gone from the caller's view: nothing to show */ }
    }, stop.signal);
  } else {
    // The platform's staff are not told of a store's orders: the board reads them again.
    const timer = setInterval(() => load(true), 5000);
    stop.signal.addEventListener("abort", () => clearInterval(timer));
  }
  return () => stop.abort();
}

/** Whether a new order shows under the filters; a search is the server's, so while one is shown only what it found is. */
function matches(order, search) {
  return !search.q && (!search.fulfillment || order.fulfillment === search.fulfillment);
}

/** An order's timeline, oldest change first. */
/** An order's whole timeline, every page of it. */
function historyOf(id) {
  return all(`/v1/orders/${id}/history`);
}

async function openOrder(id, upsert) {
  const { box, body } = dialog(t("order"));
  fill(body, progress());
  try {
    const [order, history] = await Promise.all([call("GET", `/v1/orders/${id}`), historyOf(id)]);
    upsert(order);
    renderOrder(box, body, order, history, upsert);
  } catch (error) {
    showError(body, error);
  }
}

function renderOrder(box, body, order, history, upsert) {
  box.querySelector("#dialog-title").textContent = `${t("order")} #${order.number} · ${t(`status_${order.status}`)}`;
  const place = h("div");
  const reason = h("input", { id: "cancel-reason", name: "reason" });
  const cash = h("input", { id: "cash-collected", name: "cash_collected", type: "number", min: "0" });
  const buttons = order.allowed_actions.map((action) => h("button", {
    type: "button", class: action === "cancel" ? "danger" : "primary", id: `action-${action}`,
    onclick: async (event) => {
      const payload = { expected_version: order.version };
      if (action === "cancel") payload.reason = reason.value;
      if (action === "deliver" && cash.value !== "") payload.cash_collected = Number(cash.value);
      const changed = await busy(event.currentTarget, place,
        (key) => call("POST", `/v1/orders/${order.id}/actions/${action}`, { body: payload, idempotencyKey: key(payload) }),
        box);
      if (!changed) return;
      toast(t("done_action", [t(`action_${action}`)]));
      upsert(changed);
      renderOrder(box, body, changed, await historyOf(order.id), upsert);
    },
  }, t(`action_${action}`)));
  const address = [order.street, order.building_no, order.floor && `${t("floor")} ${order.floor}`,
    order.apartment && `${t("apartment")} ${order.apartment}`, order.city].filter(Boolean).join(", ");
  fill(body,
    h("p", {}, [order.recipient_first_name, order.recipient_last_name].filter(Boolean).join(" "),
      order.phone ? ` · ${order.phone}` : "", address ? ` · ${address}` : ""),
    order.notes ? h("p", { class: "muted" }, order.notes) : null,
    h("h3", {}, t("lines")),
    order.items?.length
      ? table([
        [t("item"), (item) => item.description],
        [t("quantity"), (item) => String(item.quantity), true],
        [t("amount"), (item) => money(item.line_gross, order.currency), true],
      ], order.items)
      : h("p", { class: "muted" }, t("no_lines")),
    h("div", { class: "figures" },
      figure(t("items_total"), money(order.items_gross, order.currency)),
      figure(t("delivery_fee"), money(order.delivery_fee, order.currency)),
      order.tip ? figure(t("tip"), money(order.tip, order.currency)) : null,
      figure(t("total"), money(order.total, order.currency)),
      figure(t("paid"), `${money(order.paid_amount, order.currency)} · ${t(`payment_${order.payment_status}`)}`)),
    h("h3", {}, t("timeline")),
    h("ol", { class: "timeline" }, history.map((entry) => h("li", {}, `${time(entry.at)} — ${t(`change_${entry.change}`)}`,
      entry.reason ? ` (${entry.reason})` : ""))),
    buttons.length ? h("h3", {}, t("actions")) : null,
    order.allowed_actions.includes("cancel") ? h("label", { for: "cancel-reason" }, t("cancel_reason"), " ", reason) : null,
    order.allowed_actions.includes("deliver") ? h("label", { for: "cash-collected" }, t("cash_collected"), " ", cash) : null,
    h("div", { class: "toolbar" }, buttons),
    place);
}

function newOrder(context, upsert) {
  const { box, body } = dialog(t("new_order"));
  const place = h("div");
  const save = h("button", { type: "submit", class: "primary", id: "create-order" }, t("create"));
  const storeWorkflow = context.store.workflow ?? "standard";
  const form = h("form", { class: "fields", id: "new-order-form" },
    field("workflow", t("workflow"), { options: WORKFLOWS.map((flow) => [flow, t(`workflow_${flow}`)]), value: storeWorkflow }),
    field("fulfillment", t("fulfillment"), { options: [["delivery", t("delivery")], ["pickup", t("pickup")]] }),
    field("recipient_first_name", t("first_name")), field("recipient_last_name", t("last_name")),
    field("phone", t("phone"), { type: "tel" }), field("street", t("street")), field("building_no", t("building")),
    field("floor", t("floor")), field("apartment", t("apartment")), field("city", t("city")),
    field("boxes_count", t("boxes"), { type: "number", min: "1", value: "1" }),
    field("customer_name", t("customer")), field("due_at", t("due"), { type: "datetime-local" }),
    field("delivery_notes", t("delivery_notes"), { multiline: true }), field("notes", t("notes"), { multiline: true }),
    h("div", { class: "actions" }, save), place);
  submits(form, save, place, (draft, key) => {
    if (draft.due_at) draft.due_at = new Date(draft.due_at).toISOString().replace(/\.\d+Z$/, "Z");
    if (context.user.role === "admin") draft.store_id = context.store.id;
    // The store's workflow is the order's unless another is chosen.
    if (draft.workflow === storeWorkflow) delete draft.workflow;
    return call("POST", "/v1/orders", { body: draft, idempotencyKey: key(draft) });
  }, (order) => {
    upsert(order, true);
    toast(t("order_created", [order.number]));
    box.close();
  });
  fill(body, form);
  form.querySelector("input").focus();
}
