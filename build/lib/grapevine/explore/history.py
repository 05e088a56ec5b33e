"""The change events of a set of facts, in time order: what the explorer's history stepper walks.

A fact changes the picture on two time axes (bi-temporal, as in graphiti's EntityEdge):

- valid time, what held in the world: it starts to hold at `valid_at`, stops at `invalid_at` (set
  when a newer fact superseded it) or at `expires_at` (a transient fact);
- record time, what grapevine knew: it was recorded at `created_at` and closed at `expired_at`
  (superseded, retired past its expiry, or over the per-member cap).

Each event names the fact, the axis, what happened, and what replaced the fact when a
SUPERSEDES relationship among the given elements says so. The page moves its time control to an
event's moment on that event's axis, so each step shows the graph as it was right then.
"""

from __future__ import annotations

import re
from datetime import UTC, datetime
from typing import Any

_FRACTION = re.compile(r"(\.\d{1,6})\d*")
# Within one moment: a fact starts before another's end is shown, as supersession hands over.
_KIND_ORDER = {"recorded": 0, "holds": 1, "ends": 2, "expires": 3, "closed": 4}


def parse_time(value: str) -> datetime:
    """An ISO-8601 time as the driver writes it (nanoseconds allowed), timezone-aware (UTC if none)."""
    text = _FRACTION.sub(r"\1", value.replace("Z", "+00:00"), count=1)
    parsed = datetime.fromisoformat(text)
    return parsed if parsed.tzinfo else parsed.replace(tzinfo=UTC)


def events_of(graph: dict[str, list[dict[str, Any]]]) -> list[dict[str, Any]]:
    """Every change of every fact in `graph` (nodes and edges as `Elements.as_json` gives them)."""
    facts = {n["id"]: n for n in graph["nodes"] if n["label"] == "Fact"}
    replaced_by = {
        e["target"]: facts[e["source"]]["props"].get("text", "")
        for e in graph["edges"]
        if e["type"] == "SUPERSEDES" and e["source"] in facts
    }
    events: list[dict[str, Any]] = []
    for node_id, fact in facts.items():
        props = fact["props"]
        newer = replaced_by.get(node_id)

        def add(field: str, axis: str, kind: str, detail: str = "") -> None:
            if props.get(field):
                events.append(
                    {
                        "at": props[field],
                        "axis": axis,
                        "kind": kind,
                        "node": node_id,
                        "text": props.get("text", ""),
                        "detail": detail,
                    }
                )

        add("valid_at", "valid", "holds")
        add("invalid_at", "valid", "ends", f"replaced by: {newer}" if newer else "")
        add("expires_at", "valid", "expires")
        add("created_at", "recorded", "recorded")
        add("expired_at", "recorded", "closed", f"superseded by: {newer}" if newer else "retired")
    events.sort(key=lambda e: (parse_time(e["at"]), e["axis"], _KIND_ORDER[e["kind"]], e["text"], e["node"]))
    return events
