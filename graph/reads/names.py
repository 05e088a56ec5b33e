"""Names where an operator would give an id: the members, guilds and channels a name stands for, looked up by
identity (a member by their account name, display name or a nickname they carry in the guild asked about; a
guild or channel by its own name), never matched across the graph's texts. The caller decides what to do when a
name stands for more than one: list them, never guess."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any

import queries
from graph.reads.operator import read_rolled_back
from graph.rows import as_datetime
from graph.store import GraphStore


@dataclass(frozen=True)
class Membership:
    guild_id: str
    guild: str
    nickname: str | None
    last_seen: datetime | None  # the last message they wrote there, if any is stored


@dataclass(frozen=True)
class Member:
    id: str
    username: str
    display_name: str
    guilds: tuple[Membership, ...]

    def names(self) -> str:
        """How the member is known: their display name or nickname first, then the account name."""
        shown = [self.display_name, *(g.nickname for g in self.guilds if g.nickname)]
        known = list(dict.fromkeys(n for n in shown if n and n != self.username))
        return ", ".join([*known, self.username])


@dataclass(frozen=True)
class Place:
    """A guild or a channel: its id and name."""

    id: str
    name: str


async def members_named(store: GraphStore, name: str, guild_id: str | None = None, limit: int = 20) -> list[Member]:
    """The members `name` (a leading @ is dropped) stands for, in `guild_id` or in any guild, by id; `limit`
    rows (a member and a guild each) at most: enough to list, never a scan's worth."""
    text = name.strip().removeprefix("@").casefold()
    if not text:
        return []
    found = await store.runner.read("store/members_named", name=text, guild_id=guild_id, limit=limit)
    members: dict[str, list[dict[str, Any]]] = {}
    for row in found:
        members.setdefault(str(row["id"]), []).append(row)
    return [
        Member(
            id=member_id,
            username=str(rows[0]["username"] or member_id),
            display_name=str(rows[0]["display_name"] or rows[0]["username"] or member_id),
            guilds=tuple(
                Membership(str(r["guild_id"]), str(r["guild"] or r["guild_id"]), r["nickname"], as_datetime(r["last_seen"]))
                for r in rows
            ),
        )
        for member_id, rows in members.items()
    ]


async def guilds_named(store: GraphStore, name: str, limit: int = 20) -> list[Place]:
    found = await store.runner.read("store/guilds_named", name=name.strip().lower(), limit=limit)
    return [Place(str(r["id"]), str(r["name"])) for r in found]


async def channels_named(store: GraphStore, guild_id: str, name: str, limit: int = 20) -> list[Place]:
    """The channels of `guild_id` called `name` (a leading # is dropped)."""
    text = name.strip().removeprefix("#").lower()
    found = await store.runner.read("store/channels_named", guild_id=guild_id, name=text, limit=limit)
    return [Place(str(r["id"]), str(r["name"])) for r in found]


async def shared_channels(store: GraphStore, guild_id: str) -> tuple[int, int]:
    """How many of a guild's channels are shared, of how many, read in a rolled-back READ session (the MCP server's reader)."""
    found = await read_rolled_back(store, queries.load("channels/modes"), {"guild_id": guild_id})
    return sum(1 for c in found if c.get("mode") == "shared"), len(found)
