"""Forget a member in one guild only (a moderator acting on a deletion request there).

`GraphStore.forget_user(user, guild)` deletes what they said in the guild and the facts about, from or
naming them there, but keeps their account while they have a trace elsewhere; then it neither redacts
nor audits. This finishes it for the guild: their membership (and nickname) there goes, their id and
names are redacted from that guild's messages, summaries, facts and entities, and the audit looks
at that guild's nodes and edges. Their other guilds and their DMs are untouched.
"""

from __future__ import annotations

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
    """Their membership goes; their id and names are redacted from the guild's texts. Returns nodes redacted."""
    await run(tx, "store/leave_guild", user_id=user_id, guild_id=guild_id)
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
    return len(by_node)


async def guild_residue(runner: Runner, user_id: str, guild_id: str, names: list[str]) -> list[Residue]:
    """What of the member one guild still holds: their id or names in its nodes, their edges into it."""
    return await runner.read_tx(lambda tx: _audit(tx, user_id, guild_id, names))


async def forget_in_guild(
    store: GraphStore, user_id: str, guild_id: str, known_names: Sequence[str] = (), *, purge: bool = False
) -> ForgetReport:
    """Forget the member in `guild_id` only, then audit that guild; the report's residue is that guild's.
    The engine's files are purged at once with `purge`, else by the next upkeep pass (graph/purge.py)."""
    names = await member_names(store.runner, user_id, known_names)
    report = await store.forget_user(user_id, guild_id, known_names=names, purge=purge)
    if report.deleted.get("User"):  # nothing of them was left elsewhere: forget_user redacted and audited everywhere
        return report

    async def finish(tx: Tx) -> tuple[int, list[Residue]]:
        redacted = await _scrub(tx, user_id, guild_id, names)
        if redacted:  # the redacted texts' old index entries must leave the engine's files
            await mark_due(tx, datetime.now(UTC))
        return redacted, await _audit(tx, user_id, guild_id, names)

    redacted, residue = await store.runner.write(finish)
    report.redacted += redacted
    report.residue = [*report.residue, *residue]
    if purge and redacted and not report.files_failed:
        done = await store.purge_if_due()
        report.files_failed, report.files_seconds, report.files_purged = done.failed, done.seconds, True
    return report
