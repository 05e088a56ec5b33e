"""Every command sets the schema up: on ArcadeDB the search indexes already there cost one request (the listing),
and one that is missing is made again."""

from __future__ import annotations

from typing import Any

import pytest

from graph.engines.arcadedb import ArcadeDBEngine
from graph.schema import setup_schema
from graph.store import GraphStore
from tests.support.fresh_store import fresh_arcadedb_store


async def _indexes(engine: ArcadeDBEngine) -> dict[str, Any]:
    rows = (await engine.sql("SELECT FROM schema:indexes"))["result"]
    return {row["name"]: row["properties"] for row in rows if "fileId" not in row}


async def test_search_indexes_in_place_are_listed_not_created_again(
    arcadedb_server: ArcadeDBEngine, monkeypatch: pytest.MonkeyPatch
) -> None:
    async with fresh_arcadedb_store(arcadedb_server) as store:
        engine = store.engine
        assert isinstance(engine, ArcadeDBEngine)
        before = await _indexes(engine)
        sent: list[str] = []
        real = engine.sql

        async def counted(command: str, timeout: float = 60.0) -> dict[str, Any]:  # noqa: ASYNC109 - as sql's
            sent.append(command)
            return await real(command, timeout)

        monkeypatch.setattr(engine, "sql", counted)
        await setup_schema(store)
        assert sent == ["SELECT FROM schema:indexes"]
        assert await _indexes(engine) == before


async def test_a_missing_search_index_is_made_again(arcadedb_server: ArcadeDBEngine) -> None:
    async with fresh_arcadedb_store(arcadedb_server) as store:
        engine = store.engine
        assert isinstance(engine, ArcadeDBEngine)
        before = await _indexes(engine)
        await engine.sql("DROP INDEX `message_content`")
        assert "message_content" not in await _indexes(engine)
        await setup_schema(GraphStore(store.driver, engine))
        assert await _indexes(engine) == before
