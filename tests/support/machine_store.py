"""One store and one event loop for a whole machine run: each example starts on the same database, emptied
(a new database and its schema cost seconds; emptying one costs a tenth of that, and so a CI run can afford many
short examples). The schema (indexes, constraints) and the schema's own node stay."""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager, contextmanager

from graph.engines.arcadedb import ArcadeDBEngine
from graph.schema import setup_schema
from graph.store import GraphStore

EMBEDDING_MODEL = "all-minilm-l6-v2"  # a name only: the machines write their own small vectors


@asynccontextmanager
async def _database(server: ArcadeDBEngine, dimension: int | None) -> AsyncIterator[GraphStore]:
    engine = server.for_database(f"m{uuid.uuid4().hex[:12]}")
    await engine.create_database()
    driver = engine.driver()
    try:
        store = GraphStore(driver, engine)
        await (setup_schema(store, EMBEDDING_MODEL, dimension) if dimension else setup_schema(store))
        yield store
    finally:
        await driver.close()
        await engine.drop_database()


@contextmanager
def machine_store(server: ArcadeDBEngine, dimension: int | None = None) -> Iterator[tuple[asyncio.AbstractEventLoop, GraphStore]]:
    """A new database (with a vector index of `dimension`, so the nearest-facts read runs too) and its loop."""
    loop = asyncio.new_event_loop()
    opened = _database(server, dimension)
    try:
        yield loop, loop.run_until_complete(opened.__aenter__())
    finally:
        loop.run_until_complete(opened.__aexit__(None, None, None))
        loop.close()


async def emptied(store: GraphStore) -> GraphStore:
    await store.driver.execute_query("MATCH (n) WHERE NOT n:GraphMeta DETACH DELETE n", database_=store.engine.database)
    return store
