"""Sessions chain bookmarks through one manager: a read after a write asks for the write's bookmark, which a
Neo4j cluster member waits for before it answers (ArcadeDB takes bookmarks and, a single server, ignores them)."""

from __future__ import annotations

import uuid
from collections.abc import Collection

from neo4j import AsyncGraphDatabase
from neo4j.api import AsyncBookmarkManager

from graph.engines.arcadedb import ArcadeDBEngine
from graph.models import Guild
from graph.schema import setup_schema
from graph.session import Runner
from graph.store import GraphStore
from graph.writes.discord_records import upsert_guild


class Recording(AsyncBookmarkManager):
    """The driver's own manager, recording what each transaction was given and what it returned."""

    def __init__(self) -> None:
        self.inner = AsyncGraphDatabase.bookmark_manager()
        self.given: list[frozenset[str]] = []
        self.updates: list[frozenset[str]] = []

    async def update_bookmarks(self, previous_bookmarks: Collection[str], new_bookmarks: Collection[str]) -> None:
        self.updates.append(frozenset(new_bookmarks))
        await self.inner.update_bookmarks(previous_bookmarks, new_bookmarks)

    async def get_bookmarks(self) -> Collection[str]:
        found = await self.inner.get_bookmarks()
        self.given.append(frozenset(found))
        return found


async def test_a_read_after_a_write_carries_the_writes_bookmark(store: GraphStore) -> None:
    bookmarks = Recording()
    runner = Runner(store.driver, store.engine.database, bookmarks=bookmarks)
    await runner.write_one("store/upsert_guild", id="g-bm", name="bookmarks")
    written = bookmarks.updates[-1]
    assert written, "the engine returned no bookmark for a committed write"
    rows = await runner.read("explore/guilds")
    assert bookmarks.given[-1] == written  # the read began after the write it must see
    assert "g-bm" in {r["id"] for r in rows}
    await runner.write_one("store/upsert_guild", id="g-bm2", name="again")
    assert bookmarks.updates[-1] != written  # each write moves the chain on
    await runner.read_plain("explore/guilds")
    assert bookmarks.given[-1] == bookmarks.updates[-1]


async def test_the_store_chains_sessions_and_schema_statements_on_the_drivers_manager(store: GraphStore) -> None:
    assert store.runner.bookmarks is store.driver.execute_query_bookmark_manager  # execute_query's own manager
    await upsert_guild(store, Guild(id="g-bm3", name="chained"))
    assert await store.driver.execute_query_bookmark_manager.get_bookmarks(), "a committed write left no bookmark"


async def test_a_routing_driver_chains_a_write_and_the_read_after_it(arcadedb_server: ArcadeDBEngine) -> None:
    """neo4j:// (a cluster's or Aura's scheme) routes READ sessions apart from writes; here the embedded
    engine answers the routing table itself, so the path a cluster takes runs end to end."""
    engine = arcadedb_server.for_database(f"r{uuid.uuid4().hex[:12]}")
    await engine.create_database()
    setup = engine.driver()
    routed = AsyncGraphDatabase.driver(
        f"neo4j://{engine.host}:{engine.bolt_port}", auth=("root", engine.password), max_transaction_retry_time=0
    )
    try:
        await setup_schema(GraphStore(setup, engine))
        store = GraphStore(routed, engine)
        await upsert_guild(store, Guild(id="g-routed", name="routed"))
        assert await routed.execute_query_bookmark_manager.get_bookmarks()
        assert "g-routed" in {r["id"] for r in await store.runner.read_plain("explore/guilds")}
    finally:
        await routed.close()
        await setup.close()
        await engine.drop_database()
