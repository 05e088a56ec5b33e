// The time control: the graph as of a moment, on one of the two time axes of a fact.
//
// - valid time ("what held then"): a fact holds from valid_at until invalid_at (superseded) or
//   expires_at, the rule of queries/store/facts_about_history.cypher;
// - record time ("what grapevine knew then"): from created_at until expired_at (superseded,
//   retired or capped).
// As of a moment, a fact not yet begun is hidden, one that holds is drawn open (with a dashed
// border when it is closed today), and one already ended is drawn closed, small and grey, as
// Browser draws closed facts. Messages sent, episodes started and (in record time) entities
// recorded after the moment are hidden too. Off, the graph is drawn as the store holds it today.

/** Milliseconds since the epoch of an ISO time as the driver writes it (nanoseconds allowed), or null. */
export function parseTime(text) {
  if (!text) return null;
  const ms = Date.parse(String(text).replace(/(\.\d{3})\d+/, "$1"));
  return Number.isNaN(ms) ? null : ms;
}

/** 'future', 'open' or 'closed': a fact's state at `t` (ms) on `axis` ('valid' or 'recorded'). */
export function factState(props, t, axis) {
  const at = (name) => parseTime(props[name]);
  const [start, ends] = axis === "valid"
    ? [at("valid_at"), [at("invalid_at"), at("expires_at")]]
    : [at("created_at"), [at("expired_at")]];
  if (start !== null && start > t) return "future";
  return ends.some((end) => end !== null && end <= t) ? "closed" : "open";
}

/** Whether a node other than a fact already existed at `t` on `axis`. */
export function existed(label, props, t, axis) {
  const field = { Message: "created_at", Episode: "started_at", Entity: axis === "recorded" ? "created_at" : null }[label];
  const at = field ? parseTime(props[field]) : null;
  return at === null || at <= t;
}

/** The classes of a node as of `t` (null: the time control is off, the stored labels as they are). */
export function classesAt(data, t, axis) {
  const labels = data.labels.slice();
  if (t === null) return labels;
  if (data.label === "Fact") {
    const state = factState(data.props, t, axis);
    if (state === "future") return [...labels, "asof-hidden"];
    const closedNow = labels.includes("Closed");
    const rest = labels.filter((l) => l !== "Closed");
    if (state === "closed") return [...rest, "Closed"];
    return closedNow ? [...rest, "closed-later"] : rest;
  }
  return existed(data.label, data.props, t, axis) ? labels : [...labels, "asof-hidden"];
}

/** A moment as the date input shows it: UTC, to the minute. */
export function toInput(ms) {
  return new Date(ms).toISOString().slice(0, 16);
}

/** The date input's value (read as UTC) in ms, or null. */
export function fromInput(value) {
  return value ? parseTime(`${value}Z`) : null;
}
