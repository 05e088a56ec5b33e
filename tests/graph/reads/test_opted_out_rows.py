"""`without_opted_out` over the rows of operator queries as `run_query` returns them: a timeline's reporters are
maps naming the member by `id`; corroborated facts list reporters by name alone (nothing to match an id to)."""

from __future__ import annotations

from typing import Any

from graph.privacy.opted_out import without_opted_out


async def _out(user_ids: set[str]) -> set[str]:
    return user_ids & {"2"}


async def test_an_opted_out_member_leaves_a_timeline_row_and_their_own_rows_go() -> None:
    alice = {"id": "1", "name": "Alice", "at": None, "message_id": "m1"}
    bob = {"id": "2", "name": "Bob", "at": None, "message_id": None}
    rows: list[dict[str, Any]] = [
        {"uuid": "f1", "reporters": [alice, bob], "sources": [{"message_id": "m1", "channel_id": "c1"}]},
        {"user_id": "2", "kind": "message"},
        {"fact_uuid": "f2", "reporters": ["Alice", "Bob"]},
    ]
    kept = await without_opted_out(rows, _out)
    assert kept == [
        {"uuid": "f1", "reporters": [alice], "sources": [{"message_id": "m1", "channel_id": "c1"}]},
        {"fact_uuid": "f2", "reporters": ["Alice", "Bob"]},
    ]
