// grapevine explore: the page's wiring. Pick a guild, start from a member, an entity, a channel or a
// search, click a node for its properties and provenance, double-click it (or "Expand") for its
// neighbours, move the time control, step through a history, run an operator query.

import { ApiError, get } from "./api.js";
import { Canvas } from "./canvas.js";
import { caption, nodeColour } from "./grass.js";
import { counted, el } from "./dom.js";
import { HistoryView } from "./history.js";
import { renderLegend } from "./legend.js";
import { GROUP_TITLES, Panel } from "./panel.js";
import { QueryRunner } from "./queries.js";
import { renderStarts } from "./starts.js";
import { renderTable } from "./table.js";
import { TimeControl } from "./timectl.js";

const $ = (id) => document.getElementById(id);
const state = { guild: "", selected: null, around: null, searchSeq: 0 };
let canvas;
let rules;

function nodeCaption(node) {
  const labels = node.labels || node._labels || [];
  const props = node.props || node;
  return caption(rules, "node", labels, props);
}

/** A label as a small coloured tag, in the colour GraSS gives it. */
function chip(label) {
  const tag = el("span", { class: "chip", text: label });
  tag.style.backgroundColor = nodeColour(rules, [label]);
  return tag;
}

function notice(text, isError = false) {
  const line = $("notice");
  line.textContent = text;
  line.className = isError ? "error" : "";
}

function showCounts(counts) {
  $("status").textContent = `${counted(counts.nodes, "node")}, ${counted(counts.edges, "relationship")} shown`
    + (counts.hidden ? `; ${counts.hidden} hidden by the time control` : "");
}

/** A node is gone from the store (forgotten, deleted): take it off the canvas and say so. */
function gone(id, error) {
  canvas.remove(id);
  state.selected = null;
  panel.message(`${error.message}. It is no longer shown.`);
}

async function around(data) {
  return get("around", { guild_id: state.guild, label: data.label, key: data.key });
}

async function select(id) {
  const node = canvas.node(id);
  if (!node) return;
  canvas.cy.elements().unselect();
  node.select();
  state.selected = id;
  state.around = null;
  const data = node.data();
  panel.showNode(data, null);
  try {
    const found = await around(data);
    if (state.selected !== id) return;
    state.around = found;
    node.data(canvas.nodeData(found.node)); // the store's properties as they are now
    panel.showNode(node.data(), found);
  } catch (error) {
    if (error instanceof ApiError && error.status === 404) gone(id, error);
    else panel.message(error.message);
  }
}

/** Put a node's neighbours on the canvas: one group (by name) or all of them. */
async function expand(id, groupName = null) {
  const node = canvas.node(id);
  if (!node) return;
  try {
    const found = state.selected === id && state.around ? state.around : await around(node.data());
    const groups = found.groups.filter((g) => groupName === null || g.name === groupName);
    const wanted = new Set([found.node.id, ...groups.flatMap((g) => g.nodes), ...groups.flatMap((g) => g.edges)]);
    canvas.add({ nodes: found.elements.nodes.filter((n) => wanted.has(n.id)),
                 edges: found.elements.edges.filter((e) => wanted.has(e.id)) }, id);
    const shown = groups.filter((g) => g.shown).map((g) => `${g.shown} ${GROUP_TITLES[g.name] || g.name}`);
    notice(`${nodeCaption(found.node) || found.node.label}: ${shown.join(", ") || "no neighbours in this guild"}`);
  } catch (error) {
    if (error instanceof ApiError && error.status === 404) gone(id, error);
    else notice(error.message, true);
  }
}

async function open(node) {
  canvas.add({ nodes: [node], edges: [] });
  await expand(node.id);
  await select(node.id);
}

async function showHistory() {
  const node = state.selected && canvas.node(state.selected);
  if (!node) return;
  const data = node.data();
  try {
    const found = await get("history", { guild_id: state.guild, label: data.label, key: data.key });
    canvas.add(found.elements, data.id);
    historyView.show(nodeCaption(found.node), found.events, $("asof-axis").value);
  } catch (error) {
    if (error instanceof ApiError && error.status === 404) gone(data.id, error);
    else notice(error.message, true);
  }
}

function step(event) {
  canvas.cy.nodes().removeClass("step");
  timeControl.set(Date.parse(event.at.replace(/(\.\d{3})\d+/, "$1")), event.axis);
  const node = canvas.node(event.node);
  if (node) node.addClass("step");
}

async function search() {
  const seq = ++state.searchSeq;
  try {
    const found = await get("start", { guild_id: state.guild, q: $("search").value });
    if (seq === state.searchSeq) renderStarts($("results"), found, nodeCaption, open);
    return found;
  } catch (error) {
    notice(error.message, true);
  }
}

async function chooseGuild() {
  state.guild = $("guild").value;
  canvas.clear();
  panel.clear();
  historyView.hide();
  const bounds = await get("bounds", { guild_id: state.guild });
  timeControl.setBounds(bounds);
  const found = await search();
  const first = found && (found.members || [])[0];
  if (first && !$("search").value) await open(first); // the page opens on someone, not on an empty canvas
}

function showResult(result, view) {
  if (view === "graph") {
    canvas.add(result.elements);
    $("table-drawer").hidden = true;
  } else {
    $("table-title").textContent = `${result.name}: ${counted(result.rows.length, "row")}`;
    renderTable($("table"), result, nodeCaption);
    $("table-drawer").hidden = false;
  }
}

const panel = new Panel($("panel"), {
  expand: (group) => state.selected && expand(state.selected, group),
  history: () => showHistory(),
  select: (id, elements) => { canvas.add(elements, state.selected); select(id); },
  caption: nodeCaption,
  chip,
});
const historyView = new HistoryView($("history"), step, () => canvas.cy.nodes().removeClass("step"));
const timeControl = new TimeControl((time, axis) => {
  if (canvas) canvas.setTime(time, axis);
  historyView.setAxis(axis);
});

async function main() {
  rules = await get("style");
  canvas = new Canvas($("cy"), rules, showCounts);
  renderLegend($("legend"), rules);
  canvas.cy.on("tap", "node", (event) => select(event.target.id()));
  canvas.cy.on("dbltap", "node", (event) => expand(event.target.id()));
  canvas.cy.on("tap", "edge", (event) => {
    const edge = event.target;
    state.selected = null;
    panel.showEdge(edge.data(), edge.source().data("caption"), edge.target().data("caption"));
  });
  canvas.cy.on("tap", (event) => { if (event.target === canvas.cy) { state.selected = null; panel.clear(); } });
  const guilds = await get("guilds");
  for (const g of guilds) {
    const option = document.createElement("option");
    option.value = g.id;
    option.textContent = `${g.name} (${counted(g.facts, "fact")})`;
    $("guild").append(option);
  }
  const busiest = guilds.reduce((best, g) => (best === null || g.facts > best.facts ? g : best), null);
  if (busiest) $("guild").value = busiest.id; // the guild with the most facts, not the first by name
  $("guild").addEventListener("change", chooseGuild);
  let timer;
  $("search").addEventListener("input", () => { clearTimeout(timer); timer = setTimeout(search, 250); });
  $("fit").addEventListener("click", () => canvas.cy.fit(undefined, 40));
  $("relayout").addEventListener("click", () => canvas.layout());
  $("clear").addEventListener("click", () => { canvas.clear(); panel.clear(); historyView.hide(); });
  $("table-close").addEventListener("click", () => { $("table-drawer").hidden = true; });
  await new QueryRunner($("queries"), { guild: () => state.guild, result: showResult }).load();
  if (guilds.length) await chooseGuild();
  else notice("The graph holds no guild yet: import an export (grapevine import) or run the bot.");
  document.body.dataset.ready = "true";
  globalThis.grapevineExplore = { cy: canvas.cy, state, canvas };
}

main().catch((error) => notice(`the page could not start: ${error.message}`, true));
