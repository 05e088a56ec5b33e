"""Running the project's Cypher files on a driver: read and write transactions, retried when transient."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any, TypeVar

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


async def run(tx: Tx, name: str, /, **params: Any) -> list[dict[str, Any]]:
    """Run one query file inside a transaction; rows as dicts (nodes and relationships turned into dicts)."""
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
    ) -> None:
        self.driver = driver
        self.database = database
        self.attempts = attempts
        self.patience = patience
        self.bookmarks = bookmarks if bookmarks is not None else driver.execute_query_bookmark_manager

    async def _retried(self, access: str, work: Callable[[AsyncSession], Awaitable[T]]) -> T:
        async for attempt in AsyncRetrying(
            retry=retry_if_exception(transient),
            stop=_stop(self.attempts, self.patience),
            wait=wait_random_exponential(multiplier=0.05, max=2.0),
            reraise=True,
        ):
            with attempt:
                async with self.driver.session(
                    database=self.database,
                    default_access_mode=access,
                    bookmark_manager=self.bookmarks,
                ) as session:
                    return await work(session)
        raise AssertionError("unreachable")

    async def _session_work(self, access: str, work: Callable[[Tx], Awaitable[T]]) -> T:
        if access == READ_ACCESS:
            return await self._retried(access, lambda session: session.execute_read(work))
        return await self._retried(access, lambda session: session.execute_write(work))

    async def write(self, work: Callable[[Tx], Awaitable[T]]) -> T:
        return await self._session_work(WRITE_ACCESS, work)

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

    async def statement(self, text: str, /, **params: Any) -> list[dict[str, Any]]:
        """A schema statement (DDL runs outside explicit transactions on Neo4j)."""
        records, _, _ = await self.driver.execute_query(text, params, database_=self.database, bookmark_manager_=self.bookmarks)
        return [r.data() for r in records]
