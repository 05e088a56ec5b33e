"""Neo4j 5, the production engine: URI and credentials from the environment."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from neo4j import AsyncDriver, AsyncGraphDatabase

import queries
from graph.engines.arcadedb_purge import PurgeReport

MAX_VECTOR_DIMENSIONS = 4096  # Neo4j 5's vector index limit


def vector_dimensions(value: object) -> int:
    """EMBEDDINGS_DIMENSION as the vector index takes it: a whole number from 1 to 4096 (sent as a parameter)."""
    if isinstance(value, bool) or not isinstance(value, int) or not 1 <= value <= MAX_VECTOR_DIMENSIONS:
        raise ValueError(f"a vector index needs 1 to {MAX_VECTOR_DIMENSIONS} dimensions, not {value!r}")
    return value


@dataclass
class Neo4jEngine:
    uri: str = field(repr=False)  # neo4j://... routes to a cluster or Aura; bolt://... one server
    user: str
    password: str = field(repr=False)
    database: str = "neo4j"
    name: str = "neo4j"
    reader_user: str = ""  # a user with the built-in `reader` role (Enterprise), for operator queries
    reader_password: str = field(default="", repr=False)
    write_gate: Path | None = None  # Neo4j's purge does nothing under its writers: no gate between processes

    def driver(self) -> AsyncDriver:
        # graph.session.Runner retries a transaction as a whole: the driver must not retry it again inside
        return AsyncGraphDatabase.driver(self.uri, auth=(self.user, self.password), max_transaction_retry_time=0)

    async def reader_driver(self) -> AsyncDriver:
        """Operator queries run in READ sessions, which Neo4j enforces; as `reader_user` when one is configured
        (roles are an Enterprise feature: `CREATE USER ... ; GRANT ROLE reader TO ...`), so the server's
        privileges hold them to reading too. docker/ turns off reading files with LOAD CSV."""
        if not self.reader_user:
            return self.driver()
        auth = (self.reader_user, self.reader_password)
        return AsyncGraphDatabase.driver(self.uri, auth=auth, max_transaction_retry_time=0)

    async def create_search_indexes(self, driver: AsyncDriver, embedding_dimension: int | None) -> None:
        """The full-text indexes, the vector index when embeddings are on, then wait until every index (the
        constraints' too) is online: Neo4j builds them in the background, and a query that runs before
        one is online plans without it, or fails (the full-text and vector procedures)."""
        outdated, _, _ = await driver.execute_query(queries.load("schema/fulltext_outdated"), database_=self.database)
        steps: list[tuple[str, dict[str, object]]] = [("schema/drop_fulltext", {})] if outdated else []
        steps.append(("schema/fulltext", {}))  # set up before guild_term was indexed: dropped, created again
        if embedding_dimension is not None:  # None: embeddings off
            steps.append(("schema/vector", {"dimensions": vector_dimensions(embedding_dimension)}))
        for name, params in steps:
            for statement in queries.statements(queries.load(name)):
                await driver.execute_query(statement, params, database_=self.database)
        await driver.execute_query(queries.load("schema/await_indexes"), database_=self.database)

    async def purge_deleted(self) -> PurgeReport:
        """Nothing to do from here: Neo4j reuses deleted records' space in its store files; an operator
        who needs the bytes gone runs `neo4j-admin database copy` (see docs/privacy.md)."""
        return PurgeReport()
