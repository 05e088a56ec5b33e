"""Every deletion path on the shapes real chat has: replies among the deleted messages (a member answering
themselves, chains), a reply whose parent is in another channel or thread, and what survives keeps no pointer
at what went."""

from __future__ import annotations

import random
from datetime import timedelta

from graph.models import Channel, ChannelKind, Message
from graph.privacy.erasure import erase_channel, erase_messages
from graph.privacy.forget import forget_user
from graph.privacy.retention import apply_retention
from graph.store import GraphStore
from graph.writes.discord_records import upsert_channel
from graph.writes.messages import record_messages
from tests.support.busy_server import G1, GENERAL, PEOPLE, T0, THREAD, Populated, in_general


async def _chat(store: GraphStore) -> tuple[Populated, dict[str, str]]:
    """Alice answers herself in a chain, Bob answers her from a thread and from #general, and a message of
    Alice's in the thread answers Bob's."""
    p = await in_general(store, "alice", "bob")
    await upsert_channel(store, Channel(id=THREAD, guild_id=G1, name="plans", kind=ChannelKind.THREAD, parent_id=GENERAL))
    a1 = await p.say(GENERAL, "alice", "first thought", T0)
    a2 = await p.say(GENERAL, "alice", "and a second one", T0 + timedelta(seconds=5), reply_to=a1.id)
    a3 = await p.say(GENERAL, "alice", "and a third", T0 + timedelta(seconds=9), reply_to=a2.id)
    b1 = await p.say(GENERAL, "bob", "nice thoughts", T0 + timedelta(seconds=20), reply_to=a3.id)
    b2 = await p.say(THREAD, "bob", "continuing here", T0 + timedelta(seconds=30), reply_to=a1.id)
    a4 = await p.say(THREAD, "alice", "sure", T0 + timedelta(seconds=40), reply_to=b2.id)
    return p, {"a1": a1.id, "a2": a2.id, "a3": a3.id, "b1": b1.id, "b2": b2.id, "a4": a4.id}


async def _reply_to(store: GraphStore, message_id: str) -> str | None:
    result = await store.driver.execute_query(
        "MATCH (m:Message {id: $id}) RETURN m.reply_to_id AS r", {"id": message_id}, database_=store.engine.database
    )
    assert result.records, f"message {message_id} is gone"
    reply_to: str | None = result.records[0]["r"]
    return reply_to


async def _exists(store: GraphStore, message_id: str) -> bool:
    return bool(await store.runner.read("store/messages_stored", ids=[message_id]))


async def test_forget_me_with_self_replies_and_a_reply_from_a_thread(store: GraphStore) -> None:
    _, ids = await _chat(store)
    report = await forget_user(store, PEOPLE["alice"])
    assert report.deleted["Message"] == 4
    assert report.clean, report.residue
    assert await _reply_to(store, ids["b1"]) is None
    assert await _reply_to(store, ids["b2"]) is None  # its parent was in #general, it is in the thread


async def test_retention_of_a_chain_of_old_replies(store: GraphStore) -> None:
    _, ids = await _chat(store)
    report = await apply_retention(store, messages_days=30, closed_facts_days=0, now=T0 + timedelta(days=31))
    assert report.messages == 6
    assert not any([await _exists(store, i) for i in ids.values()])


async def test_retention_keeps_a_newer_reply_in_another_channel_without_its_pointer(store: GraphStore) -> None:
    p, ids = await _chat(store)
    late = await p.say(THREAD, "bob", "still thinking about it", T0 + timedelta(days=20), reply_to=ids["a3"])
    await apply_retention(store, messages_days=30, closed_facts_days=0, now=T0 + timedelta(days=40))
    assert await _exists(store, late.id)
    assert await _reply_to(store, late.id) is None


async def test_deleted_messages_that_answer_each_other(store: GraphStore) -> None:
    _, ids = await _chat(store)
    erased = await erase_messages(store, [ids["a1"], ids["a2"], ids["a3"]])
    assert erased.messages == 3
    assert await _reply_to(store, ids["b1"]) is None and await _reply_to(store, ids["b2"]) is None


async def test_a_deleted_channel_with_its_thread_and_chains(store: GraphStore) -> None:
    _, ids = await _chat(store)
    erased = await erase_channel(store, G1, GENERAL)
    assert erased.erased.messages == 6 and erased.residue == []


def _answering_themselves(count: int, seed: int) -> list[Message]:
    """`count` messages of Alice's, about a third of them answering an earlier one of hers, with ids in no
    particular order (an export's ids need not follow its replies)."""
    rng = random.Random(seed)
    found: list[Message] = []
    for i in range(count):
        parent = found[rng.randrange(len(found))].id if found and rng.random() < 0.3 else None
        found.append(
            Message(id=str(500_000_000_000_000_000 + rng.randrange(10**12)), guild_id=G1, channel_id=GENERAL,
                    author_id=PEOPLE["alice"], content=f"thought {i}", created_at=T0 + timedelta(seconds=i), reply_to_id=parent)
        )  # fmt: skip
    return found


async def test_forget_me_when_replies_sort_before_their_parents(store: GraphStore) -> None:
    p = await in_general(store, "alice", "bob")
    mine = _answering_themselves(179, seed=3)
    await record_messages(store, mine)
    answer = await p.say(GENERAL, "bob", "ok", T0 + timedelta(minutes=5), reply_to=mine[-1].id)
    report = await forget_user(store, PEOPLE["alice"])
    assert report.deleted["Message"] == 179 and report.clean
    assert await _reply_to(store, answer.id) is None


async def test_retention_when_replies_sort_before_their_parents(store: GraphStore) -> None:
    await in_general(store, "alice")
    await record_messages(store, _answering_themselves(179, seed=4))
    report = await apply_retention(store, messages_days=30, closed_facts_days=0, now=T0 + timedelta(days=40))
    assert report.messages == 179


async def test_deleted_messages_when_replies_sort_before_their_parents(store: GraphStore) -> None:
    await in_general(store, "alice")
    mine = _answering_themselves(120, seed=5)
    await record_messages(store, mine)
    assert (await erase_messages(store, [m.id for m in mine])).messages == 120
