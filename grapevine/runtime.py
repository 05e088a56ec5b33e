"""Opening the configured engine: Neo4j by URI, or the embedded ArcadeDB (started here when no
`grapevine serve-db` is already listening), with the schema checked."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass
from pathlib import Path

from neo4j import AsyncDriver

from common.files import touch_private
from common.settings import Settings
from grapevine.ownership import (
    ENGINE_ROOT,
    DataDirBusy,
    DataDirLock,
    Joined,
    busy_message,
    foreign_engine_message,
    wait_until_gone,
    wait_until_ready,
)
from graph.engines import Engine
from graph.engines.arcadedb import ArcadeDBEngine, ArcadeDBServer, password_for
from graph.engines.neo4j import Neo4jEngine
from graph.schema import owner_token, set_owner_token, setup_schema
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


def arcadedb_server(settings: Settings, *, record_aot: bool = False) -> ArcadeDBServer:
    """`record_aot`: a run without an AOT cache records one as it stops (the long-lived bot and `serve-db`, whose
    profile is the one worth keeping); other commands use a cache when there is one and never record."""
    return ArcadeDBServer(
        settings.graph.data_dir / ENGINE_ROOT,
        arcadedb_engine(settings),
        heap=settings.arcadedb.heap,
        start_timeout=settings.arcadedb.start_timeout,
        aot=settings.arcadedb.aot_cache,
        aot_dir=aot_folder(),
        aot_record=record_aot,
    )


def aot_folder() -> Path:
    """The AOT cache depends on the JRE, the jars and the JVM options, not on the data, so the machine keeps one
    for every data directory (a new data directory does not record it again)."""
    cache = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(cache) / "grapevine" / "arcadedb-aot"


def listening(host: str, port: int) -> bool:
    with socket.socket() as s:
        s.settimeout(0.5)
        return s.connect_ex((host, port)) == 0


def configured_engine(settings: Settings) -> Engine:
    if settings.graph.engine == "neo4j":
        n = settings.neo4j
        return Neo4jEngine(
            n.uri, n.user, n.password.get_secret_value(), n.database,
            reader_user=n.reader_user, reader_password=n.reader_password.get_secret_value(),
        )  # fmt: skip
    return arcadedb_engine(settings)


def _command() -> str:
    return " ".join(["grapevine", *sys.argv[1:2]])


BACKGROUND = "grapevine serve-db (in the background)"  # the owner's command: an engine a command left serving


@dataclass
class _Claim:
    """How this process reaches the embedded engine: it started it (`server`, holding `lock`), or it joined a
    shared one (`token` to check, `joined` held while it runs)."""

    server: ArcadeDBServer | None = None
    lock: DataDirLock | None = None
    token: str | None = None
    joined: Joined | None = None


def _claim(settings: Settings, engine: ArcadeDBEngine, *, shared: bool, command: str | None) -> _Claim:
    """Own the data directory and start its engine, or join the shared engine that serves it. A one-shot command
    (not `shared`) with ENGINE_IDLE_MINUTES set starts the engine in the background instead and joins it, so the
    next commands join it too."""
    data_dir = settings.graph.data_dir
    wait = settings.arcadedb.start_timeout + 30
    for _ in range(3):
        lock = DataDirLock(data_dir)
        if lock.acquire(command or _command(), shared=shared):
            if listening(engine.host, engine.bolt_port) and not (
                lock.wait_for_orphan() and not listening(engine.host, engine.bolt_port)
            ):
                lock.release()
                raise DataDirBusy(foreign_engine_message(data_dir, engine.bolt_port))
            if not shared and settings.warm.idle_minutes > 0:
                lock.release()
                start_in_background(settings)
                continue  # and join it
            server = arcadedb_server(settings, record_aot=shared)
            server.on_spawn = lock.started  # a kill -9 before READY still leaves the engine for the next owner to wait for
            try:
                server.start()
            except BaseException:
                server.stop()
                lock.release()
                raise
            return _Claim(server=server, lock=lock)
        owner = lock.owner()
        if owner is not None and owner.shared and not owner.ready:
            owner = wait_until_ready(data_dir, wait)  # starting (a background engine another command started)
            if owner is None:
                continue  # it ended instead: the directory is free again
        if owner is None or not owner.shared or not listening(engine.host, engine.bolt_port):
            raise DataDirBusy(busy_message(data_dir, owner or lock.owner()))
        joined = Joined(data_dir)
        if joined.enter():
            return _Claim(token=owner.token, joined=joined)
        wait_until_gone(data_dir, wait)  # it is stopping, idle: start it again
    raise DataDirBusy(busy_message(data_dir, DataDirLock(data_dir).owner()))


def start_in_background(settings: Settings) -> None:
    """`grapevine serve-db` as a background process of its own (its output in `<data dir>/logs/engine.log`);
    returns once it serves, or once another command's engine does (two commands started at once)."""
    data_dir = settings.graph.data_dir
    log = touch_private(data_dir / "logs" / "engine.log")
    minutes = f"{settings.warm.idle_minutes:g}"
    with open(log, "ab") as sink:
        proc = subprocess.Popen(  # the password stays in its file: the child reads it there
            [sys.executable, "-m", "grapevine", "serve-db", "--idle-minutes", minutes],
            stdin=subprocess.DEVNULL, stdout=sink, stderr=subprocess.STDOUT, start_new_session=True,
        )  # fmt: skip
    deadline = time.monotonic() + settings.arcadedb.start_timeout + 30
    lock = DataDirLock(data_dir)
    while True:
        owner = lock.owner()
        if owner is not None and owner.shared and owner.ready:
            return
        if proc.poll() is not None and (owner is None or not owner.shared):
            said = log.read_text(encoding="utf-8", errors="replace").strip().splitlines()
            raise RuntimeError(f"the engine did not start in the background: {said[-1] if said else 'no output'} (log: {log})")
        if time.monotonic() > deadline:
            proc.terminate()
            raise RuntimeError(f"the engine did not start in the background within {deadline:.0f} s (log: {log})")
        time.sleep(0.2)


@asynccontextmanager
async def open_store(
    settings: Settings, *, setup: bool = True, shared: bool = False, command: str | None = None
) -> AsyncIterator[Runtime]:
    """The store on the configured engine. On the embedded engine this process either owns the data
    directory (and starts the engine, which other commands may join when `shared`) or joins the shared
    engine of its owner, one started in the background by an earlier command included; anything else is
    `DataDirBusy` (see grapevine.ownership)."""
    engine = configured_engine(settings)
    claim = _Claim()
    if isinstance(engine, ArcadeDBEngine) and not settings.arcadedb.external:
        claim = _claim(settings, engine, shared=shared, command=command)
    server, lock = claim.server, claim.lock
    driver = engine.driver()
    try:
        await driver.verify_connectivity()
        store = GraphStore(driver, engine)
        if claim.token is not None and await owner_token(store) != claim.token:
            raise DataDirBusy(foreign_engine_message(settings.graph.data_dir, settings.arcadedb.bolt_port))
        if setup:
            dimension = settings.embeddings.dimension if settings.embeddings.enabled else None
            await setup_schema(store, settings.embeddings.model, dimension)
        if lock is not None and lock.record is not None:
            await set_owner_token(store, lock.record.token)
            lock.serving()
        yield Runtime(store, engine, driver, server is not None)
    finally:
        await driver.close()
        if server:
            server.stop()
        if lock is not None:
            lock.release()
        if claim.joined is not None:
            claim.joined.leave()
