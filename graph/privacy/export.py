"""A member's data access request: what is theirs and about them, as one JSON-ready record.

It holds, in the guilds they could read (a member of, or wrote in) and their own DM space (never another guild or
another member's DMs): their account and memberships, their messages, the facts drawn from their words, the facts
about or mentioning them, the facts about what is theirs ("Charlie's sister"), the summaries of the conversations
they took part in, and the facts and summaries that name them where a name identifies them
(graph/privacy/guards/name_scope.py: not a fact that only shares a word with their name). A fact or summary about them
told where they could not read is counted (`withheld`), not shown: drawn only from channels not public to the
guild where they never wrote, or told in another member's DM space or a guild they never joined (never shown
with that space's id, other members' names or the guild's id). Other members appear by their display name in
that guild, never by id."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from common.text import MENTION, search_forms
from graph.models import dm_scope
from graph.privacy.deletion import NAMED_LIMIT, named_query
from graph.privacy.guards.name_scope import NameScope, name_scope
from graph.session import Tx, run
from graph.store import GraphStore

YOU = "you"  # how a report or mention of the member themselves reads
NOT_STORED = "someone no longer stored"  # a member forgotten or never stored, shown without their id


async def export_member(store: GraphStore, user_id: str) -> dict[str, Any] | None:
    """Everything of theirs and about them, sorted; None when nothing of them is stored."""
    return await store.runner.read_tx(lambda tx: _export(tx, user_id))


async def _spaces(tx: Tx, user_id: str) -> set[str]:
    """The guilds they could read (a member of, or wrote in) and their own DM space; never another member's."""
    found = await run(tx, "store/export_spaces", user_id=user_id)
    spaces = {str(g) for r in found for g in (*r["member_of"], *r["wrote_in"]) if g}
    own = dm_scope(user_id)
    return {g for g in spaces if not g.startswith(dm_scope("")) or g == own} | {own}


async def _export(tx: Tx, user_id: str) -> dict[str, Any] | None:
    spaces = await _spaces(tx, user_id)
    whole = await name_scope(tx, user_id)
    scope = NameScope(user_id, {g: n for g, n in whole.guilds.items() if g in spaces}, whole.withheld)
    guilds = sorted(spaces)
    rows = await run(tx, "store/export_member", user_id=user_id, guilds=guilds)
    if not rows:
        return None
    row = rows[0]
    linked = set(row["linked"])
    related = {r["uuid"] for r in await run(tx, "store/export_related_facts", user_id=user_id, guilds=guilds)} - linked
    naming = await _naming_facts(tx, scope) - linked - related
    facts = {f["uuid"]: f for f in await _facts(tx, user_id, sorted(linked | related | naming))}
    summaries = await _naming_summaries(tx, scope)
    sources = {c for f in facts.values() for c in f["sources"]} | {s["channel_id"] for s in summaries}
    readable = _Readable(set(row["wrote_in"]), await _channels(tx, sources))
    texts = [
        *((f["guild_id"], f["text"]) for f in facts.values()),
        *((m["guild_id"], m["content"]) for m in row["messages"]),
        *((s["guild_id"], s["summary"]) for s in (*row["summaries"], *summaries)),
    ]
    names = _Names(user_id, await _display_names(tx, user_id, [*facts.values()], texts))
    shown = {u: f for u, f in facts.items() if f["reported_by_them"] or readable.any_of(f["sources"])}
    withheld = {
        "facts": len(facts) - len(shown) + len(set(row["beyond"])),
        "summaries": sum(1 for s in summaries if not readable.channel(s["channel_id"])),
    }
    return {
        "user_id": user_id,
        "name": row["name"],
        "display_name": row["display_name"],
        "memberships": sorted(row["memberships"], key=lambda m: m["guild_id"]),
        "withheld": withheld,  # about them, told where they could not read: counted, not shown
        "facts": _sorted(names.fact(f) for u, f in shown.items() if u in linked),
        "messages": sorted((names.message(m) for m in row["messages"]), key=lambda m: (m["created_at"] or "", m["id"])),
        "summaries": sorted((names.summary(s) for s in row["summaries"]), key=lambda s: (s["started_at"] or "", s["summary"])),
        "facts_naming_them": _sorted(names.fact(f) for u, f in shown.items() if u not in linked),
        "summaries_naming_them": sorted(
            (names.summary(s) for s in summaries if readable.channel(s["channel_id"])),
            key=lambda s: (s["started_at"] or "", s["summary"]),
        ),
    }


def _sorted(facts: Iterable[dict[str, Any]]) -> list[dict[str, Any]]:
    return sorted(facts, key=lambda f: (f["created_at"] or "", f["uuid"]))


async def _facts(tx: Tx, user_id: str, uuids: list[str]) -> list[dict[str, Any]]:
    found = [r["fact"] for r in await run(tx, "store/export_facts", uuids=uuids, user_id=user_id)] if uuids else []
    for fact in found:
        fact["reported_by_them"] = any(r["user_id"] == user_id for r in fact["reports"])
    return found


async def _naming_facts(tx: Tx, scope: NameScope) -> set[str]:
    """Facts of their guilds whose text carries their id, or a name that identifies them there."""
    if not scope.guilds:
        return set()
    rows = await run(tx, "store/forget_named", query=named_query(scope), limit=NAMED_LIMIT)
    return {
        r["key"]
        for r in rows
        if r["label"] == "Fact" and r["guild_id"] in scope.guilds and scope.names_it(r["text"] or "", r["guild_id"])
    }


async def _naming_summaries(tx: Tx, scope: NameScope) -> list[dict[str, Any]]:
    found = []
    for guild_id, names in sorted(scope.guilds.items()):
        if not names:
            continue
        lowered = search_forms(names)
        for r in await run(tx, "store/export_naming_summaries", user_id=scope.user_id, guild_id=guild_id, names=lowered):
            if scope.names_it(r["summary"]["summary"], guild_id):
                found.append(r["summary"])
    return found


async def _channels(tx: Tx, ids: set[str]) -> dict[str, dict[str, Any]]:
    return {r["id"]: r for r in await run(tx, "store/export_channels", ids=sorted(ids))} if ids else {}


class _Readable:
    """Which channels the member could read: those @everyone can view, and those they wrote in (a thread: or
    its parent, when the thread is public to the guild)."""

    def __init__(self, wrote_in: set[str], channels: dict[str, dict[str, Any]]) -> None:
        self.wrote_in, self.channels = wrote_in, channels

    def channel(self, channel_id: str | None) -> bool:
        if channel_id is None or channel_id in self.wrote_in:
            return True
        found = self.channels.get(channel_id)
        return bool(found and found["public"])

    def any_of(self, channel_ids: list[str]) -> bool:
        """A fact's audience (the channels it was told in) holds one where they could read; a fact whose channel
        nothing records is withheld, as it is from every member's reads."""
        return any(self.channel(c) for c in channel_ids)


async def _display_names(
    tx: Tx, user_id: str, facts: list[dict[str, Any]], texts: list[tuple[str, str | None]]
) -> dict[tuple[str, str], str]:
    """(guild id, user id) -> that member's display name in that guild, for the reporters and mentions shown."""
    wanted: dict[str, set[str]] = {}
    for fact in facts:
        wanted.setdefault(fact["guild_id"], set()).update(r["user_id"] for r in fact["reports"])
    for guild_id, text in texts:
        wanted.setdefault(guild_id, set()).update(MENTION.findall(text or ""))
    found: dict[tuple[str, str], str] = {}
    for guild_id, ids in wanted.items():
        ids.discard(user_id)
        for r in await run(tx, "store/users_by_id", ids=sorted(ids), guild_id=guild_id) if ids else []:
            found[(guild_id, r["id"])] = r["display_name"] or r["name"]
    return found


class _Names:
    """Other members by display name, never by id; the member as "you"; the message ids of their own reports
    only (another member's message id says nothing to them)."""

    def __init__(self, user_id: str, names: dict[tuple[str, str], str]) -> None:
        self.user_id, self.names = user_id, names

    def of(self, guild_id: str, user_id: str) -> str:
        return YOU if user_id == self.user_id else self.names.get((guild_id, user_id), NOT_STORED)

    def fact(self, fact: dict[str, Any]) -> dict[str, Any]:
        reports = [
            {"by": self.of(fact["guild_id"], r["user_id"]), "at": r["at"]}
            | ({"message_id": r["message_id"]} if r["user_id"] == self.user_id else {})
            for r in fact["reports"]
        ]
        kept = {k: v for k, v in fact.items() if k not in ("reports", "sources")}
        return kept | {"text": self.text(fact["guild_id"], fact["text"]), "reports": reports}

    def message(self, message: dict[str, Any]) -> dict[str, Any]:
        return message | {"content": self.text(message["guild_id"], message["content"])}

    def summary(self, summary: dict[str, Any]) -> dict[str, Any]:
        return summary | {"summary": self.text(summary["guild_id"], summary["summary"])}

    def text(self, guild_id: str, text: str | None) -> str:
        return MENTION.sub(lambda m: "@" + self.of(guild_id, m.group(1)), text or "")
