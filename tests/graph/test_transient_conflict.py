"""Two writers on one record: ArcadeDB answers the loser with "Concurrent modification ... Please retry" (MVCC, at
commit). That is a transient conflict: the runner replays the unit of work, as the engine asks, instead of
failing the whole forget or import beside it."""

from __future__ import annotations

import asyncio

from neo4j.exceptions import Neo4jError, TransientError

from graph.session import Runner, Tx, conflict, transient
from graph.store import GraphStore


async def _conflict(store: GraphStore) -> Neo4jError:
    """Make the engine refuse a commit because another transaction changed the record meanwhile."""
    await store.runner.statement("CREATE (:Counter {key: 'c', n: 0})")
    driver, db = store.driver, store.engine.database
    async with driver.session(database=db) as first, driver.session(database=db) as second:
        one = await first.begin_transaction()
        two = await second.begin_transaction()
        await (await one.run("MATCH (c:Counter {key: 'c'}) SET c.n = c.n + 1")).consume()
        await (await two.run("MATCH (c:Counter {key: 'c'}) SET c.n = c.n + 10")).consume()
        await two.commit()
        try:
            await one.commit()
        except Neo4jError as exc:
            return exc
    raise AssertionError("the engine took both commits")


async def test_a_concurrent_modification_is_transient(store: GraphStore) -> None:
    exc = await _conflict(store)
    assert transient(exc), (type(exc).__name__, exc.code, str(exc)[:200])


async def test_the_runner_replays_a_unit_of_work_that_lost_a_conflict(store: GraphStore) -> None:
    await store.runner.statement("CREATE (:Counter {key: 'c', n: 0})")
    runner = Runner(store.driver, store.engine.database, attempts=8)
    gate = asyncio.Event()

    async def bump(tx: Tx, by: int, wait: bool) -> None:
        await (await tx.run("MATCH (c:Counter {key: 'c'}) SET c.n = c.n + $by", by=by)).consume()
        if wait and not gate.is_set():
            gate.set()
            await asyncio.sleep(0.5)  # the other writer commits meanwhile

    async def other() -> None:
        await gate.wait()
        await runner.write(lambda tx: bump(tx, 10, False))

    await asyncio.gather(runner.write(lambda tx: bump(tx, 1, True)), other())
    found = await store.driver.execute_query("MATCH (c:Counter {key: 'c'}) RETURN c.n AS n", database_=store.engine.database)
    assert found.records[0]["n"] == 11


async def test_conflicts_are_replayed_past_the_attempts_while_patience_lasts(store: GraphStore) -> None:
    """A writer beside a large forget loses conflicts for as long as the forget's commit holds its locks (seconds
    to minutes): it is replayed until then, not failed after a fixed count."""
    runner = Runner(store.driver, store.engine.database, attempts=2, patience=30.0)
    lost = 0

    async def work(tx: Tx) -> str:
        nonlocal lost
        if lost < 6:
            lost += 1
            raise TransientError._hydrate_neo4j(code="Neo.TransientError.Transaction.DeadlockDetected", message="Please retry")
        return "done"

    assert await runner.write(work) == "done" and lost == 6


async def test_a_conflict_under_a_general_code_is_transient() -> None:
    """Some of ArcadeDB's conflicts arrive as a general error whose message asks for a retry."""
    exc = Neo4jError._hydrate_neo4j(
        code="Neo.DatabaseError.General.UnknownError",
        message="Concurrent modification on page PageId(c/10/0) in file 'Message_0.bucket' (current v.5 <> database v.6). "
        "Please retry the operation (threadId=42)",
    )
    assert transient(exc) and conflict(exc)
    assert not conflict(Neo4jError._hydrate_neo4j(code="Neo.ClientError.Statement.EntityNotFound", message="not found"))
