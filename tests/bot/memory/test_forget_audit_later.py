"""The member's wait for forget-me is bounded: the reply comes after the one transaction and the audit through
the indexes inside it; the thorough audit (every property of the graph) runs after the reply, in the background.
Clean, it closes the request; residue it finds keeps the request for upkeep's retry (bot/memory/unfinished_forgets.py)."""

from __future__ import annotations

import asyncio
import logging
from typing import Any

import pytest

from bot.memory import unfinished_forgets
from bot.upkeep import run_upkeep
from graph.privacy import audit
from graph.store import GraphStore
from tests.bot.harness import Harness, events
from tests.support.busy_server import OTHER, PEOPLE, populate
from tests.support.erasure_audit import residue_everywhere
from tests.support.scripted import count, cypher

CHARLIE = PEOPLE["charlie"]
NAMES = ["charlie", "Charlie"]


async def test_the_reply_comes_before_the_thorough_audit_which_then_closes_the_request(
    store: GraphStore, harness: Harness, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    await populate(store)
    services = harness.bot.services
    gate, audited = asyncio.Event(), []
    real = audit.finish_audit  # what bot.memory.unfinished_forgets imported

    async def gated(*args: Any) -> Any:  # the real thorough audit, held until the member has their answer
        await gate.wait()
        audited.append(args[1].user_id)
        return await real(*args)

    monkeypatch.setattr(unfinished_forgets, "finish_audit", gated)
    with caplog.at_level(logging.INFO, logger="common.events"):
        said = await harness.forget_me_confirmed("charlie")

        assert said.startswith("Done: I deleted 2 facts")  # answered while the thorough audit has not run
        assert audited == [] and [r.user_id for r in unfinished_forgets.waiting(services)] == [CHARLIE]
        assert await count(store, "MATCH (u:User {id: $id}) RETURN count(u) AS n", id=CHARLIE) == 0
        gate.set()
        await unfinished_forgets.audits_settled()

    assert audited == [CHARLIE] and unfinished_forgets.waiting(services) == []
    [event] = events(caplog, "forget_audited")
    assert event["user_id"].startswith("u-") and event["redacted"] == 0
    assert await residue_everywhere(store, CHARLIE) == []


async def test_residue_only_the_thorough_audit_finds_keeps_the_request_for_upkeep(
    store: GraphStore, harness: Harness, caplog: pytest.LogCaptureFixture
) -> None:
    await populate(store)
    services = harness.bot.services
    # A channel named with his id: no index the forget reads holds channel names, and no forget renames a channel.
    await cypher(store, "MATCH (c:Channel {id: $id}) SET c.name = 'fans of ' + $who RETURN c.id AS id", id=OTHER, who=CHARLIE)
    with caplog.at_level(logging.INFO, logger="common.events"):
        said = await harness.forget_me_confirmed("charlie")
        await unfinished_forgets.audits_settled()

    assert said.startswith("Done: I deleted 2 facts")  # the indexed audit, what the member waited for, was clean
    [unfinished] = events(caplog, "forget_unfinished")
    assert unfinished["residue"] == 1 and unfinished["scope"] == "everywhere"
    assert [r.user_id for r in unfinished_forgets.waiting(services)] == [CHARLIE]  # upkeep's retry takes it from here
    caplog.clear()
    with caplog.at_level(logging.INFO, logger="common.events"):
        await run_upkeep(services)
    assert events(caplog, "forget_unfinished") and not events(caplog, "forget_finished")

    await cypher(store, "MATCH (c:Channel {id: $id}) SET c.name = 'bouldering' RETURN c.id AS id", id=OTHER)
    caplog.clear()
    with caplog.at_level(logging.INFO, logger="common.events"):
        await run_upkeep(services)
    assert [e["scope"] for e in events(caplog, "forget_finished")] == ["everywhere"]
    assert unfinished_forgets.waiting(services) == []
