// The legend: every node label and relationship type the GraSS file styles, in its colour and
// with its caption, and the marks the time control adds.

import { el, fill } from "./dom.js";
import { legendEntries } from "./grass.js";

const NOTES = {
  Closed: "closed fact: superseded or retired (small, grey)",
};

export function renderLegend(root, rules) {
  const entries = legendEntries(rules);
  const row = (entry) => {
    const swatch = el("span", { class: `swatch ${entry.kind}` });
    swatch.style.backgroundColor = entry.colour; // CSSOM, allowed by the page's CSP
    const shown = entry.caption && entry.caption !== "<type>" ? entry.caption : "";
    const what = NOTES[entry.name] || shown;
    return el("li", { "data-legend": entry.name }, swatch, el("b", { text: entry.name }), what ? ` ${what}` : "");
  };
  const dashed = el("span", { class: "swatch node dashed" });
  fill(root,
    el("summary", { text: "Legend (styles of docker/grapevine.grass)" }),
    el("ul", {}, entries.filter((e) => e.kind === "node").map(row),
      el("li", { "data-legend": "closed-later" }, dashed, el("b", { text: "dashed" }), " held at the chosen time, closed since")),
    el("ul", { class: "edges" }, entries.filter((e) => e.kind === "edge").map(row)));
}
