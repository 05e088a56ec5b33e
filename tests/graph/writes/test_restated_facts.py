"""The same fact from two windows (of one batch, or extracted one after the other, neither shown the other's) is
stored once, by the rule resolution uses for a batch's own facts (the same words in their normal form, about the
same subjects): the later one corroborates it, with its reporter. On the real engine, through write_episode."""

from __future__ import annotations

from datetime import timedelta

from graph.models import EpisodeWrite
from graph.reads.facts import facts_about
from graph.store import GraphStore
from graph.writes.episodes import write_episode
from tests.support.busy_server import G1, GENERAL, PEOPLE, T0, U, in_general


async def test_a_fact_two_windows_state_is_stored_once(store: GraphStore) -> None:
    p = await in_general(store, "alice", "bob")
    a = await p.say(GENERAL, "alice", "I got a dog, his name is Rex", T0)
    first = await p.episode(GENERAL, [a])
    b = await p.say(GENERAL, "bob", "alice has a dog named rex!", T0 + timedelta(hours=2))
    second = await p.episode(GENERAL, [b])
    other = await p.say(GENERAL, "bob", "and I have a cat", T0 + timedelta(hours=2, minutes=1))
    third = await p.episode(GENERAL, [other])
    dog = p.fact("dog", "Alice has a dog named Rex", [U("alice")], a)
    again = p.fact("dog again", "alice has a dog named Rex.", [U("alice")], b)
    about_bob = p.fact("bob dog", "Alice has a dog named Rex", [U("bob")], other)  # same words, someone else
    await write_episode(store, EpisodeWrite(key=first, guild_id=G1, summary="a dog", facts=(dog,)))
    outcome = await write_episode(store, EpisodeWrite(key=second, guild_id=G1, summary="a dog", facts=(again,)))
    await write_episode(store, EpisodeWrite(key=third, guild_id=G1, summary="a cat", facts=(about_bob,)))
    assert (outcome.facts, outcome.corroborations) == (0, 1)
    [alice] = await facts_about(store, G1, user_ids=[PEOPLE["alice"]])
    assert alice.uuid == dog.uuid and [r[0] for r in alice.reporters] == [PEOPLE["alice"], PEOPLE["bob"]]
    assert [f.uuid for f in await facts_about(store, G1, user_ids=[PEOPLE["bob"]])] == [about_bob.uuid]
