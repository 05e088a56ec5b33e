"""The two graph engines behind one driver code path.

Both are reached with the official `neo4j` async driver over Bolt; the only dialect difference
is how full-text and vector indexes are created, which each engine's `create_search_indexes`
holds.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:  # the package is imported by what only looks after the engine's process (grapevine.ownership)
    from neo4j import AsyncDriver

    from graph.engines.arcadedb_purge import PurgeReport


class Engine(Protocol):
    name: str
    database: str
    write_gate: Path | None  # the file whose lock a purge takes alone and writers share (graph.session.WriteGate)

    def driver(self) -> AsyncDriver: ...

    async def reader_driver(self) -> AsyncDriver: ...

    async def create_search_indexes(self, driver: AsyncDriver, embedding_dimension: int | None) -> None: ...

    async def purge_deleted(self) -> PurgeReport:
        """Make deleted records leave the engine's files (see `arcadedb_purge`)."""
        ...
