// The time control's inputs: on/off, the axis, a slider over the guild's time span and a date
// field (UTC), kept in step. It reports (ms or null, axis) to onChange.

import { fromInput, parseTime, toInput } from "./time.js";

const STEPS = 1000;

export class TimeControl {
  constructor(onChange) {
    this.on = document.getElementById("asof-on");
    this.axis = document.getElementById("asof-axis");
    this.range = document.getElementById("asof-range");
    this.date = document.getElementById("asof-date");
    this.shown = document.getElementById("asof-shown");
    this.onChange = onChange;
    this.earliest = Date.now() - 86400000;
    this.latest = Date.now();
    this.range.max = String(STEPS);
    this.on.addEventListener("change", () => this.report());
    this.axis.addEventListener("change", () => {
      this.span();
      this.report();
    });
    this.range.addEventListener("input", () => {
      this.on.checked = true;
      this.date.value = toInput(this.fromRange());
      this.report();
    });
    this.date.addEventListener("change", () => {
      if (fromInput(this.date.value) === null) return;
      this.on.checked = true;
      this.syncRange();
      this.report();
    });
    this.date.value = toInput(this.latest);
    this.syncRange();
  }

  /** The guild's time spans, per axis ({valid: {earliest, latest}, recorded: {...}}, ISO or null). */
  setBounds(bounds) {
    this.bounds = bounds;
    this.span();
  }

  /** Stretch the slider over the chosen axis's span, a day either side (the last day stays reachable). */
  span() {
    const now = Date.now();
    const day = 86400000;
    const bounds = (this.bounds || {})[this.axis.value] || {};
    this.earliest = (parseTime(bounds.earliest) ?? now - day) - day;
    this.latest = (parseTime(bounds.latest) ?? now) + day;
    if (!this.on.checked) this.date.value = toInput(this.latest);
    this.syncRange();
  }

  fromRange() {
    return this.earliest + (this.latest - this.earliest) * (Number(this.range.value) / STEPS);
  }

  syncRange() {
    const t = fromInput(this.date.value) ?? this.latest;
    const share = this.latest > this.earliest ? (t - this.earliest) / (this.latest - this.earliest) : 1;
    this.range.value = String(Math.round(Math.min(Math.max(share, 0), 1) * STEPS));
  }

  /** Move to `ms` on `axis` and switch the control on (a history step). */
  set(ms, axis) {
    this.on.checked = true;
    if (this.axis.value !== axis) {
      this.axis.value = axis;
      this.span();
    }
    this.date.value = new Date(ms).toISOString().slice(0, 19);
    this.exact = ms;
    this.syncRange();
    this.report(true);
  }

  time() {
    if (!this.on.checked) return null;
    return this.exact ?? fromInput(this.date.value);
  }

  report(keepExact = false) {
    if (!keepExact) this.exact = null;
    const t = this.time();
    this.shown.textContent = t === null
      ? "off: the graph as stored now (closed facts small and grey)"
      : `${this.axis.value === "valid" ? "what held" : "what grapevine knew"} at ${new Date(t).toISOString().slice(0, 19).replace("T", " ")} UTC`;
    this.onChange(t, this.axis.value);
  }
}
