"""Operator queries: the engine is the defence (they run as a user that may only read), and the check before
it refuses every known way to hide a write, a procedure with side effects or an administration command from a
keyword search. Each bypass is tried against both: the check refuses it, and sent past the check, the
engine's read-only user keeps the graph unchanged."""

from __future__ import annotations

import pytest

from graph.engines.arcadedb import ArcadeDBEngine
from graph.engines.neo4j import Neo4jEngine
from graph.reads.operator import OperatorQuery, ReadOnlyViolation, check_read_only, list_queries, read_rolled_back
from graph.store import GraphStore
from graph.store import reader as open_reader
from tests.support.busy_server import populate

PLANT = "CREATE (:Planted {by: 'bypass'})"
# (what it hides, the query): each would write, run a procedure with side effects, or administer the server
BYPASSES = [
    ("a // comment ended by \\r", f"MATCH (n) RETURN count(n) AS n // note\r{PLANT}"),
    ("a // comment ended by \\r\\n", f"MATCH (n) RETURN count(n) AS n // note\r\n{PLANT}"),
    ("a // comment ended by U+2028", f"MATCH (n) RETURN count(n) AS n // note\u2028{PLANT}"),
    ("a // comment ended by U+0085", f"MATCH (n) RETURN count(n) AS n // note\x85{PLANT}"),
    ("a // comment ended by a vertical tab", f"MATCH (n) RETURN count(n) AS n // note\x0b{PLANT}"),
    ("a /* */ comment between the words", f"MATCH (n) WITH count(n) AS n /* x */ {PLANT} RETURN n"),
    ("an unclosed /* comment", f"{PLANT} /* RETURN 1"),
    ("a /* comment inside a // comment", f"RETURN 1 AS one // /* \n{PLANT} // */"),
    ("a string whose \\' the engine may not escape", f"RETURN 'it\\' AS x, 1 AS y {PLANT} //' AS z"),
    ("a string with \\\\ before its quote", f"RETURN 'a\\\\' AS x {PLANT} //'"),
    ("a double-quoted string", f'RETURN "it\\" AS x {PLANT} //"'),
    ("a unicode escape for a quote", f"RETURN 'a\\u0027 AS x {PLANT} //' AS y"),
    ("a unicode escape outside a string", "MATCH (n) \\u0053ET n.x = 1 RETURN n"),
    ("a keyword in another case", "match (f:Fact) sEt f.text = 'x' return f"),
    ("a keyword after a non-breaking space", "MATCH (f:Fact)\u00a0SET f.text = 'x' RETURN f"),
    ("LOAD CSV", "LOAD CSV FROM 'file:///etc/passwd' AS line RETURN line"),
    ("LOAD CSV with odd spaces", "LOAD\u2003CSV FROM 'file:///etc/passwd' AS line RETURN line"),
    ("IN TRANSACTIONS", f"CALL {{ {PLANT} }} IN TRANSACTIONS RETURN 1 AS one"),
    ("IN CONCURRENT TRANSACTIONS", "UNWIND [1] AS x CALL (x) { RETURN x AS y } IN CONCURRENT TRANSACTIONS RETURN y"),
    (
        "IN 2 CONCURRENT TRANSACTIONS OF 5 ROWS",
        "UNWIND [1] AS x CALL (x) { RETURN x AS y } IN 2 CONCURRENT TRANSACTIONS OF 5 ROWS RETURN y",
    ),
    ("INSERT (GQL)", "INSERT (:Planted {by: 'bypass'})"),
    ("FOREACH", "FOREACH (x IN [1] | CREATE (:Planted))"),
    ("MERGE", "MERGE (p:Planted {by: 'bypass'}) RETURN p"),
    ("DETACH DELETE", "MATCH (f:Fact) DETACH DELETE f"),
    ("NODETACH DELETE", "MATCH (f:Fact) NODETACH DELETE f"),
    ("REMOVE", "MATCH (f:Fact) REMOVE f.text RETURN f"),
    ("CALL db.createLabel", "CALL db.createLabel('Planted')"),
    ("CALL db.create.setNodeVectorProperty", "MATCH (f:Fact) CALL db.create.setNodeVectorProperty(f, 'embedding', [1.0])"),
    ("CALL db.clearQueryCaches", "CALL db.clearQueryCaches()"),
    ("a procedure name in backticks", "CALL `db`.`createLabel`('Planted')"),
    ("a procedure name spaced and commented", "CALL db . /* x */ createLabel('Planted')"),
    ("OPTIONAL CALL", "OPTIONAL CALL db.createLabel('Planted')"),
    ("CALL dbms.*", "CALL dbms.killQuery('query-1')"),
    ("CALL apoc.*", "CALL apoc.create.node(['Planted'], {by: 'bypass'})"),
    ("an apoc function", "RETURN apoc.cypher.runFirstColumnSingle('CREATE (:Planted) RETURN 1', {}) AS x"),
    ("an apoc function in backticks", "RETURN `apoc`.periodic.iterate('MATCH (n) RETURN n', 'DETACH DELETE n', {}) AS x"),
    ("TERMINATE", "TERMINATE TRANSACTIONS 'neo4j-transaction-1'"),
    ("SHOW TRANSACTIONS (other sessions' queries)", "SHOW TRANSACTIONS"),
    ("SHOW USERS", "SHOW USERS YIELD user RETURN user"),
    ("USE another graph", "USE system MATCH (n) RETURN n"),
    ("ALTER USER", "ALTER USER neo4j SET PASSWORD 'owned'"),
    ("GRANT", "GRANT ROLE admin TO reader"),
    ("DENY", "DENY READ {*} ON GRAPH * TO reader"),
    ("REVOKE", "REVOKE ROLE reader FROM grapevine"),
    ("RENAME", "RENAME USER reader TO owned"),
    ("STOP DATABASE", "STOP DATABASE neo4j"),
    ("DROP", "DROP INDEX fact_text"),
]


@pytest.mark.parametrize(("hides", "text"), BYPASSES, ids=[b[0] for b in BYPASSES])
def test_the_check_refuses_every_known_bypass(hides: str, text: str) -> None:
    with pytest.raises(ReadOnlyViolation, match="courtesy check"):
        check_read_only(OperatorQuery("bypass", "B", "A", [], text))


def test_reads_the_check_lets_through() -> None:
    for query in list_queries():
        check_read_only(query)  # every shipped query
    for text in (
        "// title: CREATE, SET and DELETE in a comment are words\nMATCH (f:Fact) RETURN f.text AS text",
        "MATCH (f:Fact) WHERE f.text CONTAINS 'set the table; create; delete' RETURN f",
        "/* MERGE */ MATCH (n) RETURN count(n) AS n",
        "CALL db.index.fulltext.queryNodes('fact_text', $q) YIELD node, score RETURN node, score",
        "CALL db.index.vector.queryNodes('fact_vec', 5, $v) YIELD node RETURN node",
        "CALL db.labels() YIELD label RETURN label",
        "MATCH (u:User) CALL (u) { MATCH (u)<-[:ABOUT]-(f:Fact) RETURN count(f) AS facts } RETURN u.id, facts",
        "MATCH (a)-[r]->(b) RETURN startNode(r) AS start, type(r) AS settings, r.created_at AS created",
        "RETURN 'it\\'s' AS x",
    ):
        check_read_only(OperatorQuery("read", "R", "A", [], text))


async def test_sent_past_the_check_the_engine_writes_nothing(store: GraphStore) -> None:
    """The engine is the defence: each bypass sent straight to the read-only user is refused, fails, or is
    rolled back; nothing of it is left in the graph."""
    await populate(store)
    census = "MATCH (n) RETURN count(n) AS n, count(n.text) AS texts, sum(size(coalesce(n.text, ''))) AS chars"
    before, _, _ = await store.driver.execute_query(census, database_=store.engine.database)
    reader = await open_reader(store.engine)
    try:
        for _, text in BYPASSES:
            try:
                await read_rolled_back(reader, text, {"q": "x", "v": [1.0]})
            except Exception:  # noqa: BLE001 - refused or not understood: either way nothing is written
                pass
    finally:
        await reader.close()
    after, _, _ = await store.driver.execute_query(census, database_=store.engine.database)
    planted, _, _ = await store.driver.execute_query("MATCH (p:Planted) RETURN count(p) AS n", database_=store.engine.database)
    assert planted[0]["n"] == 0 and dict(after[0]) == dict(before[0])


async def test_a_neo4j_reader_user_is_used_when_configured(store: GraphStore) -> None:
    """An operator who brings a Neo4j with roles gives grapevine a user with the built-in `reader` role
    (NEO4J_READER_USER/NEO4J_READER_PASSWORD): operator queries run as it. Shown here over Bolt against the
    embedded engine, whose read-only user plays that role."""
    if not isinstance(store.engine, ArcadeDBEngine):
        pytest.skip("shown on the embedded engine's read-only user; a Neo4j with roles needs Enterprise")
    reader_name, reader_password = store.engine.reader_auth()
    await (await store.engine.reader_driver()).close()  # the engine's read-only user exists now
    as_neo4j = Neo4jEngine(store.engine.uri, "root", store.engine.password, store.engine.database,
                           reader_user=reader_name, reader_password=reader_password)  # fmt: skip
    assert "password" not in repr(as_neo4j) and store.engine.password not in repr(as_neo4j)
    driver = await open_reader(as_neo4j)
    try:
        from neo4j.exceptions import Forbidden

        with pytest.raises(Forbidden):
            await read_rolled_back(driver, f"CALL {{ {PLANT} }} IN TRANSACTIONS RETURN 1 AS one", {})
    finally:
        await driver.close()
    planted, _, _ = await store.driver.execute_query("MATCH (p:Planted) RETURN count(p) AS n", database_=store.engine.database)
    assert planted[0]["n"] == 0
