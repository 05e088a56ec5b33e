"""`grapevine who-knows` and `grapevine timeline`, run as the real CLI against a populated graph."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from graph.store import GraphStore
from tests.support.busy_server import G1, GENERAL, PEOPLE
from tests.support.cli_process import grapevine
from tests.support.topics_graph import STAFF, topical


def _rows(stdout: str) -> list[dict[str, Any]]:
    return [json.loads(line) for line in stdout.splitlines() if line.strip()]


def url(channel_id: str, message_id: str) -> str:
    return f"https://discord.com/channels/{G1}/{channel_id}/{message_id}"


async def test_who_knows_for_an_operator_reads_every_channel_unless_told_one(store: GraphStore, tmp_path: Path) -> None:
    t = await topical(store)
    every = await grapevine(store, tmp_path, "who-knows", "kubernetes", "--guild", G1, "--json")
    assert every.returncode == 0, every.stderr
    rows = _rows(every.stdout)
    assert [r["member"] for r in rows] == ["Alice", "Eve", "Charlie"]  # an operator sees #staff too; Dave opted out
    assert rows[0]["facts"] == 1 and rows[0]["messages"] == 1 and rows[0]["example"] == url(GENERAL, t.links["alice"])
    assert rows[2]["example"] == url(STAFF, t.links["charlie"])
    shared = await grapevine(store, tmp_path, "who-knows", "kubernetes", "--guild", G1, "--channel", "", "--json")
    assert [r["member"] for r in _rows(shared.stdout)] == ["Alice", "Eve"]
    table = await grapevine(store, tmp_path, "who-knows", "kubernetes", "--guild", G1)
    assert table.returncode == 0 and "who knows about 'kubernetes': 3 members" in table.stdout and "Dave" not in table.stdout


async def test_timeline_for_an_operator_as_of_a_date(store: GraphStore, tmp_path: Path) -> None:
    t = await topical(store)
    done = await grapevine(store, tmp_path, "timeline", "--guild", G1, "--user", PEOPLE["bob"], "--json")
    assert done.returncode == 0, done.stderr
    rows = _rows(done.stdout)
    assert [(r["text"], r["held"]) for r in rows] == [("Bob lives in Berlin", False), ("Bob moved to Munich", True)]
    assert rows[0]["superseded_by"] == ["Bob moved to Munich"] and rows[1]["supersedes"] == ["Bob lives in Berlin"]
    assert rows[1]["links"] == [url(GENERAL, t.links["munich"])] and rows[1]["reported_by"][0]["member"] == "Bob"
    before = await grapevine(
        store, tmp_path, "timeline", "--guild", G1, "--user", PEOPLE["bob"], "--at", "2024-05-04T23:00Z", "--json"
    )
    assert [(r["text"], r["held"]) for r in _rows(before.stdout)] == [("Bob lives in Berlin", True)]
    entity = await grapevine(store, tmp_path, "timeline", "--guild", G1, "--entity", "the Celtics")
    assert entity.returncode == 0 and "Charlie is a Celtics fan" in entity.stdout
    bad = await grapevine(store, tmp_path, "timeline", "--guild", G1, "--user", PEOPLE["bob"], "--at", "soon")
    assert bad.returncode == 2 and "not an ISO date" in bad.stderr and "Traceback" not in bad.stderr
