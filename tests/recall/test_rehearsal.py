"""The reply reads rehearsed as the bot starts, on the real embedded engine: requests made of the
channels' latest messages, built in the background without writing anything, and never in the bot's way."""

from __future__ import annotations

import logging
from datetime import timedelta
from typing import Any

import pytest

from common.settings import ContextSettings, Settings
from grapevine import bot_runner
from graph.store import GraphStore
from recall import rehearsal
from recall.rehearsal import rehearsal_requests, rehearse, rehearse_at_start
from tests.bot.harness import events
from tests.support.busy_server import GENERAL, PEOPLE, T0, populate

AT = T0 + timedelta(days=2)


async def _snapshot(store: GraphStore) -> tuple[list[Any], list[Any]]:
    async def work(tx: Any) -> tuple[list[Any], list[Any]]:
        nodes = await (await tx.run("MATCH (n) RETURN properties(n) AS p, labels(n) AS l")).values()
        rels = await (await tx.run("MATCH ()-[r]->() RETURN type(r) AS t, properties(r) AS p")).values()
        return sorted(map(repr, nodes)), sorted(map(repr, rels))

    return await store.runner.read_tx(work)


async def test_requests_are_the_channels_latest_messages_asked_again(store: GraphStore) -> None:
    p = await populate(store)
    requests = await rehearsal_requests(store, AT)
    said = {m.id: m for m in p.messages}
    assert requests and GENERAL in {r.channel_id for r in requests}
    for r in requests:
        m = said[r.message_id or ""]
        assert (r.guild_id, r.channel_id, r.author_id, r.message_text, r.at) == (
            m.guild_id,
            m.channel_id,
            m.author_id,
            m.content,
            AT,
        )
    assert await rehearsal_requests(store, T0 - timedelta(days=1)) == []  # nothing said yet then: nothing to ask


async def test_a_rehearsal_builds_contexts_and_writes_nothing(store: GraphStore) -> None:
    await populate(store)
    before = await _snapshot(store)
    done = await rehearse(store, ContextSettings(), await rehearsal_requests(store, AT), seconds=1.0)
    assert done.builds > 0 and done.requests > 0 and done.seconds >= 1.0
    assert await _snapshot(store) == before


async def test_off_or_with_nothing_said_it_does_nothing(store: GraphStore) -> None:
    await populate(store)
    off = await rehearse_at_start(store, ContextSettings(rehearsal_seconds=0), AT)
    assert (off.builds, off.requests) == (0, 0)
    empty = await rehearse(store, ContextSettings(), [], seconds=30.0)
    assert (empty.builds, empty.requests) == (0, 0) and empty.seconds < 30.0


async def test_a_failing_rehearsal_only_logs(
    store: GraphStore, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    async def broken(*_: Any, **__: Any) -> Any:
        raise RuntimeError(f"the words of {PEOPLE['alice']} never reach the log")

    monkeypatch.setattr(bot_runner, "rehearse_at_start", broken)
    caplog.set_level(logging.INFO)
    await bot_runner._rehearse(store, Settings())
    [failed] = events(caplog, "rehearsal_failed")
    assert failed["error"] == "RuntimeError" and "never reach" not in repr(failed)
    monkeypatch.setattr(bot_runner, "rehearse_at_start", rehearse_at_start)
    monkeypatch.setattr(rehearsal, "CHANNELS", 1)
    await populate(store)
    await bot_runner._rehearse(store, Settings(context=ContextSettings(rehearsal_seconds=0.5)))
    [done] = events(caplog, "rehearsal_done")
    assert done["builds"] > 0
