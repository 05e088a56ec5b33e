"""Where what was said may be recalled: each Channel's visibility (can the guild's @everyone role view it, as
the live bot reads Discord's permissions) and its memory mode.

- `off`: nothing is recorded there.
- `private`: what was said there is recalled only there and in its threads (the default for a channel
  @everyone cannot view, and for a channel the live bot never saw, such as an imported one).
- `shared`: recalled anywhere in the guild (the default for a channel @everyone can view).

Reads take a channel id and keep a fact only when a channel of its stored audience is shared, that channel
or its parent (graph/privacy/guards/scope.py); operators read without one. A mode no one set follows @everyone's view when the
bot first sees the channel. Narrowing always wins: a channel Discord hides from @everyone is private at once,
whatever mode was set; widening is a moderator's (or an operator's) act, and only while Discord shows the
channel to @everyone (an imported channel the live bot never saw may be widened; the bot narrows it when it
sees it hidden).
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any, Literal, cast

from graph.reads.activity import Activity, recent_activity
from graph.store import GraphStore

Mode = Literal["off", "private", "shared"]
Visibility = Literal["public", "restricted"]
MODES: tuple[Mode, ...] = ("off", "private", "shared")


@dataclass(frozen=True)
class ChannelMode:
    id: str
    name: str
    kind: str
    parent_id: str | None
    visibility: Visibility | None  # None: the live bot never saw it
    mode: Mode
    mode_set: bool  # set by a member with Manage Server or an operator, not derived from visibility
    messages: int


async def set_visibility(store: GraphStore, guild_id: str, channel_id: str, visibility: Visibility) -> Mode | None:
    """Record what @everyone can see; returns the mode now in force (None: no such channel stored)."""
    found = await store.runner.write_guilds(
        [guild_id], True, "channels/set_visibility", id=channel_id, guild_id=guild_id, visibility=visibility
    )
    return cast(Mode, found[0]["mode"]) if found else None


class HiddenChannel(ValueError):
    """`shared` asked for a channel Discord hides from @everyone: nothing was changed."""

    def __init__(self, channel_id: str) -> None:
        super().__init__(
            f"channel {channel_id} is hidden from @everyone on Discord, so it stays private or off: "
            "let @everyone view it first, then set it shared"
        )
        self.channel_id = channel_id


async def set_mode(store: GraphStore, guild_id: str, channel_id: str, mode: Mode) -> bool:
    """Set a channel's memory mode (and its threads' that no one set); False when it is not stored. Raises
    HiddenChannel (changing nothing) for `shared` while Discord hides the channel from @everyone."""
    if mode not in MODES:
        raise ValueError(f"not a memory mode: {mode!r} (one of {', '.join(MODES)})")
    found = await store.runner.write_guilds([guild_id], True, "channels/set_mode", id=channel_id, guild_id=guild_id, mode=mode)
    if found and found[0]["hidden"]:
        raise HiddenChannel(channel_id)
    return bool(found)


async def modes(
    store: GraphStore, guild_id: str, recent_days: int | None = None, *, activity: Activity | None = None
) -> list[ChannelMode]:
    """The guild's channels; `messages` counts each one's whole history, or with `recent_days` only the messages
    of those days (one channel_time range each: what `memory status` shows, its cost not growing with history),
    taken from `activity` when it is of those days (read already)."""
    if recent_days is not None:
        counts = activity if activity is not None and activity.days == recent_days else None
        counts = counts or await recent_activity(store, guild_id, recent_days)
        return [
            replace(c, messages=counts.per_channel.get(c.id, 0))
            for c in _channel_modes(await store.runner.read("channels/modes_recent", guild_id=guild_id))
        ]
    return _channel_modes(await store.runner.read("channels/modes", guild_id=guild_id))


def _channel_modes(found: list[dict[str, Any]]) -> list[ChannelMode]:
    return [
        ChannelMode(
            id=str(r["id"]),
            name=str(r["name"] or r["id"]),
            kind=str(r["kind"] or "text"),
            parent_id=r["parent_id"],
            visibility=r["visibility"],
            mode=r["mode"],
            mode_set=bool(r["mode_set"]),
            messages=int(r["messages"]),
        )
        for r in found
    ]
