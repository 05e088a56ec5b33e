"""The schema paths only Neo4j runs: the vector index sized by EMBEDDINGS_DIMENSION, and setup waiting until
every index is online. The container tests run wherever a Docker engine answers (skipped with the reason here);
the statements sent and the dimension check run everywhere."""

from __future__ import annotations

import math
from collections.abc import AsyncIterator
from typing import Any

import pytest
from neo4j import AsyncDriver

from graph.engines.neo4j import Neo4jEngine, vector_dimensions
from graph.models import EpisodeWrite, SchemaMismatch
from graph.reads import context as context_reads
from graph.schema import setup_schema
from graph.store import GraphStore
from graph.writes.episodes import write_episode
from tests.support.busy_server import G1, GENERAL, T0, U, populate


class Sent:
    """Stands in for the driver at the Bolt boundary: keeps each statement and its parameters."""

    def __init__(self) -> None:
        self.statements: list[tuple[str, dict[str, Any]]] = []

    async def execute_query(self, query: str, parameters: dict[str, Any] | None = None, **_: Any) -> tuple[list[Any], None, None]:
        self.statements.append((query, dict(parameters or {})))
        return [], None, None


async def _sent(dimension: int | None) -> list[tuple[str, dict[str, Any]]]:
    sent = Sent()
    engine = Neo4jEngine("bolt://nowhere:7687", "neo4j", "unused")
    await engine.create_search_indexes(sent, dimension)  # type: ignore[arg-type]
    return sent.statements


async def test_the_vector_index_takes_the_configured_dimension_as_a_parameter_then_indexes_are_awaited() -> None:
    statements = await _sent(16)
    vector = [(q, p) for q, p in statements if "CREATE VECTOR INDEX" in q]
    assert len(vector) == 1 and vector[0][1] == {"dimensions": 16} and "$dimensions" in vector[0][0]
    assert "384" not in vector[0][0]
    assert statements[-1][0].strip().endswith("CALL db.awaitIndexes(300);")  # after every CREATE
    assert sum("CREATE FULLTEXT INDEX" in q for q, _ in statements) == 3


async def test_without_embeddings_no_vector_index_and_still_awaited() -> None:
    statements = await _sent(None)
    assert not any("VECTOR" in q for q, _ in statements)
    assert "db.awaitIndexes" in statements[-1][0]


@pytest.mark.parametrize("bad", [0, -3, 4097, True, "384", 384.0])
async def test_a_dimension_that_is_not_a_whole_number_in_range_is_refused_before_anything_is_sent(bad: object) -> None:
    with pytest.raises(ValueError, match="1 to 4096 dimensions"):
        vector_dimensions(bad)
    sent = Sent()
    with pytest.raises(ValueError, match="1 to 4096 dimensions"):
        await Neo4jEngine("bolt://nowhere:7687", "neo4j", "unused").create_search_indexes(sent, bad)  # type: ignore[arg-type]
    assert not any("VECTOR" in q for q, _ in sent.statements)


# --- against Neo4j 5 (testcontainers) ------------------------------------------------------------


async def _empty(driver: AsyncDriver, database: str) -> None:
    """The container's one database back to nothing: data, constraints and indexes (names from the engine)."""
    await driver.execute_query("MATCH (n) DETACH DELETE n", database_=database)
    constraints, _, _ = await driver.execute_query("SHOW CONSTRAINTS YIELD name", database_=database)
    for row in constraints:
        await driver.execute_query(f"DROP CONSTRAINT `{row['name']}` IF EXISTS", database_=database)
    indexes, _, _ = await driver.execute_query("SHOW INDEXES YIELD name, type WHERE type <> 'LOOKUP'", database_=database)
    for row in indexes:
        await driver.execute_query(f"DROP INDEX `{row['name']}` IF EXISTS", database_=database)


@pytest.fixture
async def neo4j_driver(neo4j_engine: Neo4jEngine) -> AsyncIterator[AsyncDriver]:
    driver = neo4j_engine.driver()
    await _empty(driver, neo4j_engine.database)
    yield driver
    await _empty(driver, neo4j_engine.database)
    await driver.close()


def unit(*hot: int, dimension: int) -> list[float]:
    v = [0.0] * dimension
    for i in hot:
        v[i] = 1.0
    return [x / math.sqrt(len(hot)) for x in v]


@pytest.mark.neo4j
@pytest.mark.parametrize("dimension", [16, 768])
async def test_the_vector_index_has_the_configured_dimension_and_finds_the_nearest_fact(
    neo4j_engine: Neo4jEngine, neo4j_driver: AsyncDriver, dimension: int
) -> None:
    store = GraphStore(neo4j_driver, neo4j_engine)
    await setup_schema(store, "some-model", dimension)
    rows, _, _ = await neo4j_driver.execute_query(
        "SHOW VECTOR INDEXES YIELD name, options WHERE name = 'fact_embedding' RETURN options", database_=neo4j_engine.database
    )
    assert rows[0]["options"]["indexConfig"]["vector.dimensions"] == dimension
    p = await populate(store)
    msg = await p.say(GENERAL, "dave", "I'm learning the cello, and I hate olives", T0)
    key = await p.episode(GENERAL, [msg])
    cello = p.fact("cello", "Dave is learning the cello", [U("dave")], msg)
    olives = p.fact("olives", "Dave hates olives", [U("dave")], msg)
    facts = (
        cello.model_copy(update={"embedding": tuple(unit(1, 2, dimension=dimension))}),
        olives.model_copy(update={"embedding": tuple(unit(10, 11, dimension=dimension))}),
    )
    await write_episode(store, EpisodeWrite(key=key, guild_id=G1, facts=facts))
    found = await context_reads.nearest_facts(store, G1, unit(1, 3, dimension=dimension), limit=1)
    assert [f.text for f in found] == ["Dave is learning the cello"]
    with pytest.raises(SchemaMismatch):  # the index is never silently left at another size
        await setup_schema(GraphStore(neo4j_driver, neo4j_engine), "some-model", dimension * 2)


@pytest.mark.neo4j
async def test_every_index_is_online_when_setup_returns(neo4j_engine: Neo4jEngine, neo4j_driver: AsyncDriver) -> None:
    await setup_schema(GraphStore(neo4j_driver, neo4j_engine), "some-model", 384)
    rows, _, _ = await neo4j_driver.execute_query(
        "SHOW INDEXES YIELD name, type, state, populationPercent RETURN name, type, state, populationPercent",
        database_=neo4j_engine.database,
    )
    names = {r["name"] for r in rows}
    assert {"fact_text", "entity_names", "message_content", "fact_embedding", "message_channel_time"} <= names
    assert [r for r in rows if r["state"] != "ONLINE"] == []
    assert all(r["populationPercent"] == 100.0 for r in rows)
