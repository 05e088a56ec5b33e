"""Upkeep, every MEMORY_UPKEEP_INTERVAL_HOURS: retire expired facts, cap facts per member, extract
the windows left pending or parked as failed, and close what is due in the live buffer."""

from __future__ import annotations

import logging
import time
from dataclasses import asdict, dataclass
from typing import TYPE_CHECKING

from discord.ext import commands, tasks

from bot.services import Services
from grapevine.events import emit

if TYPE_CHECKING:
    from bot.app import GrapevineBot


@dataclass
class UpkeepReport:
    expired: int = 0
    capped: int = 0
    extracted: int = 0
    failed: int = 0
    skipped: int = 0
    pending: int = 0
    errors: int = 0


async def run_upkeep(services: Services) -> UpkeepReport:
    """One pass; each step runs even when an earlier one failed (the graph may be back by then)."""
    report = UpkeepReport()
    started = time.perf_counter()
    store = services.store
    steps = [
        ("retire_expired", lambda: store.retire_expired()),
        ("enforce_user_cap", lambda: store.enforce_user_cap(services.settings.memory.max_facts_per_user)),
        ("process_backlog", lambda: services.ingestor.process_backlog()),
        ("tick", lambda: services.live.tick()),
    ]
    for name, step in steps:
        try:
            result = await step()
        except Exception as exc:  # noqa: BLE001 - logged; the next pass tries again
            report.errors += 1
            emit("bot", "upkeep_step_failed", level=logging.WARNING, step=name, error=type(exc).__name__,
                 reason=str(exc)[:300])
            continue
        if name == "retire_expired":
            report.expired = result
        elif name == "enforce_user_cap":
            report.capped = result
        elif name == "process_backlog":
            report.extracted, report.failed = result.done, result.failed
            report.skipped, report.pending = result.skipped, result.pending
    emit("bot", "upkeep_done", **asdict(report), latency_ms=round((time.perf_counter() - started) * 1000))
    return report


class Upkeep(commands.Cog):
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
