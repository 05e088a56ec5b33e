"""Operator queries rested on one regex."""

from __future__ import annotations

import pytest

from graph.reads.operator import read_rolled_back
from graph.store import GraphStore
from graph.store import reader as open_reader
from tests.support.busy_server import populate


async def test_the_engine_itself_refuses_what_the_regex_might_miss(store: GraphStore) -> None:
    """Sent past the regex, `CALL { CREATE ... } IN TRANSACTIONS` persisted through
    the rolled-back read transaction and `LOAD CSV FROM 'file:///etc/passwd'` returned the file's lines.
    Operator queries now run as a user of a group that may only read records."""
    if store.engine.name != "arcadedb":
        pytest.skip("Neo4j enforces READ sessions itself; its per-user roles are an Enterprise feature")
    from neo4j.exceptions import Forbidden

    await populate(store)
    reader = await open_reader(store.engine)
    try:
        rows = await read_rolled_back(reader, "MATCH (f:Fact) RETURN count(f) AS n", {})
        assert rows[0]["n"] > 0, "the reader reads"
        for text in (
            "CALL { CREATE (:Fact {uuid: 'evil', text: 'planted'}) } IN TRANSACTIONS RETURN 1 AS one",
            "LOAD CSV FROM 'file:///etc/passwd' AS line RETURN line",
        ):
            with pytest.raises(Forbidden):
                await read_rolled_back(reader, text, {})
        # a plain SET is not checked until commit, and this transaction never commits
        await read_rolled_back(reader, "MATCH (f:Fact) SET f.text = 'overwritten' RETURN 1", {})
    finally:
        await reader.close()
    records, _, _ = await store.driver.execute_query(
        "MATCH (f:Fact) WHERE f.uuid = 'evil' OR f.text = 'overwritten' RETURN count(f) AS n", database_=store.engine.database
    )
    assert records[0]["n"] == 0
