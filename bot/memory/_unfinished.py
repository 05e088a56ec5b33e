"""Forgets that must finish: each request is written to `<data dir>/unfinished_forgets.jsonl` (fsynced)
before the graph is touched, and leaves it only once the residue audit is clean and the engine's files
are purged. A forget the database failed mid-way, or that left residue, stays there; upkeep runs it
again (`retry`) until it is clean, then logs `forget_finished`. The line holds the member's id and
names, which the forget needs, and nothing else; it goes with the request.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from dataclasses import dataclass

from bot.listening._pending import PendingChanges
from bot.services import Services
from common.events import emit
from graph.forget import ForgetReport, residue_audit
from graph.guild_forget import forget_in_guild
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


async def run(services: Services, request: Request) -> ForgetReport:
    """One pass of the request, the ingestor paused; the report's residue is what the audit still finds
    (everywhere, or in the guild), and files_failed the indexes not rebuilt."""
    store = services.store
    if request.guild_id is None:
        await services.consent.opt_out(request.user_id)  # first: nothing of theirs is stored meanwhile
    services.live.drop_user(request.user_id, request.guild_id)
    if request.guild_id is not None:
        await services.live.flush()  # their messages of other guilds stay; those of this one are written, then go
    async with services.ingestor.paused():
        if request.guild_id is None:
            report = await store.forget_user(request.user_id, known_names=request.names)
            if not report.deleted.get("User"):  # already gone: forget_user did not audit this time
                report.residue = await residue_audit(store.runner, request.user_id, list(request.names))
        else:
            report = await forget_in_guild(store, request.user_id, request.guild_id, request.names)
    return report


async def forget(services: Services, request: Request) -> ForgetReport:
    """Record, run, and close the request when clean; raises when the graph failed (it stays recorded)."""
    record(services, request)
    report = await run(services, request)
    if report.clean:
        done(services, request)
    return report


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
