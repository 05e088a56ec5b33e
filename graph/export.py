"""A member's data access request: everything stored about them and from them, as one JSON-ready record."""

from __future__ import annotations

from typing import Any

from graph.session import Runner


async def export_member(runner: Runner, user_id: str) -> dict[str, Any] | None:
    """Their account, facts (with provenance and validity), messages and conversation summaries, sorted;
    None when nothing of them is stored."""
    rows = await runner.read("store/export_member", user_id=user_id)
    if not rows:
        return None
    row = rows[0]
    return {
        "user_id": user_id,
        "name": row["name"],
        "display_name": row["display_name"],
        "memberships": sorted(row["memberships"], key=lambda m: m["guild_id"]),
        "facts": sorted(row["facts"], key=lambda f: (f["created_at"] or "", f["uuid"])),
        "messages": sorted(row["messages"], key=lambda m: (m["created_at"] or "", m["id"])),
        "summaries": sorted(row["summaries"], key=lambda s: (s["started_at"] or "", s["summary"])),
    }
