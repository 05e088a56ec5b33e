"""Running the project's Cypher files on a driver: read and write transactions, retried when transient."""

from __future__ import annotations

import asyncio
import fcntl
import secrets
from collections.abc import AsyncIterator, Awaitable, Callable, Mapping
from contextlib import asynccontextmanager
from pathlib import Path
from typing import IO, Any, TypeVar

from neo4j import (
    READ_ACCESS,
    WRITE_ACCESS,
    AsyncDriver,
    AsyncManagedTransaction,
    AsyncSession,
)
from neo4j.api import AsyncBookmarkManager
from neo4j.exceptions import (
    ConstraintError,
    DatabaseUnavailable,
    Neo4jError,
    ServiceUnavailable,
    SessionExpired,
    TransientError,
)
from tenacity import (
    AsyncRetrying,
    RetryCallState,
    retry_if_exception,
    wait_random_exponential,
)

import queries
from common.files import private_dir, private_opener
from graph import counts
from graph.changes import DECLARED, Change, Changes, Declared, touches

T = TypeVar("T")
Tx = AsyncManagedTransaction


CONFLICT_PATIENCE = 120.0  # seconds a unit of work that keeps losing conflicts is replayed (a large forget's commit holds locks)


def conflict(exc: BaseException) -> bool:
    """Another transaction won and the engine asks for the work to be replayed: a transient error, or one of
    ArcadeDB's conflicts (a page or record changed meanwhile) under another code, whose message says "Please
    retry"."""
    if isinstance(exc, TransientError):
        return True
    return isinstance(exc, Neo4jError) and "please retry" in str(getattr(exc, "message", None) or exc).casefold()


# ArcadeDB's engine-file purge closes and reopens the database under the running engine: a transaction
# another client held open then is gone, though its work is not, and the unit of work can run again.
LOST_TRANSACTION = "Neo.ClientError.Transaction.TransactionNotFound"


def transient(exc: BaseException) -> bool:
    # ArcadeDB reports a lost MERGE race on a unique key as ConstraintError where Neo4j would
    # serialize; every write here is idempotent, so replaying the whole transaction is safe.
    if isinstance(exc, Neo4jError) and exc.code == LOST_TRANSACTION:
        return True
    return conflict(exc) or isinstance(exc, ServiceUnavailable | SessionExpired | DatabaseUnavailable | ConstraintError)


def _stop(attempts: int, patience: float) -> Callable[[RetryCallState], bool]:
    """After `attempts`; a unit of work that keeps losing conflicts is replayed until `patience` seconds too."""

    def stop(state: RetryCallState) -> bool:
        if state.attempt_number < attempts:
            return False
        failed = state.outcome.exception() if state.outcome is not None else None
        return not (failed is not None and conflict(failed) and (state.seconds_since_start or 0.0) < patience)

    return stop


@asynccontextmanager
async def _nothing() -> AsyncIterator[None]:
    yield


async def run(tx: Tx, name: str, /, **params: Any) -> list[dict[str, Any]]:
    """Run one query file inside a transaction; rows as dicts (nodes and relationships turned into dicts). One that
    creates or deletes what each guild's counts keep moves them in the same transaction (graph/counts.py)."""
    if name in counts.COUNTED:
        return await counts.counted_run(tx, name, lambda: run_text(tx, queries.load(name), **params), params)
    return await run_text(tx, queries.load(name), **params)


async def run_text(tx: Tx, text: str, /, **params: Any) -> list[dict[str, Any]]:
    """`run` for a statement read from a file elsewhere (an operator's, a benchmark's)."""
    result = await tx.run(text, params)
    return [record.data() async for record in result]


async def run_plain(tx: Tx | AsyncSession, name: str, /, **params: Any) -> list[dict[str, Any]]:
    """`run` for a query returning only values, lists and maps (no nodes): rows as they arrive, without
    the driver's recursive conversion (a reply's reads spent a third of their client time in it)."""
    result = await tx.run(queries.load(name), params)
    keys = result.keys()
    return [dict(zip(keys, values)) for values in await result.values()]


GATE_POLL_S = 0.05  # how often a writer or a purge waiting for the gate's file lock tries again


async def _count_changes(tx: Tx, declared: Declared) -> list[Change]:
    seed = secrets.randbelow(1 << 40) << 12  # a guild node made again counts from far away (bump_changes.cypher)
    every = not declared.said or declared.guild_ids is None
    if not every and not declared.guild_ids:
        return []
    if every:
        rows = await run(tx, "store/bump_all_changes", seed=seed)
    else:
        rows = await run(tx, "store/bump_changes", guild_ids=sorted(declared.guild_ids or ()), seed=seed)
    facts = declared.facts or not declared.said
    known = None if not declared.said or declared.fact_uuids is None else frozenset(declared.fact_uuids)
    entities = frozenset(declared.entity_uuids)
    said = None if every or declared.messages is None else declared.messages

    def messages(guild_id: str) -> tuple[Mapping[str, Any], ...] | None:
        return None if said is None else tuple(m for m in said if m["guild_id"] == guild_id)

    counted = [
        Change(str(r["guild_id"]), int(r["changes"]), facts, known, entities, every, messages(str(r["guild_id"]))) for r in rows
    ]
    # a named guild whose node the write deleted has no count left: 0 is none a holder was read at
    gone = sorted((declared.guild_ids or set()) - {c.guild_id for c in counted}) if not every else []
    return counted + [Change(g, 0, True, None, frozenset(), every) for g in gone]


class WriteGate:
    """The writers of one database pass it together; a purge (the engine's files rebuilt, the database closed and
    opened again: graph/privacy/purge.py) has it alone, so no write meets an index being rebuilt or a database
    being reopened: writers wait for the purge, the purge for the writers in flight. Within this process by
    counting; across the processes sharing the engine (the bot, a CLI `forget`, an `import`) by a lock on `path`
    (shared while this process writes, exclusive while it purges), when the engine has one."""

    def __init__(self, path: Path | None = None) -> None:
        self.path = path
        self._writers = 0
        self._purging = False
        self._changed: asyncio.Condition | None = None
        self._file: IO[str] | None = None

    def _condition(self) -> asyncio.Condition:
        if self._changed is None:  # made in the loop that first uses it
            self._changed = asyncio.Condition()
        return self._changed

    async def _lock_file(self, operation: int) -> None:
        if self.path is None or self._file is not None:
            return
        private_dir(self.path.parent)  # a command's first write may come before anything made the data directory
        handle = open(self.path, "a+", encoding="utf-8", opener=private_opener)  # noqa: ASYNC230 - a local lock file: no wait
        while True:
            try:
                fcntl.flock(handle, operation | fcntl.LOCK_NB)
            except BlockingIOError:
                await asyncio.sleep(GATE_POLL_S)
                continue
            self._file = handle
            return

    def _unlock_file(self) -> None:
        if self._file is not None:
            fcntl.flock(self._file, fcntl.LOCK_UN)
            self._file.close()
            self._file = None

    @asynccontextmanager
    async def writing(self) -> AsyncIterator[None]:
        changed = self._condition()
        async with changed:
            await changed.wait_for(lambda: not self._purging)
            self._writers += 1
            try:
                await self._lock_file(fcntl.LOCK_SH)  # the first writer takes it for every writer of this process
            except BaseException:
                self._writers -= 1
                changed.notify_all()
                raise
        try:
            yield
        finally:
            async with changed:
                self._writers -= 1
                if self._writers == 0:
                    self._unlock_file()
                changed.notify_all()

    @asynccontextmanager
    async def alone(self) -> AsyncIterator[None]:
        changed = self._condition()
        async with changed:
            await changed.wait_for(lambda: not self._purging)
            self._purging = True  # no new writer from here
            await changed.wait_for(lambda: self._writers == 0)
        try:
            await self._lock_file(fcntl.LOCK_EX)
            yield
        finally:
            async with changed:
                self._unlock_file()
                self._purging = False
                changed.notify_all()


class Runner:
    """One database on one driver; every unit of work is a transaction function, retried as a whole.

    Every session and `statement` shares the driver's bookmark manager, so work is causally chained: on a
    Neo4j cluster a read routed to another member waits until it holds every write this process committed.
    """

    def __init__(
        self,
        driver: AsyncDriver,
        database: str,
        *,
        attempts: int = 5,
        bookmarks: AsyncBookmarkManager | None = None,
        patience: float = CONFLICT_PATIENCE,
        gate: WriteGate | None = None,
    ) -> None:
        self.gate = gate if gate is not None else WriteGate()
        self.driver = driver
        self.database = database
        self.attempts = attempts
        self.patience = patience
        self.bookmarks = bookmarks if bookmarks is not None else driver.execute_query_bookmark_manager
        self.changes = Changes()

    async def _retried(self, access: str, work: Callable[[AsyncSession], Awaitable[T]]) -> T:
        async for attempt in AsyncRetrying(
            retry=retry_if_exception(transient),
            stop=_stop(self.attempts, self.patience),
            wait=wait_random_exponential(multiplier=0.05, max=2.0),
            reraise=True,
        ):
            with attempt:
                async with (
                    self.gate.writing() if access == WRITE_ACCESS else _nothing(),
                    self.driver.session(
                        database=self.database, default_access_mode=access, bookmark_manager=self.bookmarks
                    ) as session,
                ):
                    return await work(session)
        raise AssertionError("unreachable")

    async def _session_work(self, access: str, work: Callable[[Tx], Awaitable[T]]) -> T:
        if access == READ_ACCESS:
            return await self._retried(access, lambda session: session.execute_read(work))
        return await self._retried(access, lambda session: session.execute_write(work))

    async def write(self, work: Callable[[Tx], Awaitable[T]]) -> T:
        """`work` in one write transaction, ended by its guilds' change counts (graph/changes.py); the counts
        committed go to `changes`' listeners before this returns."""
        counted: list[Change] = []

        async def with_count(tx: Tx) -> T:
            declared = Declared()
            token = DECLARED.set(declared)
            try:
                result = await work(tx)
            finally:
                DECLARED.reset(token)
            counted[:] = await _count_changes(tx, declared)
            return result

        result = await self._session_work(WRITE_ACCESS, with_count)
        self.changes.committed(counted)
        return result

    async def read_tx(self, work: Callable[[Tx], Awaitable[T]]) -> T:
        return await self._session_work(READ_ACCESS, work)

    async def read(self, name: str, /, **params: Any) -> list[dict[str, Any]]:
        return await self.read_tx(lambda tx: run(tx, name, **params))

    async def read_plain(self, name: str, /, **params: Any) -> list[dict[str, Any]]:
        """One read-only statement as an auto-commit transaction (no BEGIN and COMMIT round trips), its
        rows as `run_plain` gives them; retried as a whole when transient, like every unit of work."""
        return await self._retried(READ_ACCESS, lambda session: run_plain(session, name, **params))

    async def write_one(self, name: str, /, **params: Any) -> list[dict[str, Any]]:
        return await self.write(lambda tx: run(tx, name, **params))

    async def write_guilds(self, guild_ids: list[str], facts: bool, name: str, /, **params: Any) -> list[dict[str, Any]]:
        """One statement that writes only `guild_ids` (and, with `facts`, what a reply's facts read)."""

        async def work(tx: Tx) -> list[dict[str, Any]]:
            touches(guild_ids, facts=facts)
            return await run(tx, name, **params)

        return await self.write(work)

    async def statement(self, text: str, /, **params: Any) -> list[dict[str, Any]]:
        """A schema statement (DDL runs outside explicit transactions on Neo4j)."""
        records, _, _ = await self.driver.execute_query(text, params, database_=self.database, bookmark_manager_=self.bookmarks)
        return [r.data() for r in records]
