"""The residue audit of a forget: what of the member the graph still holds, everywhere or in one guild, and the
redaction of what it finds.

The forget's own transaction audits through the indexes (graph/privacy/deletion.py); what the member waits for
stops there. The thorough audit (`finish_audit`: every property of every node and edge, or of one guild's, a
scan) runs after the commit, so it never holds the write transaction (the bot's in the background, the CLI's
before it prints), and redacts by that scan what the indexes did not find: text the indexes did not find, a name
inside a longer term the index keeps whole. Another guild and the member's DMs are untouched by a guild's.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from common.text import name_key, redact, search_forms
from graph.privacy.guards.name_scope import NameScope
from graph.privacy.purge import mark_due
from graph.session import Tx, run
from graph.store import GraphStore

ENTITY_NAMES = ("name", "alias_text", "name_key")  # an entity's names, redacted together: the name, each alias, the key
_REDACTABLE = {"Message": ("content",), "Episode": ("summary", "error"), "Fact": ("text",)}


@dataclass(frozen=True)
class Residue:
    label: str
    node_key: str | None
    key: str
    value: str


async def residue_audit(store: GraphStore, scope: NameScope, guild_id: str | None = None) -> list[Residue]:
    """Every node or relationship property (of one guild's, with `guild_id`) still carrying the user's id, or one
    of their names as a word where it stands for them; with `guild_id`, their edges into that guild too."""
    return await store.runner.read_tx(lambda tx: _audit(tx, scope, guild_id))


async def finish_audit(store: GraphStore, scope: NameScope, guild_id: str | None = None) -> tuple[int, list[Residue]]:
    """The thorough audit after a forget (everywhere, or in `guild_id`): what it finds is redacted by a full scan
    and audited again. Returns (texts redacted, residue)."""
    if guild_id is not None:
        scope = scope.only(guild_id)
    found = await residue_audit(store, scope, guild_id)
    if not found:
        return 0, []
    redacted = await store.runner.write(lambda tx: _redact_scanned(tx, scope, guild_id))
    return redacted, await residue_audit(store, scope, guild_id)


async def _scan(tx: Tx, scope: NameScope, guild_id: str | None) -> list[dict[str, Any]]:
    """The rows of every node (of the guild's) that carry the member."""
    if guild_id is None:
        rows = await run(tx, "store/residue_nodes", user_id=scope.user_id, names=search_forms(scope.every_name()))
    else:
        names = search_forms(scope.names(guild_id))
        rows = await run(tx, "store/guild_residue_nodes", user_id=scope.user_id, guild_id=guild_id, names=names)
    return scanned(scope, rows)


async def _audit(tx: Tx, scope: NameScope, guild_id: str | None) -> list[Residue]:
    residue = [Residue(r["label"], r["node_key"], r["key"], r["value"]) for r in await _scan(tx, scope, guild_id)]
    if guild_id is None:
        edges = await run(tx, "store/residue_relationships", user_id=scope.user_id)
    else:
        edges = await run(tx, "store/guild_residue_relationships", user_id=scope.user_id, guild_id=guild_id)
    residue += [Residue(row["type"], None, row["key"], str(row["value"])) for row in edges]
    return residue


async def _redact_scanned(tx: Tx, scope: NameScope, guild_id: str | None) -> int:
    """The fallback: redact what the thorough audit's scan finds. Returns nodes redacted."""
    return await redact_rows(tx, scope, await _scan(tx, scope, guild_id))


def scanned(scope: NameScope, rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Of a residue scan's rows (store/residue_nodes, store/guild_residue_nodes), those that carry the member:
    their id anywhere, their names in a guild where those stand for them (an account's own names on other
    members' User nodes are theirs, not the member's)."""
    return [
        r
        for r in rows
        if scope.user_id in r["value"]
        or (r["label"] != "User" and scope.names_it(r["value"], r["guild_id"], r["key"]))
        or (r["label"] == "User" and r["node_key"] == scope.user_id)
    ]


async def redact_rows(tx: Tx, scope: NameScope, found: list[dict[str, Any]]) -> int:
    """Redact, node by node, what a residue scan found; returns the nodes changed."""
    by_node: dict[str, dict[str, Any]] = {}
    entities: dict[str, str | None] = {}
    for row in found:
        if row["label"] == "Entity" and row["key"] in ENTITY_NAMES:
            entities[row["element_id"]] = row["guild_id"]
        elif row["key"] in _REDACTABLE.get(row["label"], ()):
            new = redact(row["value"], scope.needles(row["guild_id"]))
            if new != row["value"]:
                by_node.setdefault(row["element_id"], {})[row["key"]] = new
    for row in await run(tx, "store/entities_to_redact", element_ids=sorted(entities)) if entities else []:
        by_node[row["element_id"]] = entity_props(row["name"], row["aliases"], scope.needles(entities[row["element_id"]]))
    for element_id, props in by_node.items():
        await run(tx, "store/redact_node", element_id=element_id, props=props)
    if by_node:  # the redacted texts' old index entries must leave the engine's files
        await mark_due(tx, datetime.now(UTC))
    return len(by_node)


def entity_props(name: str | None, aliases: list[str], needles: list[str]) -> dict[str, Any]:
    """An entity's names redacted alias by alias, with the key and alias text built from them."""
    new = redact(name or "", needles)
    kept = list(dict.fromkeys(redact(a, needles) for a in aliases))
    return {"name": new, "name_key": name_key(new), "aliases": kept, "alias_text": "".join(" " + a for a in kept)}
