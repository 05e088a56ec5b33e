"""Forget-me: delete a user's subgraph, scrub what names them, and prove it with a residue audit."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from common.text import names_word, redact
from graph.models import dm_scope
from graph.session import Runner, Tx, run

# Properties that carry text a person wrote or a summary of it: where a forgotten name is redacted.
_REDACTABLE = {
    "Message": ("content",),
    "Episode": ("summary", "error"),
    "Entity": ("name", "alias_text"),
}


@dataclass(frozen=True)
class Residue:
    label: str
    node_key: str | None
    key: str
    value: str


@dataclass
class ForgetReport:
    user_id: str
    guild_id: str | None
    deleted: dict[str, int] = field(default_factory=dict)
    redacted: int = 0
    residue: list[Residue] = field(default_factory=list)


def _names(row: dict[str, Any] | None) -> list[str]:
    if not row:
        return []
    given = (row.get("name"), row.get("display_name"), *(row.get("nicknames") or ()))
    return sorted({n for n in given if n and len(n) >= 2})


async def _audit(tx: Tx, user_id: str, names: list[str]) -> list[Residue]:
    found = await run(tx, "store/residue_nodes", user_id=user_id, names=[n.casefold() for n in names])
    residue = []
    for row in found:
        value = row["value"]
        if user_id in value or names_word(
            value, [n for n in names if not (row["label"] == "User" and row["node_key"] != user_id)]
        ):
            residue.append(Residue(row["label"], row["node_key"], row["key"], value))
    for row in await run(tx, "store/residue_relationships", user_id=user_id):
        residue.append(Residue(row["type"], None, row["key"], row["value"]))
    return residue


async def forget_user(runner: Runner, user_id: str, guild_id: str | None = None, known_names: Sequence[str] = ()) -> ForgetReport:
    """Delete the user's subgraph (in one guild, or everywhere, their DM space included) in one
    transaction, then audit it."""

    async def work(tx: Tx) -> ForgetReport:
        report = ForgetReport(user_id, guild_id)
        dm_space = await run(tx, "store/forget_dm_space", guild_id=dm_scope(user_id)) if guild_id is None else []
        account = await run(tx, "store/forget_user", user_id=user_id)
        names = sorted(set(_names(account[0] if account else None)) | {n for n in known_names if len(n) >= 2})
        mentioning = await run(tx, "store/facts_mentioning", user_id=user_id, guild_id=guild_id)
        named = [r["uuid"] for r in mentioning if names_word(r["text"], names) or user_id in r["text"]]
        facts = await run(tx, "store/forget_facts", user_id=user_id, guild_id=guild_id, also_uuids=named)
        report.deleted["Fact"] = int(facts[0]["facts"]) if facts else 0
        touched = facts[0]["touched"] if facts else []
        messages = await run(tx, "store/forget_messages", user_id=user_id, guild_id=guild_id)
        report.deleted["Message"] = int(messages[0]["messages"]) if messages else 0
        report.deleted["Episode"] = int(messages[0]["episodes"]) if messages else 0
        entities = await run(tx, "store/forget_orphan_entities", uuids=touched, user_id=user_id, guild_id=guild_id)
        report.deleted["Entity"] = int(entities[0]["entities"]) if entities else 0
        users = await run(tx, "store/forget_account", user_id=user_id, guild_id=guild_id)
        report.deleted["User"] = int(users[0]["users"]) if users else 0
        for row in dm_space:
            report.deleted[row["label"]] = report.deleted.get(row["label"], 0) + int(row["deleted"])
        if report.deleted["User"]:
            report.redacted = await _redact(tx, user_id, names, guild_id)
            report.residue = await _audit(tx, user_id, names)
        return report

    return await runner.write(work)


async def _redact(tx: Tx, user_id: str, names: list[str], guild_id: str | None) -> int:
    found = await run(tx, "store/residue_nodes", user_id=user_id, names=[n.casefold() for n in names])
    redacted = 0
    by_node: dict[str, dict[str, str]] = {}
    for row in found:
        fields = _REDACTABLE.get(row["label"], ())
        if row["key"] not in fields:
            continue
        new = redact(row["value"], [user_id, *names])
        if new != row["value"]:
            by_node.setdefault(row["element_id"], {})[row["key"]] = new
    for element_id, props in by_node.items():
        if "alias_text" in props:
            props_aliases = [a for a in props["alias_text"].split() if a != "[forgotten]"]
            await run(tx, "store/redact_node", element_id=element_id, props={**props, "aliases": props_aliases})
        else:
            await run(tx, "store/redact_node", element_id=element_id, props=props)
        redacted += 1
    return redacted


async def residue_audit(runner: Runner, user_id: str, names: list[str]) -> list[Residue]:
    """Every node or relationship property still carrying the user's id, or their name as a word."""
    return await runner.read_tx(lambda tx: _audit(tx, user_id, names))
