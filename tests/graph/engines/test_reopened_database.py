"""The purge closes the database and opens it again (graph/engines/arcadedb_purge.py): another process's SQL request
in that moment (an import setting its schema up beside a forget) waits for it to open rather than failing."""

from __future__ import annotations

import asyncio

import pytest

from graph.engines.arcadedb import ArcadeDBEngine
from graph.store import GraphStore


async def test_requests_while_the_purge_reopens_the_database_wait_for_it(store: GraphStore) -> None:
    engine = store.engine
    if not isinstance(engine, ArcadeDBEngine):
        pytest.skip("only ArcadeDB's purge closes the database")
    reopening = asyncio.create_task(engine.reopen_database())
    answered = 0
    while not reopening.done() or answered < 3:
        assert (await engine.sql("SELECT 1 AS one"))["result"] == [{"one": 1}]
        answered += 1
    await reopening
