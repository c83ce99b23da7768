// A bar chart drawn as SVG: no library, nothing inline the Content-Security-Policy would refuse.
import { h } from "./ui.js";

const NS = "http://www.w3.org/2000/svg";

function svg(tag, attributes = {}, text = null) {
  const element = document.createElementNS(NS, tag);
  for (const [name, value] of Object.entries(attributes)) element.setAttribute(name, String(value));
  if (text !== null) element.textContent = text;
  return element;
}

/**
 * Bars of `points` (`[{ label, value }]`), labelled with `format(value)`; the table beside it
 * holds the same figures for a screen reader.
 */
export function barChart(id, title, points, format) {
  const width = 560, height = 220, left = 70, bottom = 40, top = 10;
  const highest = Math.max(1, ...points.map((point) => Math.abs(point.value)));
  const step = points.length ? (width - left) / points.length : 0;
  const chart = svg("svg", { viewBox: `0 0 ${width} ${height}`, role: "img", "aria-labelledby": `${id}-title` });
  chart.append(svg("title", { id: `${id}-title` }, title));
  chart.append(svg("line", { class: "axis", x1: left, y1: height - bottom, x2: width, y2: height - bottom }));
  chart.append(svg("text", { x: left - 6, y: top + 10, "text-anchor": "end" }, format(highest)));
  points.forEach((point, index) => {
    const barHeight = (Math.abs(point.value) / highest) * (height - bottom - top);
    const x = left + index * step + step * 0.15;
    chart.append(svg("rect", {
      class: point.value < 0 ? "bar-rect negative" : "bar-rect", x, y: height - bottom - barHeight,
      width: Math.max(1, step * 0.7), height: barHeight, "data-value": point.value,
    }));
    if (points.length <= 16 || index % Math.ceil(points.length / 16) === 0) {
      chart.append(svg("text", { x: x + step * 0.35, y: height - bottom + 14, "text-anchor": "middle" }, point.label));
    }
  });
  return h("figure", { class: "chart panel", id },
    h("figcaption", {}, h("strong", {}, title)), chart,
    h("details", {}, h("summary", {}, title),
      h("table", {}, h("tbody", {}, points.map((point) => h("tr", {}, h("th", { scope: "row" }, point.label), h("td", { class: "number" }, format(point.value))))))));
}
