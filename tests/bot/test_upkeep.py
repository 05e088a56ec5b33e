"""Upkeep: one pass retires expired facts, caps facts per member, works the backlog, ticks the windows."""

from __future__ import annotations

import asyncio
import contextlib
import logging
from datetime import timedelta

import pytest

import bot.upkeep
from bot.services import Services
from bot.upkeep import Upkeep, run_upkeep
from graph.models import EpisodeClose, EpisodeStatus
from graph.reads.backlog import episodes_by_status
from graph.store import GraphStore
from graph.writes.episodes import close_episode
from tests.support.busy_server import G1, GENERAL, T0, populate
from tests.support.discord_doubles import MockBot


async def test_one_pass(store: GraphStore, services: Services, caplog: pytest.LogCaptureFixture) -> None:
    p = await populate(store)
    msg = await p.say(GENERAL, "bob", "a window nobody extracted", T0 + timedelta(days=5))
    await close_episode(
        store,
        EpisodeClose(
            key="pending-1",
            uuid="u-pending-1",
            guild_id=G1,
            channel_id=GENERAL,
            started_at=msg.created_at,
            ended_at=msg.created_at,
            message_ids=(msg.id,),
            participant_ids=(msg.author_id,),
        ),
    )
    services.settings.memory.max_facts_per_user = 3  # the filler members have four facts each

    with caplog.at_level(logging.INFO, logger="common.events"):
        report = await run_upkeep(services)

    assert report.expired == 1  # "Dave is celebrating tonight" expired a day after
    assert report.capped == 5  # five members with four facts keep three
    assert report.pending == 1 and report.errors == 0  # no LLM in these services: the window stays pending
    assert [e.key for e in await episodes_by_status(store, [EpisodeStatus.PENDING])] == ["pending-1"]
    events = [getattr(r, "payload", {}) for r in caplog.records]
    done = next(e for e in events if e.get("event") == "upkeep_done")
    assert (done["expired"], done["capped"], done["pending"]) == (1, 5, 1)


async def test_a_failing_step_does_not_stop_the_others(services: Services, monkeypatch: pytest.MonkeyPatch) -> None:
    async def broken(*args: object, **kwargs: object) -> int:
        raise ConnectionError("graph away")

    monkeypatch.setattr(bot.upkeep, "retire_expired", broken)
    report = await run_upkeep(services)
    assert report.errors == 1 and report.capped == 0


async def test_loop_runs_at_the_configured_interval(services: Services) -> None:
    services.settings.memory.upkeep_interval_hours = 6
    bot = MockBot(services=services)
    bot.wait_until_ready.side_effect = asyncio.Event().wait  # never ready: the first pass waits for it
    cog = Upkeep(bot)
    assert cog.loop.hours == 6 and not cog.loop.is_running()
    cog.start()
    assert cog.loop.is_running()
    task = cog.loop.get_task()
    assert task is not None
    await cog.cog_unload()
    with contextlib.suppress(asyncio.CancelledError):
        await task
    assert not cog.loop.is_running() and cog.loop.current_loop == 0
