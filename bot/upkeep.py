"""Upkeep, every MEMORY_UPKEEP_INTERVAL_HOURS: retire expired facts, cap facts per member, remove what
the retention settings no longer keep, purge the engine's files of erased records, extract the windows
left pending or parked as failed, and close what is due in the live buffer."""

from __future__ import annotations

import logging
import time
from collections.abc import Awaitable
from dataclasses import asdict, dataclass
from typing import TYPE_CHECKING, TypeVar

from discord.ext import commands, tasks

from bot.memory import unfinished_forgets
from bot.services import Services
from bot.shards import Shard
from common.events import emit
from graph.privacy.purge import purge_if_due
from graph.privacy.retention import apply_retention, retire_expired
from graph.privacy.user_cap import enforce_user_cap
from graph.reads import fact_model

if TYPE_CHECKING:
    from bot.app import GrapevineBot

T = TypeVar("T")


@dataclass
class UpkeepReport:
    expired: int = 0
    capped: int = 0
    extracted: int = 0
    failed: int = 0
    skipped: int = 0
    pending: int = 0
    retained_messages: int = 0  # removed by retention
    retained_facts: int = 0
    purged: bool = False  # the engine's files were purged of erasures waiting for it
    errors: int = 0


async def _step(report: UpkeepReport, name: str, work: Awaitable[T]) -> T | None:
    """Run one step; a failure is logged and counted, and the next step still runs (the graph may be back)."""
    try:
        return await work
    except Exception as exc:  # noqa: BLE001 - the next pass tries again
        report.errors += 1
        emit("bot", "upkeep_step_failed", level=logging.WARNING, step=name, error=type(exc).__name__, reason=str(exc)[:300])
        return None


async def _retention_and_purge(report: UpkeepReport, services: Services) -> None:
    """Remove what the retention settings no longer keep, then purge the engine's files of every erasure
    waiting for it (forget-me, retention): the bound graph/privacy/purge.py states."""
    store = services.store
    memory = services.settings.memory
    kept = await _step(report, "retention", apply_retention(store, memory.retain_messages_days, memory.retain_closed_facts_days))
    if kept is not None:
        report.retained_messages, report.retained_facts = kept.messages, kept.facts
    purged = await _step(report, "purge_erased", purge_if_due(store))
    if purged is not None and purged.since is not None:
        report.purged = not purged.failed
        emit(
            "bot",
            "upkeep_purged",
            level=logging.WARNING if purged.failed else logging.INFO,
            erasures=purged.erasures,
            waiting_since=purged.since,
            seconds=round(purged.seconds, 1),
            failed=sorted(purged.failed),
        )


async def run_upkeep(services: Services) -> UpkeepReport:
    """One pass; emits `upkeep_done` with what it did."""
    report = UpkeepReport()
    started = time.perf_counter()
    store = services.store
    cap = services.settings.memory.max_facts_per_user
    if Shard.of(services.settings.discord).runs_graph_upkeep:  # once for the whole graph, not once per shard
        report.expired = await _step(report, "retire_expired", retire_expired(store)) or 0
        report.capped = await _step(report, "enforce_user_cap", enforce_user_cap(store, cap)) or 0
        await _retention_and_purge(report, services)
    backlog = await _step(report, "process_backlog", services.ingestor.process_backlog(backoff=True))
    if backlog is not None:
        report.extracted, report.failed = backlog.done, backlog.failed
        report.skipped, report.pending = backlog.skipped, backlog.pending
    await _step(report, "tick", services.live.tick())
    await _step(report, "retry_forgets", unfinished_forgets.retry(services))
    await _step(report, "read_model", fact_model.drop_stale(store))  # another process's forget, in a quiet guild
    emit("bot", "upkeep_done", **asdict(report), latency_ms=round((time.perf_counter() - started) * 1000))
    return report


class Upkeep(commands.Cog):
    """The loop (discord.ext.tasks); `GrapevineBot.setup_hook` starts it, and its first pass waits for ready."""

    def __init__(self, bot: GrapevineBot) -> None:
        self.bot = bot
        self.loop = tasks.loop(hours=bot.services.settings.memory.upkeep_interval_hours)(self._pass)
        self.loop.before_loop(self._wait_until_ready)

    def start(self) -> None:
        if not self.loop.is_running():
            self.loop.start()

    async def cog_unload(self) -> None:
        self.loop.cancel()

    async def _wait_until_ready(self) -> None:
        await self.bot.wait_until_ready()

    async def _pass(self) -> None:
        await run_upkeep(self.bot.services)


async def setup(bot: GrapevineBot) -> None:
    await bot.add_cog(Upkeep(bot))
