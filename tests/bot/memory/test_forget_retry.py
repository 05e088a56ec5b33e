"""A forget that is not clean finishes later: the request is on disk before the graph is touched, the
member is told it will finish, and the bot's upkeep runs it again until the audit is clean, then logs
`forget_finished`. Faults are injected at the boundary on the real engine: the database failing part-way
through the forget's transaction, and the engine's file purge failing once."""

from __future__ import annotations

import json
import logging
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import pytest
from neo4j.exceptions import DatabaseError

from bot.memory import unfinished_forgets
from bot.memory._forget_me import FAILED, FILES_LATER
from bot.upkeep import run_upkeep
from graph.engines.arcadedb_purge import PurgeReport
from graph.privacy.purge import purge_due
from graph.store import GraphStore
from tests.bot.harness import Harness, events
from tests.support.busy_server import PEOPLE, populate
from tests.support.erasure_audit import residue_everywhere
from tests.support.scripted import count, cypher

CHARLIE = PEOPLE["charlie"]
NAMES = ["charlie", "Charlie"]


class _FailingTx:
    """A transaction whose statements fail after the first `after` of them: the database going away part-way."""

    def __init__(self, tx: Any, after: int) -> None:
        self._tx, self._after, self._ran = tx, after, 0

    async def run(self, query: str, parameters: Any = None, **kwargs: Any) -> Any:
        self._ran += 1
        if self._ran > self._after:
            raise DatabaseError("the database failed part-way (injected)")
        return await self._tx.run(query, parameters, **kwargs)


def fail_multi_statement_writes(store: GraphStore, monkeypatch: pytest.MonkeyPatch) -> Callable[[], None]:
    """Every write transaction of more than one statement fails at its second; returns the repair."""
    original = store.runner.write

    async def write(work: Callable[[Any], Awaitable[Any]]) -> Any:
        return await original(lambda tx: work(_FailingTx(tx, 1)))

    monkeypatch.setattr(store.runner, "write", write)
    return lambda: monkeypatch.setattr(store.runner, "write", original)


async def test_a_forget_the_database_failed_part_way_is_finished_by_upkeep(
    store: GraphStore, harness: Harness, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    await populate(store)
    services = harness.bot.services
    pending = Path(services.settings.graph.data_dir) / unfinished_forgets.FILE_NAME
    repair = fail_multi_statement_writes(store, monkeypatch)

    said = await harness.forget_me_confirmed("charlie")

    assert said == FAILED
    assert [r.user_id for r in unfinished_forgets.waiting(services)] == [CHARLIE] and pending.exists()
    assert not services.consent.allowed(CHARLIE)  # opted out first: nothing new of his is kept meanwhile
    assert await count(store, "MATCH (u:User {id: $id}) RETURN count(u) AS n", id=CHARLIE) == 1  # rolled back
    with caplog.at_level(logging.INFO, logger="common.events"):
        await run_upkeep(services)  # still down: it stays recorded
    assert events(caplog, "forget_retry_failed") and pending.exists()

    repair()
    caplog.clear()
    with caplog.at_level(logging.INFO, logger="common.events"):
        report = await run_upkeep(services)

    assert report.errors == 0
    [finished] = events(caplog, "forget_finished")
    assert finished["user_id"].startswith("u-") and finished["scope"] == "everywhere"
    assert await count(store, "MATCH (u:User {id: $id}) RETURN count(u) AS n", id=CHARLIE) == 0
    assert await residue_everywhere(store, CHARLIE) == []
    assert not pending.exists() and unfinished_forgets.waiting(services) == []
    caplog.clear()
    with caplog.at_level(logging.INFO, logger="common.events"):
        await run_upkeep(services)  # nothing left to do
    assert not events(caplog, "forget_finished")


async def test_a_forget_whose_engine_files_were_not_purged_is_finished_by_upkeep(
    store: GraphStore, harness: Harness, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    await populate(store)
    services = harness.bot.services
    engine_type = type(store.engine)
    real_purge = engine_type.purge_deleted
    failures = [PurgeReport(failed={"Message[content]": "rebuild failed (injected)"})]
    purges: list[bool] = []

    async def purge(self: Any) -> PurgeReport:
        purges.append(bool(failures))
        return failures.pop() if failures else await real_purge(self)

    monkeypatch.setattr(engine_type, "purge_deleted", purge)

    said = await harness.forget_me_confirmed("charlie")

    assert said.startswith("Done: I deleted 2 facts") and said.endswith(FILES_LATER)
    assert await residue_everywhere(store, CHARLIE) == []  # the graph is clean; the files are not yet
    await unfinished_forgets.audits_settled()  # the thorough audit after the reply closes the request
    assert unfinished_forgets.waiting(services) == [] and purges == []  # the files wait for upkeep (graph/privacy/purge.py)
    assert (await purge_due(store)).since is not None
    with caplog.at_level(logging.INFO, logger="common.events"):
        await run_upkeep(services)  # the purge fails: the erasure stays due
    assert purges == [True] and (await purge_due(store)).since is not None
    assert [e["failed"] for e in events(caplog, "upkeep_purged")] == [["Message[content]"]]
    with caplog.at_level(logging.INFO, logger="common.events"):
        await run_upkeep(services)
    assert purges == [True, False]  # the next pass purged the files again
    assert (await purge_due(store)).since is None


async def test_a_moderator_forget_that_failed_is_finished_in_that_guild_only(
    store: GraphStore, harness: Harness, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    await populate(store)
    services = harness.bot.services
    request = unfinished_forgets.Request(CHARLIE, "200000000000000002", tuple(NAMES))
    repair = fail_multi_statement_writes(store, monkeypatch)
    with pytest.raises(DatabaseError):
        await unfinished_forgets.forget(services, request)
    repair()
    assert [r.key for r in unfinished_forgets.waiting(services)] == [request.key]
    with caplog.at_level(logging.INFO, logger="common.events"):
        await run_upkeep(services)
    [finished] = events(caplog, "forget_finished")
    assert finished["scope"] == "guild" and finished["guild_id"] == "200000000000000002"
    left = await cypher(store, "MATCH (m:Message) WHERE m.author_id = $id RETURN m.guild_id AS g", id=CHARLIE)
    assert [r["g"] for r in left] == ["100000000000000001"] * 2  # his messages in the other guild stay
    assert services.consent.allowed(CHARLIE) and unfinished_forgets.waiting(services) == []
    assert json.dumps(finished).count(CHARLIE) == 0
