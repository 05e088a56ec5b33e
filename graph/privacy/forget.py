"""A forget, top to bottom: the one driver of every forget request (a member's forget-me everywhere, a
moderator's in one guild, `grapevine forget`, a retry by upkeep): `drive`.

In order: keep the request on disk before the graph is touched (graph/privacy/requests.py, with where the
member's names stand for them, read first: graph/privacy/guards/name_scope.py); opt the member out (a forget
everywhere) and let the process drop what it holds of theirs (`Hooks`: the bot's buffered messages, its paused
ingestor); delete, redact and audit through the indexes in one transaction (graph/privacy/deletion.py); the
thorough audit after the commit, which redacts what its scan finds (graph/privacy/audit.py); the purge of the
engine's files (graph/privacy/purge.py); and finish: the request leaves the file once that audit is clean and no
purge failed. Each step calls down, never back.
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import Awaitable, Callable, Sequence
from contextlib import AbstractAsyncContextManager
from dataclasses import dataclass, replace
from typing import Literal

from graph.privacy import purge as engine_files
from graph.privacy.audit import finish_audit
from graph.privacy.deletion import ForgetReport, delete_and_redact
from graph.privacy.guards import consent
from graph.privacy.guards.name_scope import NameScope, name_scope
from graph.privacy.requests import Request, Requests
from graph.store import GraphStore

Purge = Literal["now", "later", "if_idle"]  # if_idle: only when the pass found nothing to delete (a purge failed before)


@dataclass(frozen=True)
class Hooks:
    """What the process running a forget does around its pass; the defaults are a process that holds nothing of
    the member (`grapevine forget`). A running bot opts out through its own consent cache, drops the member's
    buffered messages, and pauses its ingestor while the forget's transaction runs."""

    opt_out: Callable[[str], Awaitable[object]] | None = None  # None: the opt-out record in the graph
    drop_buffered: Callable[[Request], Awaitable[object]] | None = None
    paused: Callable[[], AbstractAsyncContextManager[object]] | None = None


@dataclass(frozen=True)
class Driven:
    request: Request  # as kept, with where the member's names stand for them
    report: ForgetReport
    finished: bool  # the request left the file


async def drive(
    store: GraphStore,
    requests: Requests,
    request: Request,
    hooks: Hooks = Hooks(),
    *,
    kept: bool = False,
    thorough: bool = True,
    purge: Purge = "later",
) -> Driven:
    """Keep (or, for a request `kept` already, read its scope again), opt out and drop, delete and audit, purge,
    finish. Without `thorough` only the audit through the indexes runs: the caller audits later."""
    request = await with_scope(store, request) if kept else await keep(store, requests, request)
    if request.guild_id is None:  # first, so that no process stores anything of theirs while the forget runs
        await (hooks.opt_out or (lambda user_id: consent.opt_out(store, user_id)))(request.user_id)
    if hooks.drop_buffered is not None:
        await hooks.drop_buffered(request)
    async with hooks.paused() if hooks.paused is not None else contextlib.nullcontext():
        report = await run_request(store, request, thorough=thorough, purge=purge == "now")
    if purge == "if_idle" and not report.files_failed and not (any(report.deleted.values()) or report.redacted):
        report.files_failed = (await engine_files.purge_if_due(store)).failed  # an earlier purge that failed
    return Driven(request, report, finish(requests, request, report))


async def keep(store: GraphStore, requests: Requests, request: Request) -> Request:
    """Note the request durably first, then again with where the member's names stand for them; returns what is
    kept (merged with an earlier run's: the account may be gone since)."""
    return requests.record(await with_scope(store, requests.record(request)))


async def with_scope(store: GraphStore, request: Request) -> Request:
    """The request with where the member's names stand for them, read now (a read, before anything is written)
    and merged with what an earlier run kept."""
    found = await read_scope(store, request.user_id, request.guild_id, request.names)
    return replace(request, scope=found.merged(request.scope))


async def read_scope(store: GraphStore, user_id: str, guild_id: str | None, known: Sequence[str] = ()) -> NameScope:
    """Where and which of the member's names stand for them (in one guild, or in every guild of theirs)."""
    return await store.runner.read_tx(lambda tx: name_scope(tx, user_id, guild_id, known))


async def run_request(store: GraphStore, request: Request, *, thorough: bool = True, purge: bool = False) -> ForgetReport:
    """One pass of the request: the forget's transaction (everywhere, or in its guild), the residue audit (the
    thorough one unless not `thorough`; the report's residue is that of everywhere, or of the guild), and with
    `purge` the engine's files (of any erasure waiting for it too). A pass after one that committed finds the
    account gone and still redacts, audits and purges."""
    scope = request.scope
    if request.guild_id is not None:  # a guild's scope is read outside the transaction, as the request's is
        scope = (await read_scope(store, request.user_id, request.guild_id, request.names)).merged(scope)
    report = await delete_and_redact(store, request.user_id, request.guild_id, request.names, scope=scope)
    if thorough:
        started = time.perf_counter()
        redacted, report.residue = await finish_audit(
            store, report.scope or scope or NameScope(request.user_id), request.guild_id
        )
        report.redacted += redacted
        report.audit_seconds, report.thorough = time.perf_counter() - started, True
    if purge:
        done = await engine_files.purge_if_due(store)
        report.files_failed, report.files_seconds, report.files_purged = done.failed, done.seconds, True
    return report


def finished(report: ForgetReport) -> bool:
    """Whether the request can leave the file: the thorough audit found nothing, and no purge tried failed."""
    return report.clean and report.thorough


def finish(requests: Requests, request: Request, report: ForgetReport) -> bool:
    """The request leaves the file when it is finished; True when it did."""
    if finished(report):
        requests.done(request)
    return finished(report)


async def forget_user(
    store: GraphStore,
    user_id: str,
    guild_id: str | None = None,
    known_names: Sequence[str] = (),
    *,
    scope: NameScope | None = None,
    purge: bool = False,
    thorough_audit: bool = True,
) -> ForgetReport:
    """A forget not kept on disk (one that needs no retry: a test's, a benchmark's, a member we stored nothing
    else of): `run_request` of the request."""
    request = Request(user_id, guild_id, tuple(known_names), scope)
    return await run_request(store, request, thorough=thorough_audit, purge=purge)


async def drop_command_trace(store: GraphStore, user_id: str, message_id: str | None) -> bool:
    """After an opt-out said in a message: that message goes, and a member it was all we had of is
    forgotten entirely (their account, DM space and the engine's files). True when they were."""
    rows = await store.runner.write_one("store/drop_own_message", user_id=user_id, message_id=message_id or "")
    if rows and (rows[0]["messages"] or rows[0]["facts"]):
        return False
    report = await forget_user(store, user_id)
    return bool(report.deleted.get("User"))
