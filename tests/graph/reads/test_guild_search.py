"""Every full-text read answers a small guild the same with and without a huge guild beside it in the engine: the
sample's 25 messages, then 20,000 messages, facts and 2,000 entities of another guild that say every word asked
about (who-knows read whole and in parts, as MCP's `run_query` and the CLI read it; the explorer's search; the
extraction's entity search; the reply's facts and recalled messages; the timelines)."""

from __future__ import annotations

import uuid
from datetime import UTC, datetime
from typing import Any

import pytest

from grapevine.explore.reads import ExploreReader
from graph.engines.arcadedb import ArcadeDBEngine
from graph.privacy.channels import set_mode
from graph.reads import context, topics
from graph.reads.context import FactRequest
from graph.reads.facts import search_entities
from graph.reads.operator import coerce_params, get_query, run_operator_query
from graph.schema import setup_schema
from graph.store import GraphStore
from tests.support.big_guild import BIG_GUILD, add_big_guild
from tests.support.demo_sample import SAMPLE_GENERAL, SAMPLE_GUILD, load_demo

NOW = datetime(2024, 6, 11, tzinfo=UTC)  # the day after the sample's last message
TOPICS = ("Berlin", "Munich", "Ines", "ridge trail", "van", "Miso", "July hike")
BOB = "602779366195331079"


async def _nobody(ids: set[str]) -> set[str]:
    return set()


def _plain(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in sorted(value.items())}
    if isinstance(value, list | tuple):
        return [_plain(v) for v in value]
    return value if value is None or isinstance(value, str | int | float | bool) else str(value)


async def _answers(store: GraphStore, guild_id: str) -> dict[str, Any]:
    out: dict[str, Any] = {}
    reads = ExploreReader(store)
    for topic in TOPICS:
        for channel in (None, "", SAMPLE_GENERAL):
            found = await topics.who_knows(store, guild_id, topic, channel_id=channel, opted_out=_nobody, now=NOW, limit=50)
            out[f"who_knows {topic} {channel}"] = [topics.knower_record(k, guild_id, i) for i, k in enumerate(found)]
        query = get_query("who_knows")
        values = coerce_params(query, {"guild_id": guild_id, "topic": topic, "channel_id": ""})
        rows = await run_operator_query(store, query, values)
        out[f"run_query who_knows {topic}"] = sorted((_plain(r) for r in rows), key=repr)
        points = await reads.start_points(guild_id, topic)
        out[f"explore {topic}"] = [n["key"] for n in points["facts"]]  # in order too
        out[f"entities {topic}"] = [e.uuid for e in await search_entities(store, guild_id, topic)]
        facts = await context.reply_facts(
            store,
            FactRequest(
                guild_id,
                author_id=BOB,
                mentioned_ids=[],
                names=[],
                entity_keys=[],
                text=f"what about {topic}?",
                skip_ids=[],
                now=NOW,
                channel_id=SAMPLE_GENERAL,
            ),
        )
        out[f"reply facts {topic}"] = {source: sorted(f.uuid for f in found) for source, found in facts.items()}
        talk = await context.conversation(
            store, guild_id, SAMPLE_GENERAL, author_id=BOB, at=NOW, text=f"what about {topic}?", recall=10, older_episodes=2
        )
        out[f"recalled {topic}"] = sorted(repr(m) for m in (*talk.recalled, *talk.around, *talk.older.matches))
    timeline = await topics.timeline(store, guild_id, user_id=BOB, channel_id=None, opted_out=_nobody)
    out["timeline bob"] = [t.uuid for t in timeline]
    return out


async def test_a_small_guild_reads_the_same_beside_a_huge_one(store: GraphStore) -> None:
    if store.engine.name != "arcadedb":
        pytest.skip("20,000 records written in bulk: ArcadeDB's full-text scoring is what it measures")
    await load_demo(store)
    assert await set_mode(store, SAMPLE_GUILD, SAMPLE_GENERAL, "shared")  # as the quick start does after an import
    alone = await _answers(store, SAMPLE_GUILD)
    assert {k["user_id"] for k in alone["who_knows Berlin None"]} >= {BOB}, alone["who_knows Berlin None"]
    for read in ("who_knows Berlin ", "run_query who_knows Berlin", "explore Berlin", "entities Berlin", "recalled Munich"):
        assert alone[read], (read, alone)
    assert any(alone[f"reply facts {t}"]["entities"] for t in TOPICS), alone
    await add_big_guild(store)
    await setup_schema(store)  # the backfills of records written around the store's own writes
    beside = await _answers(store, SAMPLE_GUILD)
    assert beside == alone
    big = await topics.who_knows(store, BIG_GUILD, "Berlin", channel_id=None, opted_out=_nobody, now=NOW)
    assert len(big) == 10  # the big guild is searched too: its members know


async def test_a_graph_set_up_before_guild_terms_is_searched_in_its_guild(arcadedb_server: ArcadeDBEngine) -> None:
    """The full-text indexes of an older graph (text only) are made again with guild_term, and its records get theirs."""
    engine = arcadedb_server.for_database(f"old{uuid.uuid4().hex[:10]}")
    await engine.create_database()
    driver = engine.driver()
    try:
        for statement in (
            "CREATE VERTEX TYPE Fact",
            "CREATE PROPERTY Fact.text STRING",
            "CREATE INDEX fact_text ON Fact (text) FULL_TEXT",
        ):
            await engine.sql(statement)
        await driver.execute_query(
            "CREATE (:Fact {uuid: 'old-1', guild_id: $g, text: 'Bob moved to Berlin'})",
            {"g": SAMPLE_GUILD},
            database_=engine.database,
        )
        store = GraphStore(driver, engine)
        await setup_schema(store)
        [row] = (await engine.sql("SELECT FROM schema:indexes WHERE name = 'fact_text'"))["result"]
        assert "guild_term" in str(row["properties"]), row
        reads = ExploreReader(store)
        assert [n["key"] for n in (await reads.start_points(SAMPLE_GUILD, "Berlin"))["facts"]] == ["old-1"]
        assert (await reads.start_points(BIG_GUILD, "Berlin"))["facts"] == []
    finally:
        await driver.close()
        await engine.drop_database()
