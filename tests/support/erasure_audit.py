"""Residue audits for tests that name the needles themselves: the member's id, and the given names looked for in
every guild the graph holds (stricter than a forget's own scope, which matches a name only where it identifies
them; graph/privacy/guards/name_scope.py)."""

from __future__ import annotations

from collections.abc import Sequence

from graph.privacy.audit import Residue, residue_audit
from graph.privacy.guards.name_scope import NameScope
from graph.store import GraphStore


async def residue_everywhere(store: GraphStore, user_id: str, names: Sequence[str] = ()) -> list[Residue]:
    found = await store.driver.execute_query(
        "MATCH (n) WHERE n.guild_id IS NOT NULL RETURN DISTINCT n.guild_id AS g", database_=store.engine.database
    )
    guilds = {r["g"] for r in found.records}
    return await residue_audit(store, NameScope(user_id, {g: tuple(names) for g in guilds}))


async def residue_in_guild(store: GraphStore, user_id: str, guild_id: str, names: Sequence[str] = ()) -> list[Residue]:
    return await residue_audit(store, NameScope(user_id, {guild_id: tuple(names)}), guild_id)
