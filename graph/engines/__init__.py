"""The two graph engines behind one driver code path.

Both are reached with the official `neo4j` async driver over Bolt; the only dialect difference
is how full-text and vector indexes are created, which each engine's `create_search_indexes`
holds.
"""

from __future__ import annotations

from typing import Protocol

from neo4j import AsyncDriver

from graph.engines.arcadedb_purge import PurgeReport


class Engine(Protocol):
    name: str
    database: str

    def driver(self) -> AsyncDriver: ...

    async def reader_driver(self) -> AsyncDriver: ...

    async def create_search_indexes(self, driver: AsyncDriver, embedding_dimension: int | None) -> None: ...

    async def purge_deleted(self) -> PurgeReport:
        """Make deleted records leave the engine's files (see `arcadedb_purge`)."""
        ...
