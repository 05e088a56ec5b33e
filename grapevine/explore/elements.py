"""Rows of a read (as `graph.reads.operator.plain` gives them) turned into graph elements for the page.

A node dict from `plain` has `_id` (the engine's element id), `_labels` and its properties; a
relationship dict has `_id`, `_type`, `_start`, `_end`; a path dict has `nodes` and
`relationships`. `Elements` walks any value, collects each node and relationship once, and keeps a
relationship only when both its ends were read too (the page cannot draw an edge to nowhere).

Each node sent to the page says which of its labels it is drawn as (`label`) and the property that
names it in this graph's own terms (`key`: a user's Discord id, a fact's uuid, an episode's key...),
which is what the page sends back to expand it: element ids are the engine's, not grapevine's.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from common.clock import now_utc
from graph.models import ended
from graph.rows import as_datetime

# The property that identifies a node of each label (the uniqueness constraints of queries/schema).
KEYS: dict[str, str] = {
    "Fact": "uuid",
    "User": "id",
    "Entity": "uuid",
    "Episode": "key",
    "Message": "id",
    "Channel": "id",
    "Guild": "id",
}
_ORDER = tuple(KEYS)  # a node with several labels (Fact and Closed) is drawn as the first of these it has


def is_node(value: Any) -> bool:
    return isinstance(value, dict) and "_labels" in value and "_id" in value


def is_relationship(value: Any) -> bool:
    return isinstance(value, dict) and "_type" in value and "_start" in value and "_end" in value


def is_path(value: Any) -> bool:
    return isinstance(value, dict) and set(value) == {"nodes", "relationships"}


def node_element(value: dict[str, Any]) -> dict[str, Any]:
    """One node as the page takes it: id, labels, the label it is drawn as, its key, its properties."""
    labels = list(value["_labels"])
    if "Fact" in labels and "Closed" not in labels and _ended(value):
        labels.append("Closed")  # its validity ended (an expiry upkeep has not retired yet): drawn as closed
    label = next((name for name in _ORDER if name in labels), next((name for name in labels if name != "Closed"), ""))
    props = {k: v for k, v in value.items() if not k.startswith("_")}
    key = props.get(KEYS[label]) if label in KEYS else None
    return {"id": value["_id"], "labels": labels, "label": label, "key": key, "props": props}


def _ended(props: dict[str, Any]) -> bool:
    try:
        invalid_at, expires_at, expired_at = (as_datetime(props.get(k)) for k in ("invalid_at", "expires_at", "expired_at"))
    except (TypeError, ValueError):
        return False  # a time the page cannot read either: drawn as the store labels it
    return ended(invalid_at, expires_at, expired_at, now_utc())


def edge_element(value: dict[str, Any]) -> dict[str, Any]:
    props = {k: v for k, v in value.items() if not k.startswith("_")}
    return {"id": value["_id"], "type": value["_type"], "source": value["_start"], "target": value["_end"], "props": props}


@dataclass
class Elements:
    """Nodes and relationships found in values, each once, in the order first seen."""

    nodes: dict[str, dict[str, Any]] = field(default_factory=dict)
    edges: dict[str, dict[str, Any]] = field(default_factory=dict)

    def add(self, value: Any) -> tuple[list[str], list[str]]:
        """Collect every node, relationship and path inside `value`; the ids found, nodes and edges."""
        found_nodes: list[str] = []
        found_edges: list[str] = []
        self._walk(value, found_nodes, found_edges)
        return found_nodes, found_edges

    def _walk(self, value: Any, found_nodes: list[str], found_edges: list[str]) -> None:
        if is_node(value):
            self.nodes.setdefault(value["_id"], node_element(value))
            found_nodes.append(value["_id"])
        elif is_relationship(value):
            self.edges.setdefault(value["_id"], edge_element(value))
            found_edges.append(value["_id"])
        elif is_path(value):
            for item in (*value["nodes"], *value["relationships"]):
                self._walk(item, found_nodes, found_edges)
        elif isinstance(value, dict):
            for item in value.values():
                self._walk(item, found_nodes, found_edges)
        elif isinstance(value, list):
            for item in value:
                self._walk(item, found_nodes, found_edges)

    def as_json(self) -> dict[str, list[dict[str, Any]]]:
        """The nodes, and the relationships whose two ends are among them."""
        edges = [e for e in self.edges.values() if e["source"] in self.nodes and e["target"] in self.nodes]
        return {"nodes": list(self.nodes.values()), "edges": edges}
