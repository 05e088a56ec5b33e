"""Neo4j 5, the production engine: URI and credentials from the environment."""

from __future__ import annotations

from dataclasses import dataclass

from neo4j import AsyncDriver, AsyncGraphDatabase

import queries
from graph.engines.arcadedb_purge import PurgeReport


@dataclass
class Neo4jEngine:
    uri: str
    user: str
    password: str
    database: str = "neo4j"
    name: str = "neo4j"

    def driver(self) -> AsyncDriver:
        # graph.session.Runner retries a transaction as a whole: the driver must not retry it again inside
        return AsyncGraphDatabase.driver(self.uri, auth=(self.user, self.password), max_transaction_retry_time=0)

    async def reader_driver(self) -> AsyncDriver:
        """Operator queries run in READ sessions, which Neo4j enforces (it has no per-database read-only
        user in its Community edition); docker/ turns off reading files with LOAD CSV."""
        return self.driver()

    async def create_search_indexes(self, driver: AsyncDriver, embedding_dimension: int | None) -> None:
        names = ["schema/fulltext"] + (["schema/vector"] if embedding_dimension else [])
        for name in names:
            for statement in queries.statements(queries.load(name)):
                await driver.execute_query(statement, {"dimensions": embedding_dimension}, database_=self.database)
        await driver.execute_query(queries.load("schema/await_indexes"), database_=self.database)

    async def purge_deleted(self) -> PurgeReport:
        """Nothing to do from here: Neo4j reuses deleted records' space in its store files; an operator
        who needs the bytes gone runs `neo4j-admin database copy` (see the README's privacy section)."""
        return PurgeReport()
