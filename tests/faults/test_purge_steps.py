"""The purge of ArcadeDB's files (graph/engines/arcadedb_purge.py) in its two steps: every index rebuilt in one
script, then the database closed and opened again so its write-ahead log goes. A rebuild that fails is named
(the rebuilds run again one at a time to tell which), and the log is then left for the next purge; after a
purge the same driver reads and writes as before."""

from __future__ import annotations

from typing import Any

import pytest

from graph.engines.arcadedb import ArcadeDBEngine
from graph.engines.arcadedb_purge import quoted_name, type_indexes
from graph.privacy.forget import forget_user
from graph.privacy.purge import purge_if_due
from graph.store import GraphStore
from tests.support.busy_server import PEOPLE, populate

pytestmark = pytest.mark.parametrize("store", ["arcadedb"], indirect=True)  # Neo4j has no index files to purge


async def _index_names(engine: ArcadeDBEngine) -> list[str]:
    return [i["name"] for i in type_indexes((await engine.sql("SELECT FROM schema:indexes"))["result"])]


async def test_a_purge_rebuilds_every_index_drops_the_log_and_the_driver_still_serves(store: GraphStore) -> None:
    await populate(store)
    await forget_user(store, PEOPLE["charlie"])
    engine = store.engine
    assert isinstance(engine, ArcadeDBEngine)
    reader = await engine.reader_driver()  # an operator's read-only session, open across the purge (the explorer)
    before = await reader.execute_query("MATCH (u:User) RETURN count(u) AS n", database_=engine.database)

    report = await engine.purge_deleted()

    assert not report.failed and report.log_dropped
    assert sorted(report.rebuilt) == sorted(await _index_names(engine))
    await store.driver.execute_query("CREATE (:Probe {n: 1})", database_=engine.database)
    found = await store.driver.execute_query("MATCH (p:Probe) RETURN p.n AS n", database_=engine.database)
    assert [r["n"] for r in found.records] == [1]
    after = await reader.execute_query("MATCH (u:User) RETURN count(u) AS n", database_=engine.database)
    assert after.records[0]["n"] == before.records[0]["n"] > 0
    await reader.close()
    assert (await engine.purge_deleted()).rebuilt  # every property is declared now: a second purge needs none


async def test_a_rebuild_that_fails_is_named_and_the_log_waits_for_the_next_purge(store: GraphStore, monkeypatch: Any) -> None:
    """The engine answers an index's rebuild with an error, as ArcadeDB does over HTTP (a RuntimeError carrying
    its status): in the script, and when that index is rebuilt alone."""
    await populate(store)
    await forget_user(store, PEOPLE["charlie"])
    engine = store.engine
    assert isinstance(engine, ArcadeDBEngine)
    broken = f"REBUILD INDEX {quoted_name('fact_text')}"
    sql, sql_script, reopened = engine.sql, engine.sql_script, []

    async def failing_sql(command: str, timeout: float = 60.0) -> dict[str, Any]:  # noqa: ASYNC109
        if broken in command:
            raise RuntimeError("ArcadeDB HTTP 500: Error on rebuilding index 'fact_text' (injected)")
        return await sql(command, timeout)

    async def failing_script(script: str, timeout: float = 60.0) -> dict[str, Any]:  # noqa: ASYNC109
        if broken in script:
            raise RuntimeError("ArcadeDB HTTP 500: Error on rebuilding index 'fact_text' (injected)")
        return await sql_script(script, timeout)

    async def reopen() -> None:
        reopened.append(True)

    monkeypatch.setattr(engine, "sql", failing_sql)
    monkeypatch.setattr(engine, "sql_script", failing_script)
    monkeypatch.setattr(engine, "reopen_database", reopen)

    report = await engine.purge_deleted()

    assert list(report.failed) == ["fact_text"] and "injected" in report.failed["fact_text"]
    assert sorted(report.rebuilt) == sorted(set(await _index_names(engine)) - {"fact_text"})
    assert not report.log_dropped and not reopened
    monkeypatch.undo()
    assert (await purge_if_due(store)).failed == {}  # the next purge does all of it
