// The side panel: the selected node's properties and provenance, or the selected relationship's.
//
// A node's provenance is what /api/around read about it, by kind of link (for a fact: what it is
// about, who reported it and when, the messages and episodes it came from, what it superseded and
// what superseded it). Each group can be put on the canvas, each item selected.

import { el, fill, show } from "./dom.js";

export const GROUP_TITLES = {
  facts_about: "facts about them", reported: "facts they reported", mentioned_in: "facts mentioning them",
  related: "related", episodes: "episodes", about: "about", reported_by: "reported by", mentions: "mentions",
  messages: "from messages", supersedes: "superseded (older facts)", superseded_by: "superseded by (newer facts)",
  channel: "channel", participants: "took part", facts: "facts", author: "author", episode: "episode",
  replies: "replies", guild: "guild", channels: "channels",
};
const EDGE_DETAILS = ["at", "message_id", "kind", "created_at"];
const HISTORY_LABELS = ["Fact", "User"];

export class Panel {
  /** actions: expand(groupName|null), history(), select(nodeId, elements), caption(node), chip(label) */
  constructor(root, actions) {
    this.root = root;
    this.actions = actions;
    this.clear();
  }

  clear() {
    fill(this.root, el("p", { class: "hint", id: "panel-empty",
      text: "Click a node to see its properties and where it came from; double-click it to expand its neighbours." }));
  }

  message(text) {
    fill(this.root, el("p", { class: "notice", role: "status", text }));
  }

  showNode(data, around) {
    const actions = el("div", { class: "actions" },
      el("button", { id: "expand-all", text: "Expand", onclick: () => this.actions.expand(null) }),
      HISTORY_LABELS.includes(data.label)
        ? el("button", { id: "show-history", text: "History", onclick: () => this.actions.history() }) : null);
    fill(this.root,
      el("h2", { id: "panel-title", text: data.caption || data.key || data.label }),
      el("p", { class: "labels" }, data.labels.map((l) => this.actions.chip(l))),
      actions,
      el("h3", { text: "Properties" }),
      propertyTable(data.props),
      el("h3", { text: "Provenance and neighbours" }),
      around ? this.groups(around) : el("p", { class: "hint", text: "reading…" }));
  }

  groups(around) {
    const centre = around.node.id;
    const nodes = new Map(around.elements.nodes.map((n) => [n.id, n]));
    const edges = new Map(around.elements.edges.map((e) => [e.id, e]));
    const sections = around.groups.filter((g) => g.total > 0).map((group) => {
      const items = group.edges.map((id) => edges.get(id)).filter(Boolean).map((edge) => {
        const otherId = edge.source === centre ? edge.target : edge.source;
        const other = nodes.get(otherId);
        if (!other) return null;
        const details = EDGE_DETAILS.filter((k) => edge.props[k] !== undefined && edge.props[k] !== "")
          .map((k) => `${k} ${show(edge.props[k])}`).join(" · ");
        return el("li", {},
          el("button", { class: "link", title: `select this ${other.label}`,
            onclick: () => this.actions.select(otherId, { nodes: [other], edges: [edge] }) },
          this.actions.chip(other.label), " ", this.actions.caption(other) || other.key || ""),
          details ? el("span", { class: "details", text: ` ${edge.type} · ${details}` }) : null);
      });
      const more = group.total > group.shown ? ` (${group.shown} of ${group.total})` : ` (${group.total})`;
      return el("section", { class: "group", "data-group": group.name },
        el("h4", {}, `${GROUP_TITLES[group.name] || group.name}${more} `,
          el("button", { class: "small", text: "show", onclick: () => this.actions.expand(group.name) })),
        el("ul", {}, items));
    });
    return sections.length ? sections : el("p", { class: "hint", text: "no neighbours in this guild" });
  }

  showEdge(data, source, target) {
    fill(this.root,
      el("h2", { id: "panel-title", text: data.type }),
      el("p", { class: "hint" }, `from ${source} to ${target}`),
      el("h3", { text: "Properties" }),
      propertyTable(data.props));
  }
}

function propertyTable(props) {
  const keys = Object.keys(props).sort();
  return el("table", { class: "props", id: "panel-props" },
    el("tbody", {}, keys.map((k) => el("tr", {}, el("th", { text: k }), el("td", { text: show(props[k]) })))));
}
