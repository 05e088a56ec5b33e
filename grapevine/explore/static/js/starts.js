// Where to start: the guild's members, entities and channels whose name contains the search
// text (all of them, by name, while it is empty) and the facts matching its words.

import { el, fill } from "./dom.js";

const SECTIONS = [["members", "Members"], ["entities", "Entities"], ["channels", "Channels"], ["facts", "Facts"]];

/** Show `found` (as /api/start answers) in `root`; open(node) puts one on the canvas. */
export function renderStarts(root, found, caption, open) {
  const sections = SECTIONS.filter(([kind]) => (found[kind] || []).length).map(([kind, title]) =>
    el("section", { class: "starts", "data-kind": kind },
      el("h3", { text: `${title} (${found[kind].length})` }),
      el("ul", {}, found[kind].map((node) => el("li", {},
        el("button", { class: "link start", title: `open this ${node.label}`, onclick: () => open(node) },
          caption(node) || node.key || "(no name)"))))));
  fill(root, sections.length ? sections : el("p", { class: "hint", text: "nothing in this guild matches" }));
}
