"""Opening the configured engine: Neo4j by URI, or the embedded ArcadeDB (started here when no
`grapevine serve-db` is already listening), with the schema checked."""

from __future__ import annotations

import asyncio
import os
import socket
import subprocess
import sys
import time
from collections.abc import AsyncIterator, Mapping
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from pathlib import Path

from common.files import touch_private
from common.settings import Settings
from grapevine.ownership import (
    ENGINE_ROOT,
    HANDOVER_POLL_S,
    DataDirBusy,
    DataDirLock,
    Joined,
    OwnerRecord,
    busy_message,
    foreign_engine_message,
    process_alive,
    stop_owner,
    wait_until_gone,
    wait_until_ready,
)
from graph.engines import Engine
from graph.engines.arcadedb import ArcadeDBEngine, ArcadeDBServer, child_environment, password_for
from graph.engines.neo4j import Neo4jEngine
from graph.schema import check_schema, owner_token, schema_version_key, set_owner_token, setup_schema
from graph.store import GraphStore, reachable, reader, writer


@dataclass
class Runtime:
    store: GraphStore
    engine: Engine
    started_server: bool
    server: ArcadeDBServer | None = field(default=None, repr=False)  # the engine child this process started
    _reader: GraphStore | None = field(default=None, init=False, repr=False)

    async def reader(self) -> GraphStore:
        """The read-only store (`graph.store.reader`), opened on first use and closed with the runtime: operators'
        queries, the explorer and the MCP server read on it."""
        if self._reader is None:
            self._reader = await reader(self.engine)
        return self._reader

    async def close_reader(self) -> None:
        if self._reader is not None:
            await self._reader.close()
            self._reader = None

    async def engine_ended(self) -> int:
        """Wait until the engine child this process started exits (its exit code); forever when it started none."""
        while self.server is None or self.server.running:  # noqa: ASYNC110 - a child process: no event to wait on
            await asyncio.sleep(ENGINE_WATCH_S)
        return self.server.exit_code if self.server.exit_code is not None else -1


def arcadedb_engine(settings: Settings) -> ArcadeDBEngine:
    a = settings.arcadedb
    password = password_for(settings.graph.data_dir, a.password.get_secret_value() if a.password else None)
    return ArcadeDBEngine(
        password=password, database=a.database, host=a.host, bolt_port=a.bolt_port, http_port=a.http_port,
        write_gate=settings.graph.data_dir / WRITE_GATE,
    )  # fmt: skip


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
WRITE_GATE = "engine.writes"  # every command's writers share its lock; a purge takes it alone (graph.session.WriteGate)
ENGINE_WATCH_S = 1.0  # how often an owner serving others looks whether its engine child still runs
UNANSWERED_GRACE_S = 15.0  # how long a shared owner whose engine does not answer has to notice it and end
# a claim goes through at most this many hand-overs: an owner that serves nothing cleared, a background engine
# started, then joined (and again when another command's engine stops or starts meanwhile)
HANDOVERS = 5
SETTLE_S = 10.0  # how long a lock held by no live owner on record may take to be let go (see `_acquired`)


@dataclass
class _Claim:
    """How this process reaches the embedded engine: it started it (`server`, holding `lock`), or it joined a
    shared one (`token` to check, `joined` held while it runs)."""

    server: ArcadeDBServer | None = None
    lock: DataDirLock | None = None
    token: str | None = None
    joined: Joined | None = None
    schema: str = ""  # the shared engine's schema set-up (OwnerRecord.schema)


def _claim(settings: Settings, engine: ArcadeDBEngine, *, shared: bool, command: str | None) -> _Claim:
    """Own the data directory and start its engine, or join the shared engine that serves it. A one-shot command
    (not `shared`) with ENGINE_IDLE_MINUTES set starts the engine in the background instead and joins it, so the
    next commands join it too."""
    data_dir = settings.graph.data_dir
    wait = settings.arcadedb.start_timeout + 30
    for _ in range(HANDOVERS):
        lock = DataDirLock(data_dir)
        if _acquired(lock, command or _command(), shared=shared):
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
        if owner is not None and owner.shared and owner.ready and not listening(engine.host, engine.bolt_port):
            _unanswered(data_dir, owner)  # its engine is gone: the directory is free again, or one line says why not
            continue
        if owner is None or not owner.shared or not listening(engine.host, engine.bolt_port):
            raise DataDirBusy(busy_message(data_dir, owner or lock.owner()))
        joined = Joined(data_dir)
        if joined.enter():
            return _Claim(token=owner.token, joined=joined, schema=owner.schema)
        wait_until_gone(data_dir, wait)  # it is stopping, idle: start it again
    raise DataDirBusy(busy_message(data_dir, DataDirLock(data_dir).owner()))


def _acquired(lock: DataDirLock, command: str, *, shared: bool) -> bool:
    """`lock.acquire`, waiting while the lock is held by no live owner on record: one ending (its record says a pid
    that is gone, or is removed already, while the kernel drops the lock only once its last thread has exited) or
    one starting (it writes its record just after taking the lock). False once a live owner holds it: the caller
    hands over to that owner. Without this wait a claim read the same gone owner again and again within
    milliseconds and ran out of hand-overs."""
    deadline = time.monotonic() + SETTLE_S
    while not lock.acquire(command, shared=shared):
        owner = lock.owner()
        if (owner is not None and process_alive(owner.pid)) or time.monotonic() > deadline:
            return False
        time.sleep(0.1)
    return True


def _unanswered(data_dir: Path, owner: OwnerRecord) -> None:
    """A shared owner says it serves, but nothing answers on its port: its engine died or hangs. The owner ends
    by itself once it sees its engine gone (`Runtime.engine_ended`); one started in the background that does not
    is stopped (nothing of it serves anyone); any other owner is named, with what to do, in one line."""
    if wait_until_gone(data_dir, UNANSWERED_GRACE_S):
        return
    engine_gone = owner.engine_pid is None or not process_alive(owner.engine_pid)  # not one serving other ports
    if owner.command == BACKGROUND and engine_gone and stop_owner(owner, timeout=UNANSWERED_GRACE_S, force=True):
        return
    engine = f"its engine (pid {owner.engine_pid})" if owner.engine_pid else "its engine"
    raise DataDirBusy(
        f"{data_dir} is held by `{owner.command}` (pid {owner.pid}), but {engine} does not answer: "
        f"stop it (`kill {owner.pid}`), then run the command again"
    )


ENGINE_SECRETS = ("ARCADEDB_PASSWORD",)  # of the secrets a deployment sets, those serving the engine needs


def serving_environment(environ: Mapping[str, str]) -> dict[str, str]:
    """`serve-db`'s environment: this process's without the secrets serving the engine does not need (the bot's
    token, the LLM's key, Neo4j's password, a URL with credentials: `child_environment`'s rule), its own kept."""
    return child_environment(environ, "") | {key: environ[key] for key in ENGINE_SECRETS if key in environ}


def drop_secrets() -> None:
    """Start this process again without the secrets it does not need, when its environment holds any (a process's
    /proc/<pid>/environ keeps what it was started with, whatever it unsets later); the same pid and arguments."""
    clean = serving_environment(os.environ)
    if clean != dict(os.environ):
        os.execve(sys.executable, [sys.executable, "-m", "grapevine", *sys.argv[1:]], clean)


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
            env=serving_environment(os.environ),
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
        time.sleep(HANDOVER_POLL_S)


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
    store = writer(engine)
    runtime: Runtime | None = None
    try:
        await reachable(store)
        if claim.token is not None and await owner_token(store) != claim.token:
            raise DataDirBusy(foreign_engine_message(settings.graph.data_dir, settings.arcadedb.bolt_port))
        schema = schema_version_key() if setup else ""
        if setup:
            dimension = settings.embeddings.dimension if settings.embeddings.enabled else None
            if claim.schema and claim.schema == schema:  # its owner set it up just so: only its record is checked
                await check_schema(store, settings.embeddings.model, dimension)
            else:
                await setup_schema(store, settings.embeddings.model, dimension)
        if lock is not None and lock.record is not None:
            await set_owner_token(store, lock.record.token)
            lock.serving(schema)
        runtime = Runtime(store, engine, server is not None, server)
        yield runtime
    finally:
        if runtime is not None:
            await runtime.close_reader()
        await store.close()
        if server:
            server.stop()
        if lock is not None:
            lock.release()
        if claim.joined is not None:
            claim.joined.leave()
