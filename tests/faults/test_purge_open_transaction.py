"""A transaction open while the engine-file purge closes and reopens ArcadeDB's database is gone when it next
runs: the engine answers Neo.ClientError.Transaction.TransactionNotFound. The work was not lost, only its
transaction: the runner replays the unit of work, as for a conflict."""

from __future__ import annotations

import pytest
from neo4j.exceptions import ClientError, Neo4jError

from graph.engines.arcadedb import ArcadeDBEngine
from graph.session import Runner, Tx, transient
from graph.store import GraphStore
from tests.support.busy_server import populate

NOT_FOUND = "Neo.ClientError.Transaction.TransactionNotFound"


def test_a_transaction_lost_to_a_reopened_database_is_transient() -> None:
    exc = Neo4jError._hydrate_neo4j(code=NOT_FOUND, message="Transaction not found")  # as the driver builds it
    assert isinstance(exc, ClientError) and transient(exc)


def test_other_client_errors_stay_permanent() -> None:
    for code in ("Neo.ClientError.Statement.SyntaxError", "Neo.ClientError.Transaction.TransactionTimedOut"):
        assert not transient(Neo4jError._hydrate_neo4j(code=code, message="no")), code


@pytest.mark.parametrize("store", ["arcadedb"], indirect=True)  # Neo4j has no index files to purge
async def test_a_read_across_a_purge_is_replayed(store: GraphStore) -> None:
    await populate(store)
    engine = store.engine
    assert isinstance(engine, ArcadeDBEngine)
    runner = Runner(store.driver, engine.database, attempts=3)
    tries = 0

    async def read(tx: Tx) -> int:
        nonlocal tries
        tries += 1
        found = await (await tx.run("MATCH (u:User) RETURN count(u) AS n")).single()
        if tries == 1:
            await engine.purge_deleted()  # another client's purge, while this transaction is open: its commit fails
        assert found is not None
        return int(found["n"])

    assert await runner.read_tx(read) > 0
    assert tries == 2
