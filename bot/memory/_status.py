"""`memory status` for moderators, and the opt-out / opt-in switches."""

from __future__ import annotations

from bot.memory import unfinished_forgets
from bot.services import Services
from common.events import emit
from graph.models import Episode, EpisodeStatus
from graph.privacy.forget import drop_command_trace
from graph.privacy.retention import retention_text
from graph.reads.activity import Activity, recent_activity
from graph.reads.backlog import episodes_by_status
from graph.reads.stats import guild_totals
from llm.cost import cost, cost_text

OPTED_OUT = (
    "Done: I won't store anything you say from now on (what I already know stays; `forget me` deletes it). "
    "`/memory opt-in` turns memory back on."
)
OPTED_IN = "Welcome back: I'll remember our conversations again from now on."
WAS_IN = "You weren't opted out; I'm remembering as usual."


ACTIVITY_DAYS = 7  # `memory status` shows this guild's activity over this many days (range reads, not totals)


async def opt_out(services: Services, user_id: str, message_id: str | None = None) -> str:
    """Opt out; the command's own message is not kept, nor anything of a member it was all we had of."""
    await services.consent.opt_out(user_id)
    dropped = services.live.drop_user(user_id)
    forgotten = await drop_command_trace(services.store, user_id, message_id)
    emit("bot", "opted_out", dropped_buffered=dropped, forgotten=forgotten)
    return OPTED_OUT


async def opt_in(services: Services, user_id: str) -> str:
    removed = await services.consent.opt_in(user_id)
    emit("bot", "opted_in", was_out=removed)
    return OPTED_IN if removed else WAS_IN


async def status(services: Services, guild_id: str, recent: Activity | None = None) -> str:
    """This guild's totals (the counts its node keeps), its activity of the last days (from `recent`, when read
    already) and its episodes waiting; the process-wide windows and LLM use of today."""
    store = services.store
    pending = await episodes_by_status(store, [EpisodeStatus.PENDING], guild_id=guild_id)
    failed = await episodes_by_status(store, [EpisodeStatus.FAILED], guild_id=guild_id)
    recent = (
        recent if recent is not None and recent.days == ACTIVITY_DAYS else await recent_activity(store, guild_id, ACTIVITY_DAYS)
    )
    held = await guild_totals(store, guild_id)  # kept as the writes happen: one node read at any size
    for_good = sum(1 for e in failed if e.attempts >= services.settings.extraction.max_attempts)
    live = services.live.stats()
    today = services.meter.today()
    lines = [
        "**Memory status**",
        f"This server holds {held['messages']:,} messages in {held['episodes']:,} conversations, "
        f"{held['facts']:,} facts (current and closed) and {held['entities']:,} entities.",
        f"This server, last {recent.days} days: {recent.messages} messages in {recent.channels} channels, "
        f"{recent.learned} facts learned, {recent.closed} closed. Conversations: {len(pending)} waiting for extraction, "
        f"{len(failed)} failed and parked ({for_good} of them failed for good after "
        f"{services.settings.extraction.max_attempts} attempts).",
        f"Live (all servers): {live['open_windows']} open windows holding {live['buffered_messages']} messages, "
        f"{live['unsubmitted_windows']} windows waiting for the graph.",
        f"LLM today (UTC, all servers): {today.calls} calls ({today.failures} failed), "
        f"{today.prompt_tokens:,} prompt + {today.completion_tokens:,} completion tokens"
        f"{cost_text(services.settings.llm, today)}.",
        _per_purpose(services),
        _batching(services, guild_id, pending),
        f"Reply limits: one per member every {services.settings.reply.member_cooldown_seconds:g} s, "
        f"{services.settings.reply.guild_daily_replies or 'no'} replies a day per server.",
        retention_text(services.settings.memory),
        _unfinished_forgets(services, guild_id),
    ]
    if services.llm is None:
        lines.append("No LLM is configured (LLM_BASE_URL): windows stay pending and replies are off.")
    if failed:
        last = failed[-1]
        lines.append(f"Latest failure: {(last.error or 'unknown')[:200]}")
    return "\n".join(lines)


def _batching(services: Services, guild_id: str, pending: list[Episode]) -> str:
    """How long this server's conversations wait for extraction: the batch rule, and the age limit its pace gives now."""
    extraction = services.settings.extraction
    least, most = extraction.batch_age_seconds, max(extraction.batch_age_seconds, extraction.batch_age_max_seconds)
    if extraction.batch_messages <= 1:
        return "Extraction: each conversation on its own, as soon as it closes."
    now = services.ingestor.age_limit(guild_id, pending).total_seconds()
    return (
        f"Extraction: conversations wait to go to the LLM together until they hold {extraction.batch_messages} messages, "
        f"or at most {_hours(now)} for this server now (its pace sets it, between {_hours(least)} and {_hours(most)})."
    )


def _hours(seconds: float) -> str:
    return f"{seconds / 3600:.1f} h" if seconds >= 3600 else f"{seconds / 60:.0f} min"


def _per_purpose(services: Services) -> str:
    """Since the bot started: calls and tokens per extraction and per reply, and their cost when priced."""
    parts = []
    for purpose, totals in sorted(services.meter.by_purpose().items()):
        each = (totals.prompt_tokens + totals.completion_tokens) / max(totals.calls, 1)
        priced = cost(services.settings.llm, totals) / max(totals.calls, 1)
        price = f", {priced:.5f} each" if cost_text(services.settings.llm, totals) else ""
        parts.append(f"{purpose} {totals.calls} calls ({each:,.0f} tokens each{price})")
    return "Since start: " + ("; ".join(parts) if parts else "no LLM calls") + "."


def _unfinished_forgets(services: Services, guild_id: str) -> str:
    """Forgets (of this server, or a member's own everywhere) that upkeep is still finishing: how many, never who."""
    waiting = [r for r in unfinished_forgets.waiting(services) if r.guild_id in (None, guild_id)]
    if not waiting:
        return "Forget requests: none unfinished."
    every = services.settings.memory.upkeep_interval_hours
    return f"Forget requests: {len(waiting)} not finished yet; upkeep runs them again every {every:g} h until the audit is clean."
