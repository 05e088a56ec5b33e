"""A GraphStore on a new, empty database of a running ArcadeDB server, its schema set up, dropped afterwards."""

from __future__ import annotations

import uuid
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from graph.engines.arcadedb import ArcadeDBEngine
from graph.schema import setup_schema
from graph.store import GraphStore


@asynccontextmanager
async def fresh_arcadedb_store(server: ArcadeDBEngine) -> AsyncIterator[GraphStore]:
    engine = server.for_database(f"t{uuid.uuid4().hex[:12]}")
    await engine.create_database()
    driver = engine.driver()
    store = GraphStore(driver, engine)
    await setup_schema(store)
    try:
        yield store
    finally:
        await driver.close()
        await engine.drop_database()
