"""ArcadeDB reserves what a query buffers in heap (sorts, collect()) from one budget every running query shares
(`arcadedb.queryMaxHeapRAM`), and gives it back when the query closes; a CALL subquery's buffers went back only
once the garbage collector found them. When the search of a quiet channel's older windows was a CALL inside the
conversation read, each reply kept a few megabytes of the budget, and after a few hundred replies (a LoCoMo run
on the default 2 GB heap) every read failed with "Query heap budget exceeded". The search is a statement of its
own again (queries/context/recalled_before.cypher); this engine's budget is small enough that the leak fails
within a few dozen replies."""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator
from datetime import timedelta
from pathlib import Path

import pytest

from common.settings import ContextSettings, RecallTuning
from graph.engines.arcadedb import ArcadeDBEngine, ArcadeDBServer
from graph.models import Message
from graph.store import GraphStore
from graph.writes.messages import record_messages
from recall.assemble import ContextRequest
from recall.gather import build_context
from tests.support.busy_server import G1, GENERAL, PEOPLE, T0, in_general
from tests.support.fresh_store import fresh_arcadedb_store
from tests.support.ports import free_port

BUDGET_MB = 32  # about twenty replies' worth of what the CALL kept
REPLIES = 120
TUNING = RecallTuning()
ASKED = T0 + TUNING.span + timedelta(days=30)  # every window is older than the recalled span


@pytest.fixture(scope="module")
def small_budget_engine(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ArcadeDBEngine]:
    engine = ArcadeDBEngine(password="budget-tests", database="budget", bolt_port=free_port(), http_port=free_port())
    with pytest.MonkeyPatch.context() as env:
        env.setenv("ARCADEDB_JVM_ARGS", f"-Xmx1g -XX:+UseParallelGC -Darcadedb.queryMaxHeapRAM={BUDGET_MB}")
        server = ArcadeDBServer(Path(tmp_path_factory.mktemp("budget")), engine, heap="1g")
        server.start()
    yield engine
    server.stop()


@pytest.fixture
async def budget_store(small_budget_engine: ArcadeDBEngine) -> AsyncIterator[GraphStore]:
    async with fresh_arcadedb_store(small_budget_engine) as store:
        yield store


@pytest.mark.slow
async def test_replies_in_a_quiet_channel_do_not_use_up_the_engines_query_heap(budget_store: GraphStore) -> None:
    p = await in_general(budget_store, "alice", "judy")
    for window in range(TUNING.older_episodes):  # full windows, all searched by every reply
        at = T0 + timedelta(hours=window)
        said = [
            Message(id=p.mid(), guild_id=G1, channel_id=GENERAL, author_id=PEOPLE["alice"], created_at=at + timedelta(seconds=i),
                    content=f"window {window}, line {i}: we talked about the garden and the kayak trip again")
            for i in range(30)
        ]  # fmt: skip
        await record_messages(budget_store, said)
        p.messages += said
        await p.episode(GENERAL, said)
    request = ContextRequest(G1, GENERAL, PEOPLE["judy"], "what about the kayak trip?", None, ASKED)
    settings = ContextSettings(channel_messages=0, channel_episodes=0)  # what is recalled is not also the channel's last
    for _ in range(REPLIES):
        ctx = await build_context(budget_store, request, settings)
        assert ctx.part("recalled").ids  # the older windows were searched, every time
