"""Episodes written, closed and marked (graph/writes/episodes.py) on a populated graph: a write is idempotent on its
key, and a window goes from buffered messages to a pending, then failed episode."""

from __future__ import annotations

from datetime import timedelta

import pytest

from graph.models import EpisodeClose, EpisodeStatus, EpisodeWrite, Message
from graph.reads.backlog import buffered_messages, episode_by_key, episode_messages, episodes_by_status
from graph.reads.stats import graph_stats
from graph.store import GraphStore
from graph.writes.episodes import close_episode, mark_episode, write_episode
from graph.writes.messages import record_messages
from tests.support.busy_server import BOT, G1, GENERAL, T0, U, populate


async def test_writing_the_same_episode_twice_changes_nothing(store: GraphStore) -> None:
    p = await populate(store)
    key = p.episodes[0]
    before = await graph_stats(store)
    again = EpisodeWrite(
        key=key,
        guild_id=G1,
        summary="something else",
        facts=(p.fact("dup", "Alice is moving to Austin next month", [U("alice")], p.messages[1]),),
    )
    outcome = await write_episode(store, again)
    assert not outcome.written
    assert await graph_stats(store) == before
    stored = await episode_by_key(store, key)
    assert stored is not None and stored.summary.startswith("Alice is moving")


async def test_buffered_messages_and_episode_lifecycle(store: GraphStore) -> None:
    p = await populate(store)
    assert await buffered_messages(store) == []
    late = await p.say(GENERAL, "judy", "anyone around?", T0 + timedelta(days=6))
    bot = Message(
        id=p.mid(),
        guild_id=G1,
        channel_id=GENERAL,
        author_id=BOT,
        content="hello",
        created_at=late.created_at + timedelta(seconds=1),
    )
    await record_messages(store, [bot])
    buffered = await buffered_messages(store)
    assert [(m.id, u.is_bot) for m, u in buffered] == [(late.id, False), (bot.id, True)]
    close = EpisodeClose(
        key=f"{GENERAL}:{late.id}:{bot.id}",
        uuid="e-late",
        guild_id=G1,
        channel_id=GENERAL,
        started_at=late.created_at,
        ended_at=bot.created_at,
        message_ids=(late.id, bot.id),
        participant_ids=(late.author_id, BOT),
    )
    assert await close_episode(store, close) == "pending"
    assert await close_episode(store, close) == "pending"
    assert await buffered_messages(store) == []
    await mark_episode(store, close.key, EpisodeStatus.FAILED, "LLM down", attempt=True)
    parked = await episodes_by_status(store, [EpisodeStatus.FAILED])
    assert [(e.key, e.attempts, e.error) for e in parked] == [(close.key, 1, "LLM down")]
    assert [m.id for m, _ in await episode_messages(store, close.key)] == [late.id, bot.id]
    with pytest.raises(LookupError):
        await close_episode(store, close.model_copy(update={"key": "x", "channel_id": "nope"}))
