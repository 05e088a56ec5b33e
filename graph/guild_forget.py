"""Forget a member in one guild only (a moderator acting on a deletion request there).

`GraphStore.forget_user(user, guild)` deletes what they said in the guild and the facts about, from or
naming them there, keeps their account while they have a trace elsewhere, and in the same transaction
(every statement from an index) drops their membership (and nickname) there, redacts their id and names
from that guild's texts the full-text indexes find, and audits that guild through the same indexes and
their own edges. What the moderator waits for stops there. The thorough guild audit (every property of
that guild's nodes and edges, a scan of the guild) runs after (`finish_guild_audit`: the bot's in the
background, the CLI's before it prints), and redacts by that scan what the indexes did not find.
Their other guilds and their DMs are untouched.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from datetime import UTC, datetime
from typing import Any

from common.text import name_key, names_word, redact
from graph.forget import ForgetReport, Residue
from graph.purge import mark_due
from graph.session import Runner, Tx, run
from graph.store import GraphStore

_REDACTABLE = {"Message": ("content",), "Episode": ("summary", "error"), "Fact": ("text",)}
_ENTITY_NAMES = ("name", "alias_text", "name_key")


async def member_names(runner: Runner, user_id: str, known: Sequence[str] = ()) -> list[str]:
    """The names to look for: stored account, display and nicknames, and those Discord knows (2+ letters)."""
    rows = await runner.read("store/member_names", user_id=user_id)
    stored = [rows[0]["name"], rows[0]["display_name"], *rows[0]["nicknames"]] if rows else []
    return sorted({n for n in (*stored, *known) if n and len(n) >= 2})


def _names_in(value: str, key: str, names: list[str]) -> bool:
    if key == "name_key":
        return names_word(value, [k for n in names for k in (name_key(n), name_key(n) + "s") if k])
    return names_word(value, names)


async def _found(tx: Tx, user_id: str, guild_id: str, names: list[str]) -> list[dict[str, Any]]:
    rows = await run(tx, "store/guild_residue_nodes", user_id=user_id, guild_id=guild_id, names=[n.casefold() for n in names])
    return [r for r in rows if user_id in r["value"] or _names_in(r["value"], r["key"], names)]


async def _audit(tx: Tx, user_id: str, guild_id: str, names: list[str]) -> list[Residue]:
    residue = [Residue(r["label"], r["node_key"], r["key"], r["value"]) for r in await _found(tx, user_id, guild_id, names)]
    for row in await run(tx, "store/guild_residue_relationships", user_id=user_id, guild_id=guild_id):
        residue.append(Residue(row["type"], None, row["key"], str(row["value"])))
    return residue


async def _scrub(tx: Tx, user_id: str, guild_id: str, names: list[str]) -> int:
    """The fallback: their id and names redacted from what the guild scan finds. Returns nodes redacted."""
    needles = [user_id, *names]
    by_node: dict[str, dict[str, Any]] = {}
    entities: set[str] = set()
    for row in await _found(tx, user_id, guild_id, names):
        if row["label"] == "Entity" and row["key"] in _ENTITY_NAMES:
            entities.add(row["element_id"])
        elif row["key"] in _REDACTABLE.get(row["label"], ()):
            by_node.setdefault(row["element_id"], {})[row["key"]] = redact(row["value"], needles)
    for row in await run(tx, "store/entities_to_redact", element_ids=sorted(entities)) if entities else []:
        name = redact(row["name"] or "", needles)
        aliases = list(dict.fromkeys(redact(a, needles) for a in row["aliases"]))
        by_node[row["element_id"]] = {
            "name": name,
            "name_key": name_key(name),
            "aliases": aliases,
            "alias_text": "".join(" " + a for a in aliases),  # as store/write_entities joins them
        }
    for element_id, props in by_node.items():
        await run(tx, "store/redact_node", element_id=element_id, props=props)
    if by_node:  # the redacted texts' old index entries must leave the engine's files
        await mark_due(tx, datetime.now(UTC))
    return len(by_node)


async def guild_residue(runner: Runner, user_id: str, guild_id: str, names: list[str]) -> list[Residue]:
    """What of the member one guild still holds: their id or names in its nodes, their edges into it."""
    return await runner.read_tx(lambda tx: _audit(tx, user_id, guild_id, names))


async def finish_guild_audit(runner: Runner, user_id: str, guild_id: str, names: Sequence[str]) -> tuple[int, list[Residue]]:
    """The thorough audit of one guild after a forget there; what it finds is redacted by that scan and audited
    again. Returns (texts redacted, residue)."""
    names = list(names)
    found = await guild_residue(runner, user_id, guild_id, names)
    if not found:
        return 0, []
    redacted = await runner.write(lambda tx: _scrub(tx, user_id, guild_id, names))
    return redacted, await guild_residue(runner, user_id, guild_id, names)


async def forget_in_guild(
    store: GraphStore,
    user_id: str,
    guild_id: str,
    known_names: Sequence[str] = (),
    *,
    purge: bool = False,
    thorough_audit: bool = True,
) -> ForgetReport:
    """Forget the member in `guild_id` only, audited in that guild through the indexes, then (unless not
    `thorough_audit`) by a scan of that guild; the report's residue is that guild's. The engine's files are
    purged at once with `purge`, else by the next upkeep pass (graph/purge.py)."""
    names = await member_names(store.runner, user_id, known_names)
    report = await store.forget_user(user_id, guild_id, known_names=names, thorough_audit=thorough_audit)
    if not report.deleted.get("User") and thorough_audit:  # else forget_user audited everywhere
        started = time.perf_counter()
        redacted, report.residue = await finish_guild_audit(store.runner, user_id, guild_id, report.names or names)
        report.redacted += redacted
        report.audit_seconds, report.thorough = time.perf_counter() - started, True
    if purge and (any(report.deleted.values()) or report.redacted):
        done = await store.purge_if_due()
        report.files_failed, report.files_seconds, report.files_purged = done.failed, done.seconds, True
    return report
