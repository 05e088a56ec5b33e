"""An open graph: the driver, its engine, and the runner every statement of `graph/` goes through.

It only opens and closes. Everything read or written is a module function of `graph/`'s rooms that takes the
store (`graph/schema.py`, `graph/writes/`, `graph/reads/`, `graph/privacy/`), one statement file of
`queries/` each where it can be; the driver and the runner are theirs, never a caller's.

Two stores open on an engine: the writer's (`writer`), and the reader's (`reader`), on the engine's user that may
only read, for operators' queries, the explorer and the topic reads of `grapevine mcp`; what is read on it runs
in a transaction rolled back whatever it did (`graph.reads.operator.read_rolled_back`)."""

from __future__ import annotations

from dataclasses import dataclass, field

from neo4j import AsyncDriver

from graph.engines import Engine
from graph.session import Runner, WriteGate


@dataclass
class GraphStore:
    driver: AsyncDriver
    engine: Engine
    runner: Runner = field(init=False)
    salt: str | None = field(default=None, init=False)  # the graph's, read by graph/schema.py: keys consent records
    consent_keys: dict[str, str] = field(default_factory=dict, init=False, repr=False)  # graph.privacy.guards.consent's
    memo: dict[str, object] = field(default_factory=dict, init=False, repr=False)  # graph/reads/fact_model.py's model

    def __post_init__(self) -> None:
        self.runner = Runner(self.driver, self.engine.database, gate=WriteGate(self.engine.write_gate))

    async def close(self) -> None:
        await self.driver.close()


def writer(engine: Engine) -> GraphStore:
    """The store on the engine's own user, who reads and writes."""
    return GraphStore(engine.driver(), engine)


async def reader(engine: Engine) -> GraphStore:
    """The store on the engine's user that may only read (`Engine.reader_driver`)."""
    return GraphStore(await engine.reader_driver(), engine)


async def reachable(store: GraphStore) -> None:
    """Raise the driver's error when the engine does not answer."""
    await store.driver.verify_connectivity()
