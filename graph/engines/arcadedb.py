"""ArcadeDB, the embedded default engine: a child process the project starts and stops.

The server listens on loopback only: Bolt for every query (the same driver code as Neo4j) and
HTTP for the few things Bolt cannot do (ArcadeDB SQL for search indexes, creating databases).
"""

from __future__ import annotations

import asyncio
import base64
import hashlib
import json
import os
import re
import secrets
import subprocess
import sys
import threading
import urllib.error
import urllib.request
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, cast

from neo4j import AsyncDriver, AsyncGraphDatabase

import queries
from common.files import create_private, private_dir, private_opener
from common.urls import mask_credentials
from graph.engines.arcadedb_child import READER_GROUP
from graph.engines.arcadedb_purge import PurgeReport, purge_files, type_indexes

# the purge's close and open of the database take under a second; a request meanwhile waits this long for it
REOPEN_WAIT_S = 30.0
REOPEN_POLL_S = 0.1


class EngineStartError(RuntimeError):
    """The embedded engine did not come up; the message says why and where its log is."""


def password_for(data_dir: Path, configured: str | None) -> str:
    """The configured root password, or one generated once and kept in the data folder (a file 0600 from its
    first byte)."""
    if configured:
        return configured
    path = data_dir / "arcadedb.password"
    if not path.exists():
        create_private(path, secrets.token_urlsafe(18))  # False: another process made it first, and it stands
    return path.read_text(encoding="utf-8").strip()


GUILD_TERM = "guild_term"  # the property every full-text index holds beside the text (queries/schema/arcadedb_fulltext.sql)


def _flat(properties: list[Any]) -> list[str]:
    return [p for group in properties for p in (group if isinstance(group, list) else [group])]


_CREATE_INDEX = re.compile(r"CREATE INDEX `?(\w+)`? IF NOT EXISTS ON \w+ \(([^)]*)\)", re.IGNORECASE)


def _created_indexes(sql: str) -> set[tuple[str, tuple[str, ...]]]:
    """The indexes an ArcadeDB SQL file creates: each name with its properties, as schema:indexes lists them."""
    return {(name, tuple(p.strip() for p in properties.split(","))) for name, properties in _CREATE_INDEX.findall(sql)}


_SECRET_NAME = re.compile(r"PASS|TOKEN|SECRET|KEY|CREDENTIAL|AUTH", re.IGNORECASE)


def child_environment(environ: Mapping[str, str], password: str) -> dict[str, str]:
    """The engine child's environment: this process's, less whatever may be a secret (a variable named like
    one, a URL with credentials, the root password anywhere). /proc shows a process's environment to its user
    only, but the child needs none of them, nor do the processes it starts."""
    return {
        key: value
        for key, value in environ.items()
        if not _SECRET_NAME.search(key) and mask_credentials(value) == value and not (password and password in value)
    }


@dataclass
class ArcadeDBEngine:
    """Connection facts for a running ArcadeDB server (started here or by `grapevine serve-db`)."""

    password: str = field(repr=False)
    database: str = "grapevine"
    host: str = "127.0.0.1"
    bolt_port: int = 7688
    http_port: int = 2480
    name: str = "arcadedb"
    write_gate: Path | None = None  # the data directory's writers' lock (graph.session.WriteGate), when it has one

    @property
    def uri(self) -> str:
        return f"bolt://{self.host}:{self.bolt_port}"

    def driver(self) -> AsyncDriver:
        # graph.session.Runner retries a transaction as a whole: the driver must not retry it again inside
        return AsyncGraphDatabase.driver(self.uri, auth=("root", self.password), max_transaction_retry_time=0)

    async def reader_driver(self) -> AsyncDriver:
        """A driver whose user may only read this database's records (group READER_GROUP, written into the
        server's groups by arcadedb_child): operator queries run as it, so a write, `LOAD CSV` or a
        `CALL { } IN TRANSACTIONS` is refused by the engine itself. The user is created on first use."""
        name, password = self.reader_auth()
        user = {"name": name, "password": password, "databases": {self.database: READER_GROUP}}
        try:
            await asyncio.to_thread(self._post, "/api/v1/server", {"command": "create user " + json.dumps(user)})
        except RuntimeError as exc:
            if "already exists" not in str(exc):
                raise
        return AsyncGraphDatabase.driver(self.uri, auth=(name, password), max_transaction_retry_time=0)

    def reader_auth(self) -> tuple[str, str]:
        """The read-only user's name and password for this database."""
        return f"{READER_GROUP}_{self.database}", hashlib.sha256(f"grapevine-reader\0{self.password}".encode()).hexdigest()

    def for_database(self, database: str) -> ArcadeDBEngine:
        """The same server, another database (one database per driver: see ENGINES.md)."""
        return ArcadeDBEngine(self.password, database, self.host, self.bolt_port, self.http_port)

    async def create_search_indexes(self, driver: AsyncDriver, embedding_dimension: int | None) -> None:
        """The full-text indexes (and the vector index when embeddings are on), each file's statements run only
        when one of its indexes is missing: every command sets the schema up, and an index there with its
        properties has its type and properties there too."""
        listed = [i for i in (await self.sql("SELECT FROM schema:indexes"))["result"] if "fileId" not in i]
        present = {(str(i.get("name")), tuple(_flat(i.get("properties") or []))) for i in listed}
        # each file's statements in one request (an SQL script, stopping at its first error): a fresh store runs them
        # all, and a round trip costs more than the statement on a busy machine
        if any(i["indexType"] == "FULL_TEXT" and GUILD_TERM not in _flat(i["properties"]) for i in type_indexes(listed)):
            drop = (queries.ROOT / "schema/arcadedb_drop_fulltext.sql").read_text(encoding="utf-8")
            await self.sql_script(";\n".join(queries.statements(drop)))  # set up before guild_term was indexed
            present = set()
        names = ["schema/arcadedb_fulltext"] + (["schema/arcadedb_vector"] if embedding_dimension else [])
        for name in names:
            text = (queries.ROOT / f"{name}.sql").read_text(encoding="utf-8")
            wanted = _created_indexes(text)
            if wanted and wanted <= present:
                continue
            # the only value put in is the configured dimension, an int
            await self.sql_script(
                ";\n".join(queries.statements(text.replace("{dimensions}", str(int(embedding_dimension or 0)))))
            )

    async def purge_deleted(self) -> PurgeReport:
        return await purge_files(self)

    async def sql(self, command: str, timeout: float = 60.0) -> dict[str, Any]:  # noqa: ASYNC109 - the HTTP request's, in a thread
        return await self._command({"language": "sql", "command": command}, timeout)

    async def sql_script(self, script: str, timeout: float = 60.0) -> dict[str, Any]:  # noqa: ASYNC109 - as sql's
        """Statements separated by `;` in one request, run in order until one fails (ArcadeDB's `sqlscript`)."""
        return await self._command({"language": "sqlscript", "command": script}, timeout)

    async def _command(self, body: dict[str, Any], timeout: float) -> dict[str, Any]:  # noqa: ASYNC109 - as sql's
        """A command request; while a purge (maybe another process's) has the database closed to drop its log, the
        request waits for it to open again, up to REOPEN_WAIT_S."""
        waited = 0.0
        while True:
            try:
                return await asyncio.to_thread(self._post, f"/api/v1/command/{self.database}", body, timeout)
            except RuntimeError as exc:
                if "DatabaseIsClosedException" not in str(exc) or waited >= REOPEN_WAIT_S:
                    raise
            await asyncio.sleep(REOPEN_POLL_S)
            waited += REOPEN_POLL_S

    async def reopen_database(self) -> None:
        """Close the database (its pages flushed, its write-ahead log deleted) and open it again. Bolt
        connections stay open and reach the reopened database."""
        await asyncio.to_thread(self._post, "/api/v1/server", {"command": f"close database {self.database}"})
        await asyncio.to_thread(self._post, "/api/v1/server", {"command": f"open database {self.database}"})

    async def create_database(self) -> None:
        await asyncio.to_thread(self._post, "/api/v1/server", {"command": f"create database {self.database}"})

    async def drop_database(self) -> None:
        await asyncio.to_thread(self._post, "/api/v1/server", {"command": f"drop database {self.database}"})

    async def database_exists(self) -> bool:
        listing = await asyncio.to_thread(self._get, "/api/v1/databases")
        return self.database in listing.get("result", [])

    def _request(self, req: urllib.request.Request, timeout: float = 60.0) -> dict[str, Any]:
        token = base64.b64encode(f"root:{self.password}".encode()).decode()
        req.add_header("Authorization", f"Basic {token}")
        req.add_header("Content-Type", "application/json")
        try:
            with urllib.request.urlopen(req, timeout=timeout) as resp:
                return cast(dict[str, Any], json.loads(resp.read() or b"{}"))
        except urllib.error.HTTPError as exc:
            detail = exc.read().decode("utf-8", "replace")[:500]
            raise RuntimeError(f"ArcadeDB HTTP {exc.code} on {req.full_url}: {detail}") from None

    def _post(self, path: str, body: dict[str, Any], timeout: float = 60.0) -> dict[str, Any]:
        url = f"http://{self.host}:{self.http_port}{path}"
        return self._request(urllib.request.Request(url, data=json.dumps(body).encode(), method="POST"), timeout)

    def _get(self, path: str) -> dict[str, Any]:
        return self._request(urllib.request.Request(f"http://{self.host}:{self.http_port}{path}"))


@dataclass
class ArcadeDBServer:
    """Starts the server in a child process and stops it cleanly (`with ArcadeDBServer(...) as engine`)."""

    root: Path
    engine: ArcadeDBEngine
    heap: str = "2g"
    start_timeout: float = 90.0
    aot: bool = False  # keep the JDK's AOT cache across starts (graph/engines/arcadedb_aot.py); the bot does
    aot_dir: Path | None = None  # where; None: <root>/aot
    aot_record: bool = True  # without a cache, record one as the engine stops (else start without)
    on_spawn: Callable[[int], None] | None = None  # told the child's pid before it is ready (an owner records it)
    _proc: subprocess.Popen[str] | None = field(default=None, init=False, repr=False)
    _said_ready: bool = field(default=False, init=False, repr=False)
    _tail: list[str] = field(default_factory=list, init=False, repr=False)

    def start(self) -> ArcadeDBEngine:
        private_dir(self.root)
        cfg = {
            "root": str(self.root.resolve()),
            "password": self.engine.password,
            "database": self.engine.database,
            "host": self.engine.host,
            "bolt_port": self.engine.bolt_port,
            "http_port": self.engine.http_port,
            "heap": self.heap,
            "aot": self.aot,
            "aot_dir": str(self.aot_dir.resolve()) if self.aot_dir else None,
            "aot_record": self.aot_record,
        }
        with open(self.root / "server.out", "a", encoding="utf-8", opener=private_opener) as log:
            self._proc = subprocess.Popen(
                [sys.executable, "-m", "graph.engines.arcadedb_child"],
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=log,
                text=True,
                cwd=str(Path(__file__).resolve().parents[2]),
                env=child_environment(os.environ, self.engine.password),
            )
        assert self._proc.stdin is not None
        try:  # the configuration, password included, by the pipe: never in the arguments others can list
            self._proc.stdin.write(json.dumps(cfg) + "\n")
            self._proc.stdin.flush()
        except (BrokenPipeError, OSError):
            pass  # the child exited already: reported below, with its exit code
        if self.on_spawn is not None:
            self.on_spawn(self._proc.pid)
        ready = threading.Event()
        self._said_ready = False
        threading.Thread(target=self._read_stdout, args=(ready,), daemon=True).start()
        if not ready.wait(self.start_timeout) or not self._said_ready or self._proc.poll() is not None:
            try:  # its stdout closed before READY: it is exiting (the exit code may lag behind the pipe)
                code: int | None = self._proc.wait(5) if not self._said_ready and ready.is_set() else self._proc.poll()
            except subprocess.TimeoutExpired:
                code = None
            self.stop()
            if code is not None:
                raise EngineStartError(
                    f"the embedded ArcadeDB engine exited during start (exit code {code}); "
                    f"see {self.root / 'server.out'} and {self.root / 'log'}"
                )
            raise EngineStartError(
                f"ArcadeDB did not start within {self.start_timeout:.0f}s "
                f"(Bolt {self.engine.host}:{self.engine.bolt_port}, HTTP {self.engine.http_port}); "
                f"is a port taken? see {self.root / 'server.out'} and {self.root / 'log'}"
            )
        return self.engine

    @property
    def pid(self) -> int:
        assert self._proc is not None, "not started"
        return self._proc.pid

    def _read_stdout(self, ready: threading.Event) -> None:
        assert self._proc and self._proc.stdout
        for line in self._proc.stdout:
            self._tail = (self._tail + [line.rstrip()])[-20:]
            if line.strip() == "READY":
                self._said_ready = True
                ready.set()
        ready.set()  # the child exited: wake the waiter, which checks poll()

    @property
    def running(self) -> bool:
        return self._proc is not None and self._proc.poll() is None

    @property
    def exit_code(self) -> int | None:
        """The child's exit code once it has exited by itself (None while it runs, or once stopped here)."""
        return self._proc.poll() if self._proc is not None else None

    def stop(self, timeout: float = 90.0) -> None:  # a run recording the AOT cache writes it as it stops
        proc, self._proc = self._proc, None
        if proc is None:
            return
        if proc.poll() is None:
            try:
                assert proc.stdin
                proc.stdin.write("stop\n")
                proc.stdin.flush()
                proc.stdin.close()
            except (BrokenPipeError, OSError):
                pass
            try:
                proc.wait(timeout)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait(10)

    def wait(self) -> int:
        """Block until the child exits (for `grapevine serve-db`)."""
        assert self._proc
        return self._proc.wait()

    def __enter__(self) -> ArcadeDBEngine:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()
