// Query results as a table, in the drawer under the canvas. Nodes show their label and caption,
// paths their length, other maps and lists as JSON: always as text, never as HTML.

import { el, fill, show } from "./dom.js";

function cell(value, caption) {
  if (value && typeof value === "object" && !Array.isArray(value)) {
    if ("_labels" in value) return `(${value._labels.join(":")}) ${caption(value)}`;
    if ("_type" in value) return `[:${value._type}]`;
    if ("nodes" in value && "relationships" in value) return `path of ${value.nodes.length} nodes`;
  }
  if (Array.isArray(value) && value.some((v) => v && typeof v === "object")) {
    return value.map((v) => cell(v, caption)).join("; ");
  }
  return show(value);
}

/** Fill `table` with `result.rows` under `result.columns`; `caption(rawNode)` names nodes. */
export function renderTable(table, result, caption) {
  fill(table,
    el("thead", {}, el("tr", {}, result.columns.map((c) => el("th", { text: c })))),
    el("tbody", {}, result.rows.map((row) => el("tr", {}, result.columns.map((c) => el("td", { text: cell(row[c], caption) }))))));
}
