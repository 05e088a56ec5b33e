"""Forgets that must finish, in the bot: each request is kept in `<data dir>/unfinished_forgets.jsonl` before the
graph is touched (graph/privacy/requests.py, shared with `grapevine forget`), and leaves it only once the residue
audit is clean; a forget the database failed mid-way, or that left residue, stays there and upkeep runs it again
(`retry`) until it is clean, then logs `forget_finished`. Requests the operator's CLI left unfinished are in the
same file and finished by the same pass.

The member waits for the forget's transaction and the audit through the indexes inside it; the thorough audit
(every property of the graph) runs after the reply, in the background (`audit_later`), and the request leaves
the file only once it is clean: what it still finds is left to upkeep's `retry`, as a forget that failed.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Sequence

from bot.services import Services
from common.clock import now_utc
from common.events import emit
from graph.privacy.audit import finish_audit
from graph.privacy.deletion import ForgetReport
from graph.privacy.forget import Driven, Hooks, Purge, drive, with_scope
from graph.privacy.requests import FILE_NAME, Request, Requests
from recall.assemble import forget_texts

__all__ = ["FILE_NAME", "Request", "audit_later", "audits_settled", "forget", "retry", "run", "waiting"]


def _file(services: Services) -> Requests:
    return Requests(services.settings.graph.data_dir)


def waiting(services: Services) -> list[Request]:
    return _file(services).waiting()


def hooks(services: Services) -> Hooks:
    """The bot's part of a forget (graph/privacy/forget.py `drive`): the opt-out through its consent cache, the
    member's buffered messages dropped, the ingestor paused while the forget's transaction runs."""

    async def drop_buffered(request: Request) -> None:
        services.live.drop_user(request.user_id, request.guild_id)
        if request.guild_id is not None:
            await services.live.flush()  # their messages of other guilds stay; those of this one are written, then go

    return Hooks(opt_out=services.consent.opt_out, drop_buffered=drop_buffered, paused=services.ingestor.paused)


async def run(services: Services, request: Request, *, kept: bool = False, thorough: bool = True) -> Driven:
    """The request driven once (kept first, unless `kept` already): the report's residue is what the audit still
    finds (everywhere, or in the guild), and files_failed the indexes not rebuilt. Without `thorough`, the forget
    is audited through the indexes only (`audit_later` does the rest)."""
    purge: Purge = "if_idle" if kept else "later"  # a retry purges what an earlier failed purge left; else upkeep does
    try:
        return await drive(services.store, _file(services), request, hooks(services), kept=kept, thorough=thorough, purge=purge)
    finally:
        forget_texts()  # the reply's caches may hold their words or name


_AUDITS: set[asyncio.Task[bool]] = set()  # thorough audits running after the member's reply


async def forget(services: Services, request: Request) -> ForgetReport:
    """Keep and run the request; raises when the graph failed (it stays kept). One the indexed audit found clean
    is audited thoroughly in the background (everywhere, or that guild), then closed (`audit_later`)."""
    done = await run(services, request, thorough=False)
    request, report = done.request, done.report
    if not report.clean:
        return report
    if not done.finished:
        task = asyncio.create_task(audit_later(services, request))
        _AUDITS.add(task)
        task.add_done_callback(_AUDITS.discard)
    return report


async def audit_later(services: Services, request: Request) -> bool:
    """The thorough audit of a forget the member was already answered for: clean, the request is closed; else
    it stays kept for upkeep's `retry`. True when clean."""
    started = time.perf_counter()
    scope = request.scope
    try:
        if scope is None:
            scope = (await with_scope(services.store, request)).scope
        assert scope is not None
        redacted, residue = await finish_audit(services.store, scope, request.guild_id)
    except Exception as exc:  # noqa: BLE001 - stays kept; the next upkeep audits again
        emit("bot", "forget_audit_failed", level=logging.WARNING, user_id=request.user_id, error=type(exc).__name__)
        return False
    seconds, where = round(time.perf_counter() - started, 3), "everywhere" if request.guild_id is None else "guild"
    if residue:
        emit("bot", "forget_unfinished", level=logging.WARNING, user_id=request.user_id, scope=where, residue=len(residue))
        return False
    _file(services).done(request)
    emit("bot", "forget_audited", user_id=request.user_id, scope=where, redacted=redacted, seconds=seconds)
    return True


async def audits_settled() -> None:
    """Wait for the thorough audits still running (bot shutdown, tests)."""
    while _AUDITS:
        await asyncio.gather(*list(_AUDITS), return_exceptions=True)


async def retry(services: Services, forgets: Sequence[Request] | None = None) -> int:
    """Upkeep: run each waiting request again (the bot's own, and those a `grapevine forget` left); returns how
    many finished (clean) in this pass."""
    finished_now = 0
    for request in waiting(services) if forgets is None else forgets:
        where = "everywhere" if request.guild_id is None else "guild"
        try:
            done = await run(services, request, kept=True)
        except Exception as exc:  # noqa: BLE001 - stays kept; the next upkeep tries again
            emit("bot", "forget_retry_failed", level=logging.WARNING, user_id=request.user_id, error=type(exc).__name__)
            continue
        report = done.report
        if not done.finished:
            emit(
                "bot",
                "forget_unfinished",
                level=logging.WARNING,
                user_id=request.user_id,
                scope=where,
                residue=len(report.residue),
                files_failed=sorted(report.files_failed),
            )
            continue
        finished_now += 1
        emit("bot", "forget_finished", user_id=request.user_id, scope=where, guild_id=request.guild_id, at=now_utc().isoformat())
    return finished_now
