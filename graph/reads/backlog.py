"""What extraction reads: the messages still buffered, a channel's earlier messages for a window's prompt, the
episodes by key or status and the messages they hold."""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any

from graph import rows
from graph.keys import channel_start, channel_time
from graph.models import Episode, EpisodeStatus, Message, User
from graph.store import GraphStore

# spans of a channel's history read for a window's earlier messages, widened while too few (None: all of it)
MESSAGES_BEFORE_SPANS: tuple[timedelta | None, ...] = (timedelta(hours=1), timedelta(days=1), timedelta(days=30), None)


async def episodes_holding(store: GraphStore, message_ids: list[str]) -> list[tuple[str, EpisodeStatus, int]]:
    """(key, status, how many of the messages it holds) of every episode holding one of them."""
    found = await store.runner.read("store/episodes_holding", message_ids=message_ids)
    return [(r["key"], EpisodeStatus(r["status"]), int(r["held"])) for r in found]


async def buffered_messages(store: GraphStore) -> list[tuple[Message, User]]:
    return [rows.message_and_author(r) for r in await store.runner.read("store/buffered_messages")]


async def messages_before(store: GraphStore, channel_id: str, before: datetime, limit: int) -> list[tuple[Message, User]]:
    """The channel's last `limit` messages before `before`, read span by span back in time (an hour, a
    day, 30 days, then the rest): the rows read follow the channel's recent traffic, not its history."""
    to = channel_time(channel_id, before)
    found: list[dict[str, Any]] = []
    for span in MESSAGES_BEFORE_SPANS:
        start = channel_time(channel_id, before - span) if span else channel_start(channel_id)
        found = await store.runner.read("store/messages_before", from_key=start, to_key=to, limit=limit)
        if len(found) >= limit:
            break
    return [rows.message_and_author(r) for r in found]


async def some_channels(store: GraphStore, limit: int) -> list[tuple[str, str]]:
    """(guild id, channel id) of up to `limit` channels, no matter which (store/some_channels.cypher)."""
    return [(r["guild_id"], r["id"]) for r in await store.runner.read("store/some_channels", limit=limit)]


async def episode_by_key(store: GraphStore, key: str) -> Episode | None:
    found = await store.runner.read("store/episode_by_key", key=key)
    return rows.episode(found[0]) if found else None


async def episodes_by_status(
    store: GraphStore, statuses: list[EpisodeStatus], guild_id: str | None = None, limit: int = 1000
) -> list[Episode]:
    found = await store.runner.read(
        "store/episodes_by_status", statuses=[s.value for s in statuses], guild_id=guild_id, limit=limit
    )
    return [rows.episode(r) for r in found]


async def episode_messages(store: GraphStore, key: str) -> list[tuple[Message, User]]:
    return [rows.message_and_author(r) for r in await store.runner.read("store/episode_messages", key=key)]
