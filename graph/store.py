"""An open graph: the driver, its engine, and the runner every statement of `graph/` goes through.

It only opens and closes. Everything read or written is a module function of `graph/`'s rooms that takes the
store (`graph/schema.py`, `graph/writes/`, `graph/reads/`, `graph/privacy/`), one statement file of
`queries/` each where it can be; the runner is theirs, never a caller's."""

from __future__ import annotations

from dataclasses import dataclass, field

from neo4j import AsyncDriver

from graph.engines import Engine
from graph.session import Runner


@dataclass
class GraphStore:
    driver: AsyncDriver
    engine: Engine
    runner: Runner = field(init=False)
    salt: str | None = field(default=None, init=False)  # the graph's, read by graph/schema.py: keys consent records
    consent_keys: dict[str, str] = field(default_factory=dict, init=False, repr=False)  # graph/privacy/consent.py's memo

    def __post_init__(self) -> None:
        self.runner = Runner(self.driver, self.engine.database)

    async def close(self) -> None:
        await self.driver.close()
