"""Forgets that must finish: each request is written to `<data dir>/unfinished_forgets.jsonl` (fsynced)
before the graph is touched, and leaves it only once the residue audit is clean and the engine's files
are purged. A forget the database failed mid-way, or that left residue, stays there; upkeep runs it
again (`retry`) until it is clean, then logs `forget_finished`. The line holds the member's id and
names, which the forget needs, and nothing else; it goes with the request.

The member waits for the forget's transaction and the audit through the indexes inside it; the thorough audit
(every property of the graph) runs after the reply, in the background (`audit_later`), and the request leaves
the file only once it is clean: what it still finds is left to upkeep's `retry`, as a forget that failed.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Sequence
from dataclasses import dataclass

from bot.listening._pending import PendingChanges
from bot.services import Services
from common.events import emit
from graph.forget import ForgetReport, finish_audit
from graph.guild_forget import finish_guild_audit, forget_in_guild
from graph.store import now_utc

FILE_NAME = "unfinished_forgets.jsonl"


@dataclass(frozen=True)
class Request:
    user_id: str
    guild_id: str | None  # None: everywhere, their DMs too (their own forget-me); else a moderator's, in one guild
    names: tuple[str, ...]

    @property
    def key(self) -> tuple[str, str | None]:
        return (self.user_id, self.guild_id)


def _file(services: Services) -> PendingChanges:
    return PendingChanges(services.settings.graph.data_dir / FILE_NAME)


def waiting(services: Services) -> list[Request]:
    return [
        Request(str(r["user_id"]), r.get("guild_id"), tuple(r.get("names") or ()))
        for r in _file(services).load()
        if r.get("user_id")
    ]


def record(services: Services, request: Request) -> None:
    """Durably note the request (once per member and scope) before any of it runs."""
    pending = _file(services)
    if any(r.key == request.key for r in waiting(services)):
        return
    pending.add({"user_id": request.user_id, "guild_id": request.guild_id, "names": list(request.names)})


def done(services: Services, request: Request) -> None:
    kept = [r for r in waiting(services) if r.key != request.key]
    _file(services).keep([{"user_id": r.user_id, "guild_id": r.guild_id, "names": list(r.names)} for r in kept])


def _with_names(services: Services, request: Request, names: Sequence[str]) -> Request:
    """The request with the names the forget looked for (the account's nicknames too): what the thorough audit,
    or a retry after the account is gone, needs."""
    more = tuple(sorted({*request.names, *names}))
    if set(more) == set(request.names):
        return request
    kept = [r for r in waiting(services) if r.key != request.key]
    renamed = Request(request.user_id, request.guild_id, more)
    _file(services).keep([{"user_id": r.user_id, "guild_id": r.guild_id, "names": list(r.names)} for r in [*kept, renamed]])
    return renamed


async def run(services: Services, request: Request, *, thorough: bool = True) -> ForgetReport:
    """One pass of the request, the ingestor paused; the report's residue is what the audit still finds
    (everywhere, or in the guild), and files_failed the indexes not rebuilt. Without `thorough`, a forget
    everywhere is audited through the indexes only (`audit_later` does the rest)."""
    store = services.store
    if request.guild_id is None:
        await services.consent.opt_out(request.user_id)  # first: nothing of theirs is stored meanwhile
    services.live.drop_user(request.user_id, request.guild_id)
    if request.guild_id is not None:
        await services.live.flush()  # their messages of other guilds stay; those of this one are written, then go
    async with services.ingestor.paused():
        if request.guild_id is None:
            report = await store.forget_user(request.user_id, known_names=request.names, thorough_audit=thorough)
            if not report.deleted.get("User"):  # already gone: forget_user did not audit this time
                redacted, report.residue = await finish_audit(store.runner, request.user_id, request.names)
                report.redacted, report.thorough = report.redacted + redacted, True
        else:
            report = await forget_in_guild(store, request.user_id, request.guild_id, request.names, thorough_audit=thorough)
    return report


_AUDITS: set[asyncio.Task[bool]] = set()  # thorough audits running after the member's reply


async def forget(services: Services, request: Request) -> ForgetReport:
    """Record and run the request; raises when the graph failed (it stays recorded). One the indexed audit found
    clean is audited thoroughly in the background (everywhere, or that guild), then closed (`audit_later`)."""
    record(services, request)
    report = await run(services, request, thorough=False)
    if not report.clean:
        return report
    if report.thorough:
        done(services, request)
    else:
        task = asyncio.create_task(audit_later(services, _with_names(services, request, report.names)))
        _AUDITS.add(task)
        task.add_done_callback(_AUDITS.discard)
    return report


async def audit_later(services: Services, request: Request) -> bool:
    """The thorough audit of a forget the member was already answered for: clean, the request is closed; else
    it stays recorded for upkeep's `retry`. True when clean."""
    started, runner = time.perf_counter(), services.store.runner
    try:
        if request.guild_id is None:
            redacted, residue = await finish_audit(runner, request.user_id, request.names)
        else:
            redacted, residue = await finish_guild_audit(runner, request.user_id, request.guild_id, request.names)
    except Exception as exc:  # noqa: BLE001 - stays recorded; the next upkeep audits again
        emit("bot", "forget_audit_failed", level=logging.WARNING, user_id=request.user_id, error=type(exc).__name__)
        return False
    seconds, scope = round(time.perf_counter() - started, 3), "everywhere" if request.guild_id is None else "guild"
    if residue:
        emit("bot", "forget_unfinished", level=logging.WARNING, user_id=request.user_id, scope=scope, residue=len(residue))
        return False
    done(services, request)
    emit("bot", "forget_audited", user_id=request.user_id, scope=scope, redacted=redacted, seconds=seconds)
    return True


async def audits_settled() -> None:
    """Wait for the thorough audits still running (bot shutdown, tests)."""
    while _AUDITS:
        await asyncio.gather(*list(_AUDITS), return_exceptions=True)


async def retry(services: Services, forgets: Sequence[Request] | None = None) -> int:
    """Upkeep: run each waiting request again; returns how many finished (clean) in this pass."""
    finished = 0
    for request in waiting(services) if forgets is None else forgets:
        scope = "everywhere" if request.guild_id is None else "guild"
        try:
            report = await run(services, request)
            if not report.files_failed and not (any(report.deleted.values()) or report.redacted):
                report.files_failed = (await services.store.purge_if_due()).failed  # an earlier purge that failed
        except Exception as exc:  # noqa: BLE001 - stays recorded; the next upkeep tries again
            emit("bot", "forget_retry_failed", level=logging.WARNING, user_id=request.user_id, error=type(exc).__name__)
            continue
        if not report.clean:
            emit(
                "bot",
                "forget_unfinished",
                level=logging.WARNING,
                user_id=request.user_id,
                scope=scope,
                residue=len(report.residue),
                files_failed=sorted(report.files_failed),
            )
            continue
        done(services, request)
        finished += 1
        emit("bot", "forget_finished", user_id=request.user_id, scope=scope, guild_id=request.guild_id, at=now_utc().isoformat())
    return finished
