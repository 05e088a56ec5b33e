"""A member's data access request: everything stored about them and from them, as one JSON-ready record."""

from __future__ import annotations

from typing import Any

from common.text import names_word
from graph.session import Runner


async def export_member(runner: Runner, user_id: str) -> dict[str, Any] | None:
    """Their account, facts (with provenance and validity), messages and conversation summaries, sorted;
    then what names them without being linked to their account: facts about something of theirs or
    naming them, and summaries naming them. None when nothing of them is stored."""
    rows = await runner.read("store/export_member", user_id=user_id)
    if not rows:
        return None
    row = rows[0]
    names = sorted(
        {n for n in (row["name"], row["display_name"], *(m["nickname"] for m in row["memberships"])) if n and len(n) >= 2}
    )
    folded = [n.casefold() for n in names]
    linked = {f["uuid"] for f in row["facts"]}
    related: dict[str, dict[str, Any]] = {}
    for r in [
        *await runner.read("store/export_related_facts", user_id=user_id),
        *await runner.read("store/export_naming_facts", user_id=user_id, names=folded),
    ]:
        fact = r["fact"]
        if fact["uuid"] in linked or fact["uuid"] in related:
            continue
        if fact["related"] or user_id in fact["text"] or names_word(fact["text"], names):
            related[fact["uuid"]] = fact
    naming = [
        r["summary"]
        for r in await runner.read("store/export_naming_summaries", user_id=user_id, names=folded)
        if names_word(r["summary"]["summary"], names)
    ]
    return {
        "user_id": user_id,
        "name": row["name"],
        "display_name": row["display_name"],
        "memberships": sorted(row["memberships"], key=lambda m: m["guild_id"]),
        "facts": sorted(row["facts"], key=lambda f: (f["created_at"] or "", f["uuid"])),
        "messages": sorted(row["messages"], key=lambda m: (m["created_at"] or "", m["id"])),
        "summaries": sorted(row["summaries"], key=lambda s: (s["started_at"] or "", s["summary"])),
        "facts_naming_them": sorted(related.values(), key=lambda f: (f["created_at"] or "", f["uuid"])),
        "summaries_naming_them": sorted(naming, key=lambda s: (s["started_at"] or "", s["summary"])),
    }
