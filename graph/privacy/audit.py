"""Forget a member in one guild only (a moderator acting on a deletion request there).

`GraphStore.forget_user(user, guild)` deletes what they said in the guild and the facts about, from or
naming them there, keeps their account while they have a trace elsewhere, and in the same transaction
(every statement from an index) drops their membership (and nickname) there, redacts their id and the names
that identify them there (graph/privacy/name_scope.py) from that guild's texts the full-text indexes find, and audits
that guild through the same indexes and their own edges. What the moderator waits for stops there. The
thorough guild audit (every property of that guild's nodes and edges, a scan of the guild) runs after
(`finish_guild_audit`: the bot's in the background, the CLI's before it prints), and redacts by that scan what
the indexes did not find. Their other guilds and their DMs are untouched.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from typing import Any

from common.text import search_forms
from graph.privacy.deletion import ForgetReport, Residue, redact_rows, scanned
from graph.privacy.name_scope import NameScope, name_scope
from graph.session import Runner, Tx, run
from graph.store import GraphStore


async def guild_scope(runner: Runner, user_id: str, guild_id: str, known: Sequence[str] = ()) -> NameScope:
    """Where and which of the member's names stand for them in that guild (read before a forget there)."""
    return await runner.read_tx(lambda tx: name_scope(tx, user_id, guild_id, known))


async def _found(tx: Tx, scope: NameScope, guild_id: str) -> list[dict[str, Any]]:
    names = search_forms(scope.names(guild_id))
    rows = await run(tx, "store/guild_residue_nodes", user_id=scope.user_id, guild_id=guild_id, names=names)
    return await scanned(tx, scope, rows)


async def _audit(tx: Tx, scope: NameScope, guild_id: str) -> list[Residue]:
    residue = [Residue(r["label"], r["node_key"], r["key"], r["value"]) for r in await _found(tx, scope, guild_id)]
    for row in await run(tx, "store/guild_residue_relationships", user_id=scope.user_id, guild_id=guild_id):
        residue.append(Residue(row["type"], None, row["key"], str(row["value"])))
    return residue


async def _scrub(tx: Tx, scope: NameScope, guild_id: str) -> int:
    """The fallback: their id and names redacted from what the guild scan finds. Returns nodes redacted."""
    return await redact_rows(tx, scope, await _found(tx, scope, guild_id))


async def guild_residue(runner: Runner, scope: NameScope, guild_id: str) -> list[Residue]:
    """What of the member one guild still holds: their id or names in its nodes, their edges into it."""
    return await runner.read_tx(lambda tx: _audit(tx, scope, guild_id))


async def finish_guild_audit(runner: Runner, scope: NameScope, guild_id: str) -> tuple[int, list[Residue]]:
    """The thorough audit of one guild after a forget there; what it finds is redacted by that scan and audited
    again. Returns (texts redacted, residue)."""
    scope = scope.only(guild_id)
    found = await guild_residue(runner, scope, guild_id)
    if not found:
        return 0, []
    redacted = await runner.write(lambda tx: _scrub(tx, scope, guild_id))
    return redacted, await guild_residue(runner, scope, guild_id)


async def forget_in_guild(
    store: GraphStore,
    user_id: str,
    guild_id: str,
    known_names: Sequence[str] = (),
    *,
    scope: NameScope | None = None,
    purge: bool = False,
    thorough_audit: bool = True,
) -> ForgetReport:
    """Forget the member in `guild_id` only, audited in that guild through the indexes, then (unless not
    `thorough_audit`) by a scan of that guild; the report's residue is that guild's. `scope` is the one read
    when the request was kept (else it is read now). The engine's files are purged at once with `purge`, else
    by the next upkeep pass (graph/privacy/purge.py)."""
    found = (await guild_scope(store.runner, user_id, guild_id, known_names)).merged(scope)
    report = await store.forget_user(user_id, guild_id, scope=found, thorough_audit=False)
    if thorough_audit:
        started = time.perf_counter()
        redacted, report.residue = await finish_guild_audit(store.runner, report.scope or found, guild_id)
        report.redacted += redacted
        report.audit_seconds, report.thorough = time.perf_counter() - started, True
    if purge:
        done = await store.purge_if_due()
        report.files_failed, report.files_seconds, report.files_purged = done.failed, done.seconds, True
    return report
