"""A graph written before facts stored their audience gets it at the next start (graph/schema.py setup_schema), once:
from the messages a fact came from, else from its episode's channel, else none at all, so that a fact whose
channel nothing records is shown to no member (operators still read it) rather than to every one."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from graph.models import Channel, EpisodeWrite, FactWrite, NodeRef, Report
from graph.privacy.channels import set_visibility
from graph.privacy.guards.scope import backfill_audience
from graph.reads.facts import facts_about
from graph.schema import setup_schema
from graph.store import GraphStore
from graph.writes.discord_records import upsert_channel
from graph.writes.episodes import write_command_facts, write_episode
from tests.support.busy_server import G1, GENERAL, PEOPLE, T0, U, populate
from tests.support.scripted import count, cypher

STAFF = "110000000000000077"


async def _write(store: GraphStore, text: str, /, **params: Any) -> None:
    await store.driver.execute_query(text, params, database_=store.engine.database)


async def test_older_facts_get_the_audience_they_had_and_none_when_nothing_records_it(store: GraphStore) -> None:
    p = await populate(store)
    await upsert_channel(store, Channel(id=STAFF, guild_id=G1, name="staff"))
    await set_visibility(store, G1, STAFF, "restricted")
    at = T0 + timedelta(days=2)
    said = await p.say(STAFF, "judy", "the vault code is 4417", at)
    key = await p.episode(STAFF, [said])
    kept = p.fact("kept", "Judy says the vault code is 4417", [U("judy")], said)
    await write_episode(store, EpisodeWrite(key=key, guild_id=G1, facts=(kept,)))
    lost = await p.say(STAFF, "judy", "bob will be fired next week", at + timedelta(minutes=1))
    key = await p.episode(STAFF, [lost])
    episode_only = p.fact("episode_only", "Bob will be fired next week", [U("bob")], lost)
    await write_episode(store, EpisodeWrite(key=key, guild_id=G1, facts=(episode_only,)))
    nowhere = FactWrite(uuid="f" * 32, text="Bob's badge number is 12", valid_at=at, about=(U("bob"),),
                        reports=(Report(user_id=PEOPLE["judy"], message_id=None, at=at),))  # fmt: skip
    await write_command_facts(store, G1, [nowhere])
    # as an older grapevine left them: no audience; one fact's message gone (as retention did), its episode kept
    await _write(store, "MATCH (f:Fact) REMOVE f.audience")
    await _write(store, "MATCH (m:Message {id: $id}) DETACH DELETE m", id=lost.id)
    assert await count(store, "MATCH (f:Fact) WHERE f.audience IS NULL RETURN count(f) AS n") > 3

    assert await backfill_audience(store.runner, batch=2) > 3  # several batches
    audience = {
        r["uuid"]: r["audience"]
        for r in await cypher(
            store,
            "MATCH (f:Fact) WHERE f.uuid IN $u RETURN f.uuid AS uuid, f.audience AS audience",
            u=[kept.uuid, episode_only.uuid, nowhere.uuid],
        )  # fmt: skip
    }
    assert audience == {kept.uuid: [STAFF], episode_only.uuid: [STAFF], nowhere.uuid: []}
    assert await backfill_audience(store.runner) == 0  # idempotent: nothing is read again
    await setup_schema(store)  # what every start runs

    texts = {f.text for f in await facts_about(store, G1, user_ids=[PEOPLE["bob"]], now=at, channel_id=GENERAL)}
    assert "Bob will be fired next week" not in texts and "Bob's badge number is 12" not in texts
    texts = {f.text for f in await facts_about(store, G1, user_ids=[PEOPLE["bob"]], now=at, channel_id=STAFF)}
    assert "Bob will be fired next week" in texts and "Bob's badge number is 12" not in texts
    texts = {f.text for f in await facts_about(store, G1, user_ids=[PEOPLE["bob"]], now=at)}  # an operator
    assert {"Bob will be fired next week", "Bob's badge number is 12"} <= texts


async def test_a_command_fact_keeps_the_channel_it_was_stated_in(store: GraphStore) -> None:
    await populate(store)
    await upsert_channel(store, Channel(id=STAFF, guild_id=G1, name="staff"))
    await set_visibility(store, G1, STAFF, "restricted")
    at = T0 + timedelta(days=2)
    secret = FactWrite(uuid="e" * 32, text="Bob's locker code is 99", valid_at=at, about=(NodeRef(kind="user", id=PEOPLE["bob"]),),
                       reports=(Report(user_id=PEOPLE["bob"], message_id=None, at=at),), channel_id=STAFF, source="command")  # fmt: skip
    await write_command_facts(store, G1, [secret])
    assert [f.text for f in await facts_about(store, G1, user_ids=[PEOPLE["bob"]], now=at, channel_id=STAFF)
            if f.uuid == secret.uuid] == [secret.text]  # fmt: skip
    assert secret.uuid not in {f.uuid for f in await facts_about(store, G1, user_ids=[PEOPLE["bob"]], now=at, channel_id=GENERAL)}
