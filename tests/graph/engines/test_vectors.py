"""The vector index over fact embeddings, on a graph set up with embeddings (ArcadeDB)."""

from __future__ import annotations

import math
import uuid

import pytest

from graph.engines.arcadedb import ArcadeDBEngine
from graph.models import EpisodeWrite
from graph.reads import context as context_reads
from graph.schema import setup_schema
from graph.store import GraphStore
from graph.writes.episodes import write_episode
from tests.support.busy_server import G1, GENERAL, T0, U, populate


def unit(*hot: int, dimension: int = 384) -> tuple[float, ...]:
    v = [0.0] * dimension
    for i in hot:
        v[i] = 1.0
    n = math.sqrt(len(hot))
    return tuple(x / n for x in v)


@pytest.mark.parametrize("dimension", [384, 16])  # EMBEDDINGS_DIMENSION, not a hard-coded 384
async def test_nearest_facts_finds_the_closest_embedding_in_the_guild(arcadedb_server: ArcadeDBEngine, dimension: int) -> None:
    engine = arcadedb_server.for_database(f"v{uuid.uuid4().hex[:12]}")
    await engine.create_database()
    driver = engine.driver()
    try:
        store = GraphStore(driver, engine)
        await setup_schema(store, "all-minilm-l6-v2", dimension)
        p = await populate(store)
        msg = await p.say(GENERAL, "dave", "I'm learning the cello, and I hate olives", T0)
        key = await p.episode(GENERAL, [msg])
        cello = p.fact("cello", "Dave is learning the cello", [U("dave")], msg).model_copy(
            update={"embedding": unit(1, 2, dimension=dimension)}
        )
        olives = p.fact("olives", "Dave hates olives", [U("dave")], msg).model_copy(
            update={"embedding": unit(10, 11, dimension=dimension)}
        )
        await write_episode(store, EpisodeWrite(key=key, guild_id=G1, facts=(cello, olives)))
        found = await context_reads.nearest_facts(store, G1, list(unit(1, 3, dimension=dimension)), limit=1)
        assert [f.text for f in found] == ["Dave is learning the cello"]
        assert await context_reads.nearest_facts(store, "another-guild", list(unit(1, 3, dimension=dimension))) == []
    finally:
        await driver.close()
        await engine.drop_database()
