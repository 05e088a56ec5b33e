"""Rows to graph elements, and the change events the history stepper walks (no database)."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from grapevine.explore.elements import Elements, node_element
from grapevine.explore.history import events_of, parse_time


def node(element_id: str, *labels: str, **props: object) -> dict[str, Any]:
    return {"_id": element_id, "_labels": sorted(labels), **props}


def rel(element_id: str, rel_type: str, start: str, end: str, **props: object) -> dict[str, Any]:
    return {"_id": element_id, "_type": rel_type, "_start": start, "_end": end, **props}


BOB = node("n1", "User", id="42", display_name="Bob")
BERLIN = node(
    "n2",
    "Fact",
    "Closed",
    uuid="f-berlin",
    text="Bob lives in Berlin",
    valid_at="2024-05-04T18:00:00.000000000+00:00",
    invalid_at="2024-05-06T18:00:00.000000000+00:00",
    created_at="2024-06-01T10:00:00.123456789+00:00",
    expired_at="2024-06-02T10:00:00Z",
)
MUNICH = node(
    "n3",
    "Fact",
    uuid="f-munich",
    text="Bob moved to Munich",
    valid_at="2024-05-06T18:00:00.000000000+00:00",
    created_at="2024-06-02T10:00:00Z",
)


def test_a_node_is_drawn_as_its_main_label_and_named_by_its_key() -> None:
    assert node_element(BERLIN) == {
        "id": "n2",
        "labels": ["Closed", "Fact"],
        "label": "Fact",
        "key": "f-berlin",
        "props": {k: v for k, v in BERLIN.items() if not k.startswith("_")},
    }
    assert node_element(BOB)["key"] == "42"
    assert node_element(node("n9", "Episode", key="c:1:2", uuid="u"))["key"] == "c:1:2"
    assert node_element(node("n8", "GraphMeta", key="x")) | {"props": {}} == {
        "id": "n8",
        "labels": ["GraphMeta"],
        "label": "GraphMeta",
        "key": None,
        "props": {},
    }


def test_elements_are_collected_once_from_nodes_relationships_paths_and_nesting() -> None:
    about = rel("r1", "ABOUT", "n2", "n1")
    supersedes = rel("r2", "SUPERSEDES", "n3", "n2")
    dangling = rel("r3", "REPORTED_BY", "n3", "n404", at="2024-05-06T18:00:00Z")
    elements = Elements()
    found = elements.add(
        [
            {"fact": BERLIN, "paths": [{"nodes": [BERLIN, BOB], "relationships": [about]}]},
            {"nodes": [MUNICH, BERLIN], "relationships": [supersedes]},
            dangling,
            "a string",
            3,
        ]
    )
    assert found == (["n2", "n2", "n1", "n3", "n2"], ["r1", "r2", "r3"])
    graph = elements.as_json()
    assert [n["id"] for n in graph["nodes"]] == ["n2", "n1", "n3"]
    assert [(e["id"], e["type"], e["source"], e["target"]) for e in graph["edges"]] == [
        ("r1", "ABOUT", "n2", "n1"),
        ("r2", "SUPERSEDES", "n3", "n2"),
    ]  # r3's end was never read


def test_times_with_nanoseconds_parse() -> None:
    assert parse_time("2024-06-01T10:00:00.123456789+00:00") == datetime(2024, 6, 1, 10, 0, 0, 123456, tzinfo=UTC)
    assert parse_time("2024-06-01T10:00:00Z") == datetime(2024, 6, 1, 10, tzinfo=UTC)
    assert parse_time("2024-06-01T10:00:00") == datetime(2024, 6, 1, 10, tzinfo=UTC)


def test_history_events_follow_both_time_axes_in_order() -> None:
    elements = Elements()
    elements.add([BOB, BERLIN, MUNICH, rel("r2", "SUPERSEDES", "n3", "n2")])
    events = events_of(elements.as_json())
    assert [(e["axis"], e["kind"], e["text"], e["detail"]) for e in events] == [
        ("valid", "holds", "Bob lives in Berlin", ""),
        ("valid", "holds", "Bob moved to Munich", ""),  # at the same moment, the new fact starts before the old ends
        ("valid", "ends", "Bob lives in Berlin", "replaced by: Bob moved to Munich"),
        ("recorded", "recorded", "Bob lives in Berlin", ""),
        ("recorded", "recorded", "Bob moved to Munich", ""),
        ("recorded", "closed", "Bob lives in Berlin", "superseded by: Bob moved to Munich"),
    ]
    assert events[2]["node"] == "n2" and events[2]["at"] == BERLIN["invalid_at"]


def test_a_retired_fact_says_so() -> None:
    elements = Elements()
    elements.add(
        node(
            "n5",
            "Fact",
            "Closed",
            text="Dave is celebrating tonight",
            valid_at="2024-05-05T18:00:00Z",
            expires_at="2024-05-06T18:00:00Z",
            created_at="2024-05-05T18:01:00Z",
            expired_at="2024-05-07T00:00:00Z",
        )
    )
    assert [(e["kind"], e["detail"]) for e in events_of(elements.as_json())] == [
        ("holds", ""),
        ("recorded", ""),
        ("expires", ""),
        ("closed", "retired"),
    ]
