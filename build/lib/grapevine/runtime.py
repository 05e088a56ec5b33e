"""Opening the configured engine: Neo4j by URI, or the embedded ArcadeDB (started here when no
`grapevine serve-db` is already listening), with the schema checked."""

from __future__ import annotations

import socket
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass

from neo4j import AsyncDriver

from common.settings import Settings
from graph.engines import Engine
from graph.engines.arcadedb import ArcadeDBEngine, ArcadeDBServer, password_for
from graph.engines.neo4j import Neo4jEngine
from graph.store import GraphStore


@dataclass
class Runtime:
    store: GraphStore
    engine: Engine
    driver: AsyncDriver
    started_server: bool


def arcadedb_engine(settings: Settings) -> ArcadeDBEngine:
    a = settings.arcadedb
    password = password_for(settings.graph.data_dir, a.password.get_secret_value() if a.password else None)
    return ArcadeDBEngine(password=password, database=a.database, host=a.host, bolt_port=a.bolt_port, http_port=a.http_port)


def arcadedb_server(settings: Settings) -> ArcadeDBServer:
    return ArcadeDBServer(
        settings.graph.data_dir / "arcadedb",
        arcadedb_engine(settings),
        heap=settings.arcadedb.heap,
        start_timeout=settings.arcadedb.start_timeout,
    )


def listening(host: str, port: int) -> bool:
    with socket.socket() as s:
        s.settimeout(0.5)
        return s.connect_ex((host, port)) == 0


def configured_engine(settings: Settings) -> Engine:
    if settings.graph.engine == "neo4j":
        n = settings.neo4j
        return Neo4jEngine(n.uri, n.user, n.password.get_secret_value(), n.database)
    return arcadedb_engine(settings)


@asynccontextmanager
async def open_store(settings: Settings, *, setup: bool = True) -> AsyncIterator[Runtime]:
    server: ArcadeDBServer | None = None
    engine = configured_engine(settings)
    if isinstance(engine, ArcadeDBEngine) and not listening(engine.host, engine.bolt_port):
        server = arcadedb_server(settings)
        server.start()
    driver = engine.driver()
    try:
        await driver.verify_connectivity()
        store = GraphStore(driver, engine)
        if setup:
            dimension = settings.embeddings.dimension if settings.embeddings.enabled else None
            await store.setup_schema(settings.embeddings.model, dimension)
        yield Runtime(store, engine, driver, server is not None)
    finally:
        await driver.close()
        if server:
            server.stop()
