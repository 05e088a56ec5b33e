"""Members and the records of Discord (graph/writes/discord_records.py): stored once per Discord id, whatever
is recorded again."""

from __future__ import annotations

from graph.models import User
from graph.reads.facts import users_by_id
from graph.reads.stats import graph_stats
from graph.store import GraphStore
from graph.writes.discord_records import upsert_users
from graph.writes.messages import record_messages
from tests.support.busy_server import PEOPLE, populate


async def test_records_are_idempotent_on_discord_ids(store: GraphStore) -> None:
    p = await populate(store)
    before = await graph_stats(store)
    await upsert_users(store, [User(id=PEOPLE["alice"], name="alice", display_name="Alice A.")])
    await record_messages(store, p.messages[:5])
    assert (await graph_stats(store))["nodes"] == before["nodes"]
    alice = (await users_by_id(store, [PEOPLE["alice"]]))[0]
    assert alice.display_name == "Alice A."
