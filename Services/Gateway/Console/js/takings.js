// Takings: the statistics of a chosen range as charts, the payments (refunded from here), the
// receipts (an 80 mm print view) and the shifts with their drawer differences.
import { call, query } from "./api.js";
import { t } from "./i18n.js";
import { barChart } from "./chart.js";
import {
  busy, dialog, field, figure, fill, h, majorUnits, minorUnits, money, pagedTable, progress, showError, submits, table, time, toast, values,
} from "./ui.js";

const REFUNDERS = ["admin", "owner", "manager"];

/** The day `date` falls on in the store's time zone, as `YYYY-MM-DD` (the statistics' days are the store's). */
function day(date, timeZone) {
  return new Intl.DateTimeFormat("en-CA", { timeZone, year: "numeric", month: "2-digit", day: "2-digit" }).format(date);
}

export async function show(main, context) {
  const store = context.store;
  if (!store) {
    fill(main, h("h1", {}, t("screen_takings")), h("p", { class: "muted" }, t("no_store")));
    return;
  }
  const currency = store.currency;
  const today = new Date();
  const range = h("form", { class: "toolbar", id: "stats-range" },
    field("from", t("from"), { type: "date", value: day(new Date(today.getTime() - 6 * 86400000), store.timezone) }),
    field("to", t("to"), { type: "date", value: day(today, store.timezone) }),
    h("button", { type: "submit", class: "primary" }, t("show")));
  const stats = h("div", { id: "stats" });
  const payments = h("div", { id: "payments" });
  const receipts = h("div", { id: "receipts" });
  const shifts = h("div", { id: "shifts" });
  fill(main, h("h1", {}, t("screen_takings"), ` — ${store.name}`),
    h("h2", {}, t("statistics")), range, stats,
    h("h2", {}, t("payments")), payments,
    h("h2", {}, t("receipts")), receipts,
    h("h2", {}, t("shifts")), shifts);

  async function loadStats() {
    fill(stats, progress());
    try {
      const figures = await call("GET", `/v1/stores/${store.id}/stats${query(values(range))}`);
      const amount = (value) => money(value, currency);
      fill(stats,
        h("div", { class: "figures" },
          [["revenue", figures.totals.revenue, amount], ["sales", figures.totals.sales_count, String],
            ["average_ticket", figures.totals.average_ticket, amount], ["tips", figures.totals.tips, amount],
            ["refunds", figures.totals.refunds, amount]].map(([name, value, format]) =>
            figure(t(name), format(value), `total-${name}`))),
        h("div", { class: "charts" },
          barChart("chart-days", t("revenue_per_day"), figures.days.map((entry) => ({ label: entry.date.slice(5), value: entry.figures.revenue })), amount),
          barChart("chart-methods", t("revenue_by_method"), figures.methods.map((entry) => ({ label: t(`method_${entry.method}`), value: entry.figures.revenue })), amount),
          barChart("chart-staff", t("revenue_by_staff"), figures.staff.map((entry) => ({ label: entry.name ?? entry.staff_id.slice(0, 8), value: entry.figures.revenue })), amount),
          barChart("chart-products", t("top_products"), figures.top_products.map((entry) => ({ label: entry.name, value: entry.revenue })), amount)));
    } catch (error) {
      showError(stats, error, range);
    }
  }

  const paymentsTable = (rows) => table([
    [t("when"), (payment) => time(payment.completed_at ?? payment.created_at)],
    [t("amount"), (payment) => money(payment.amount, payment.currency), true],
    [t("refunded"), (payment) => payment.refunded_amount ? money(payment.refunded_amount, payment.currency) : "", true],
    [t("method"), (payment) => t(`method_${payment.method}`)],
    [t("status"), (payment) => h("span", { class: `badge ${payment.status}` }, t(`payment_${payment.status}`))],
    ["", (payment) => REFUNDERS.includes(context.user.role)
      ? h("button", {
        type: "button", id: `refund-${payment.id}`,
        onclick: () => refund(payment, () => { loadStats(); pagedTable(payments, `/v1/stores/${store.id}/payments`, paymentsTable); }),
      }, t("refund")) : ""],
  ], rows);
  range.addEventListener("submit", (event) => { event.preventDefault(); loadStats(); });
  await Promise.all([loadStats(), pagedTable(payments, `/v1/stores/${store.id}/payments`, paymentsTable),
  pagedTable(receipts, `/v1/stores/${store.id}/receipts`, (rows) => table([
    [t("number"), (receipt) => `#${receipt.number}`],
    [t("when"), (receipt) => time(receipt.issued_at)],
    [t("kind"), (receipt) => t(`receipt_${receipt.kind}`)],
    [t("total"), (receipt) => money(receipt.total, receipt.currency), true],
    ["", (receipt) => h("button", { type: "button", onclick: () => printView(receipt) }, t("print"))],
  ], rows)),
  pagedTable(shifts, `/v1/stores/${store.id}/shifts`, (rows) => table([
    [t("staff_member"), (shift) => shift.staff_name ?? ""],
    [t("clocked_in"), (shift) => time(shift.clocked_in_at)],
    [t("clocked_out"), (shift) => time(shift.clocked_out_at)],
    [t("expected_cash"), (shift) => money(shift.expected_cash, currency), true],
    [t("counted_cash"), (shift) => money(shift.counted_cash, currency), true],
    [t("difference"), (shift) => money(shift.difference, currency), true],
  ], rows))]);
}

/** A list read a page at a time, with a button for the next page. */
function refund(payment, done) {
  const { box, body } = dialog(`${t("refund")} — ${money(payment.amount, payment.currency)}`);
  const place = h("div");
  const save = h("button", { type: "submit", class: "danger", id: "confirm-refund" }, t("refund"));
  const left = payment.amount - payment.refunded_amount;
  const form = h("form", { class: "fields", id: "refund-form" },
    field("amount", t("amount"), { inputmode: "decimal", value: majorUnits(left, payment.currency) }),
    field("reason", t("reason"), { required: true }),
    h("div", { class: "actions" }, save), place);
  submits(form, save, place, (draft, key) => {
    draft.amount = minorUnits(draft.amount, payment.currency);
    return call("POST", `/v1/payments/${payment.id}/refunds`, { body: draft, idempotencyKey: key(draft) });
  }, (made) => {
    toast(t("refunded_amount", [money(made.amount, made.currency)]));
    box.close();
    done();
  });
  fill(body, form);
}

async function printView(receipt) {
  const { body } = dialog(`${t("receipt")} #${receipt.number}`);
  fill(body, progress());
  try {
    const text = await call("GET", `/v1/receipts/${receipt.id}/text`, { text: true });
    fill(body, h("pre", { class: "receipt", id: "receipt-text" }, text),
      h("button", { type: "button", class: "primary", onclick: () => window.print() }, t("print")));
  } catch (error) {
    showError(body, error);
  }
}
