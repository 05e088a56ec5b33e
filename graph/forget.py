"""Forget-me: delete a user's subgraph, scrub what names them, and prove it with a residue audit."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from common.text import name_key, names_word, redact
from graph.models import dm_scope
from graph.session import Runner, Tx, run

# Properties that carry text a person wrote or a summary of it: where a forgotten name is redacted.
_REDACTABLE = {
    "Message": ("content",),
    "Episode": ("summary", "error"),
    "Fact": ("text",),
}
_ENTITY_NAMES = ("name", "alias_text", "name_key")  # redacted together: the name, each alias, the key


def _names_in(value: str, key: str, names: list[str]) -> bool:
    """Whether a property value names someone: as a word, or in a name key also as "<name>s" (possessive)."""
    if key == "name_key":
        return names_word(value, [k for n in names for k in (name_key(n), name_key(n) + "s") if k])
    return names_word(value, names)


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
    files_failed: dict[str, str] = field(default_factory=dict)  # engine indexes the erasure did not reach
    files_seconds: float = 0.0  # of the whole forget, the time the engine's files took (index rebuilds)

    @property
    def clean(self) -> bool:
        return not self.residue and not self.files_failed


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
        if user_id in value or _names_in(
            value, row["key"], [n for n in names if not (row["label"] == "User" and row["node_key"] != user_id)]
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
        folded = [n.casefold() for n in names]
        naming = await run(tx, "store/facts_naming", user_id=user_id, guild_id=guild_id, names=folded)
        named = [r["uuid"] for r in naming if names_word(r["text"], names) or user_id in r["text"]]
        sent = await run(tx, "store/forget_message_ids", user_id=user_id, guild_id=guild_id)
        facts = await run(tx, "store/forget_facts", user_id=user_id, guild_id=guild_id, also_uuids=named)
        report.deleted["Fact"] = int(facts[0]["facts"]) if facts else 0
        touched = facts[0]["touched"] if facts else []
        messages = await run(tx, "store/forget_messages", user_id=user_id, guild_id=guild_id)
        report.deleted["Message"] = int(messages[0]["messages"]) if messages else 0
        report.deleted["Episode"] = int(messages[0]["episodes"]) if messages else 0
        if sent and sent[0]["ids"]:
            await run(tx, "store/forget_message_traces", ids=sent[0]["ids"], channels=sent[0]["channels"])
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
    needles = [user_id, *names]
    by_node: dict[str, dict[str, Any]] = {}
    entities: set[str] = set()
    for row in found:
        if row["label"] == "Entity" and row["key"] in _ENTITY_NAMES:
            entities.add(row["element_id"])
            continue
        if row["key"] not in _REDACTABLE.get(row["label"], ()):
            continue
        new = redact(row["value"], needles)
        if new != row["value"]:
            by_node.setdefault(row["element_id"], {})[row["key"]] = new
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
        redacted += 1
    return redacted


async def residue_audit(runner: Runner, user_id: str, names: list[str]) -> list[Residue]:
    """Every node or relationship property still carrying the user's id, or their name as a word."""
    return await runner.read_tx(lambda tx: _audit(tx, user_id, names))
