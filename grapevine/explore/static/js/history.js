// The history stepper: the change events of one fact's supersession chain or one member's facts
// (from /api/history), on the time axis chosen. Each step moves the time control to the event's
// moment, so the canvas shows the graph as it was right then, and marks the fact that changed.

import { counted, el, fill } from "./dom.js";
import { parseTime } from "./time.js";

const KINDS = { holds: "starts to hold", ends: "stops holding", expires: "expires", recorded: "recorded", closed: "closed" };

export class HistoryView {
  /** onStep(event) moves the time control; onClose() hides the view. */
  constructor(root, onStep, onClose) {
    this.root = root;
    this.onStep = onStep;
    this.onClose = onClose;
    this.events = [];
    this.index = -1;
    this.axis = "valid";
    this.root.hidden = true;
  }

  show(title, events, axis) {
    this.title = title;
    this.all = events;
    this.axis = axis;
    this.root.hidden = false;
    this.select(-1);
  }

  hide() {
    this.root.hidden = true;
    this.all = [];
  }

  setAxis(axis) {
    if (this.root.hidden || axis === this.axis) return;
    this.axis = axis;
    this.select(-1);
  }

  step(delta) {
    if (!this.events.length) return;
    this.select(Math.min(Math.max(this.index + delta, 0), this.events.length - 1), true);
  }

  select(index, move = false) {
    this.events = this.all.filter((e) => e.axis === this.axis);
    this.index = index;
    this.render();
    if (move && index >= 0) this.onStep(this.events[index]);
  }

  render() {
    const axisName = this.axis === "valid" ? "valid time" : "record time";
    const items = this.events.map((event, i) => el("li", { class: i === this.index ? "current" : null,
      "aria-current": i === this.index ? "step" : null },
      el("button", { class: "link", onclick: () => this.select(i, true) },
        el("time", { text: new Date(parseTime(event.at)).toISOString().slice(0, 16).replace("T", " ") }),
        ` ${KINDS[event.kind] || event.kind}: `, el("q", { text: event.text }),
        event.detail ? el("span", { class: "details", text: ` (${event.detail})` }) : null)));
    const position = this.index >= 0 ? `step ${this.index + 1} of ${this.events.length}` : counted(this.events.length, "change");
    fill(this.root,
      el("h3", {}, "History: ", el("span", { id: "history-title", text: this.title })),
      el("p", { class: "hint", text: `${axisName}: each step shows the graph as of that change` }),
      el("div", { class: "actions" },
        el("button", { id: "history-prev", text: "◀ earlier", onclick: () => this.step(-1) }),
        el("span", { id: "history-position", text: position }),
        el("button", { id: "history-next", text: "later ▶", onclick: () => this.step(1) }),
        el("button", { class: "small", text: "close", onclick: () => { this.hide(); this.onClose(); } })),
      el("ol", { id: "history-events" }, items));
  }
}
