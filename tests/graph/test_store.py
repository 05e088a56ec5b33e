"""Conformance suite: every store operation on a populated graph, on ArcadeDB and (with Docker) Neo4j."""

from __future__ import annotations

from datetime import timedelta

import pytest

from common.text import name_key
from graph.models import (
    EpisodeClose,
    EpisodeStatus,
    EpisodeWrite,
    Message,
    SchemaMismatch,
    User,
)
from graph.privacy.guards.consent import consent_key, opt_in, opt_out, opted_out_keys
from graph.privacy.retention import retire_expired
from graph.privacy.user_cap import enforce_user_cap
from graph.reads import context as context_reads
from graph.reads.backlog import buffered_messages, episode_by_key, episode_messages, episodes_by_status
from graph.reads.context import FactRequest
from graph.reads.facts import entities_by_names, facts_about, facts_history, members_by_name, search_entities, users_by_id
from graph.reads.stats import graph_stats
from graph.schema import setup_schema
from graph.store import GraphStore
from graph.writes.discord_records import upsert_users
from graph.writes.episodes import close_episode, mark_episode, write_episode
from graph.writes.messages import delete_message, edit_message, record_messages
from tests.support.busy_server import (
    BOT,
    G1,
    G2,
    GENERAL,
    MUNICH_AT,
    OTHER,
    PEOPLE,
    T0,
    THREAD,
    U,
    move_bob_to_munich,
    populate,
    recalled,
)


async def test_schema_setup_is_idempotent_and_refuses_other_embeddings(store: GraphStore) -> None:
    await setup_schema(store)
    with pytest.raises(SchemaMismatch, match="embeddings"):
        await setup_schema(store, "all-minilm-l6-v2", 384)


async def test_records_are_idempotent_on_discord_ids(store: GraphStore) -> None:
    p = await populate(store)
    before = await graph_stats(store)
    await upsert_users(store, [User(id=PEOPLE["alice"], name="alice", display_name="Alice A.")])
    await record_messages(store, p.messages[:5])
    assert (await graph_stats(store))["nodes"] == before["nodes"]
    alice = (await users_by_id(store, [PEOPLE["alice"]]))[0]
    assert alice.display_name == "Alice A."


async def test_edit_and_delete_follow_discord(store: GraphStore) -> None:
    p = await populate(store)
    msg = p.messages[0]
    assert await edit_message(store, msg.id, "where did you move, Alice?", T0 + timedelta(minutes=1))
    talk = await context_reads.conversation(
        store, G1, GENERAL, author_id=PEOPLE["bob"], at=T0 + timedelta(minutes=2), reply_to_id=msg.id
    )
    assert [m.content for m in talk.chain] == ["where did you move, Alice?"]
    assert await delete_message(store, msg.id)
    talk = await context_reads.conversation(
        store, G1, GENERAL, author_id=PEOPLE["bob"], at=T0 + timedelta(minutes=2), reply_to_id=msg.id
    )
    assert talk.chain == () and msg.id not in {m.id for m in talk.recent}
    assert not await delete_message(store, msg.id)


async def test_facts_about_user_hold_now_ordered_with_reporters(store: GraphStore) -> None:
    p = await populate(store)
    facts = await facts_about(store, G1, user_ids=[PEOPLE["alice"]], now=T0 + timedelta(days=3))
    assert [f.uuid for f in facts] == [p.facts["alice_austin"], p.facts["alice_luna"]]
    assert facts[0].reporters[0][:2] == (PEOPLE["alice"], "Alice")
    assert facts[0].about == ("Alice",)
    assert facts[0].valid_at == T0 + timedelta(days=30)
    assert all("vegetarian" not in f.text for f in facts), "a fact of another guild leaked"


async def test_third_party_fact_is_about_frank_and_corroborated(store: GraphStore) -> None:
    p = await populate(store)
    facts = await facts_about(store, G1, user_ids=[PEOPLE["frank"]])
    assert [f.uuid for f in facts] == [p.facts["frank_engaged"]]
    assert [r[0] for r in facts[0].reporters] == [PEOPLE["eve"], PEOPLE["grace"]]
    assert await facts_about(store, G1, user_ids=[PEOPLE["eve"]]) == []


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


async def test_supersession_keeps_history(store: GraphStore) -> None:
    p = await populate(store)
    at = MUNICH_AT
    assert (await move_bob_to_munich(p, at)).superseded == 1
    now = await facts_about(store, G1, user_ids=[PEOPLE["bob"]], now=at)
    assert [f.text for f in now] == ["Bob moved to Munich"]
    history = await facts_history(store, G1, user_ids=[PEOPLE["bob"]], history=True)
    by_text = {f.text: f for f in history}
    berlin = by_text["Bob lives in Berlin"]
    assert berlin.invalid_at == at - timedelta(days=7)
    assert berlin.expired_at is not None
    assert berlin.superseded_by == p.facts["bob_munich"]
    was = await facts_history(store, G1, user_ids=[PEOPLE["bob"]], at=T0 + timedelta(days=2))
    assert [f.text for f in was] == ["Bob lives in Berlin"]


async def reply_facts_of(store: GraphStore, guild: str, text: str) -> list[str]:
    """Every fact the reply read gives for `text` from a member nobody names, its words its only lead."""
    from recall.gather import name_candidates

    found = await context_reads.reply_facts(
        store,
        FactRequest(
            guild,
            author_id="nobody",
            mentioned_ids=[],
            names=[],
            entity_keys=name_candidates(text),
            text=text,
            skip_ids=[],
            now=T0 + timedelta(days=3),
        ),
    )
    return sorted(f.text for facts in found.values() for f in facts)


async def test_full_text_search_is_scoped_to_the_guild(store: GraphStore) -> None:
    """The reply read finds facts by the entities a message names (their names searched in full text), within
    the guild; a word no entity's name holds finds nothing (facts' own text is not searched)."""
    await populate(store)
    found = await reply_facts_of(store, G1, "anyone been to Austin? (AND OR ~ *")
    assert found == ["Alice is moving to Austin next month", "Charlie's sister lives in Austin"]
    assert await reply_facts_of(store, G1, "vegetarian") == []
    assert await reply_facts_of(store, G2, "vegetarian") == []  # Alice is vegetarian, but her fact names no entity
    assert await reply_facts_of(store, G2, "Austin") == []  # another guild's Austin
    entities = await search_entities(store, G1, "how is ATX these days")
    assert [e.name for e in entities] == ["Austin"]
    assert [e.name for e in await entities_by_names(store, G1, ["the celtics"])] == ["Celtics"]
    assert await reply_facts_of(store, G1, "") == []


async def test_members_by_name_are_guild_members(store: GraphStore) -> None:
    await populate(store)
    found = await members_by_name(store, G1, ["Frank", "Heather", "Dave"])
    assert sorted(u.name for u in found) == ["dave"]  # Frank never wrote in the guild
    assert [u.name for u in await members_by_name(store, G2, ["alice"])] == ["alice"]


async def test_channel_summaries_recent_messages_and_thread_tail(store: GraphStore) -> None:
    await populate(store)
    talk = await context_reads.conversation(
        store, G1, GENERAL, author_id=PEOPLE["bob"], at=T0 + timedelta(days=5), episodes=3, messages=3
    )
    assert [s for _, s in talk.summaries] == [
        "Eve shared that Frank got engaged to Heather; Bob lives in Berlin.",
        "Members introduced themselves.",
    ]  # oldest first; one has none
    assert [m.author_id for m in talk.recent] == [PEOPLE["mallory"], PEOPLE["oscar"], PEOPLE["peggy"]]
    thread = await context_reads.conversation(store, G1, THREAD, author_id=PEOPLE["dave"], at=T0 + timedelta(days=5), messages=2)
    assert len(thread.recent) == 2 and thread.recent[-1].content.startswith("job offer detail 4")


async def test_conversation_reads_open_window_recent_episodes_and_chain_before_a_time(store: GraphStore) -> None:
    p = await populate(store)
    at = T0 + timedelta(days=6)
    open_window = await p.say(GENERAL, "judy", "anyone around?", at - timedelta(minutes=1))  # buffered: no episode yet
    await p.say(GENERAL, "ivan", "later than the reply", at + timedelta(minutes=1))
    talk = await context_reads.conversation(
        store, G1, GENERAL, author_id=PEOPLE["bob"], at=at, reply_to_id=p.messages[1].id, episodes=2, messages=4
    )
    assert talk.author is not None and talk.author.display_name == "Bob"
    assert [m.content for m in talk.recent][-1] == open_window.content and len(talk.recent) == 4
    assert all(m.created_at < at and m.channel_id == GENERAL for m in talk.recent)
    assert [s for _, s in talk.summaries] == ["Members introduced themselves."]  # the last 2 episodes: one has no summary
    assert [m.content for m in talk.chain] == ["where did you move again?", "Austin!"]
    early = await context_reads.conversation(
        store, G1, GENERAL, author_id=PEOPLE["bob"], at=T0 + timedelta(seconds=25), episodes=5
    )
    assert [m.content for m in early.recent] == ["where did you move again?", "Austin!"]
    assert early.summaries == () and early.chain == ()  # the first window was still open at that time
    assert (await context_reads.conversation(store, G2, GENERAL, author_id=PEOPLE["bob"], at=at)).recent == ()


async def test_reply_facts_by_source_within_the_guild(store: GraphStore) -> None:
    p = await populate(store)
    found = await context_reads.reply_facts(
        store,
        FactRequest(
            G1,
            author_id=PEOPLE["charlie"],
            mentioned_ids=[],
            names=["Alice"],
            entity_keys=["celtics"],
            text="is Alice vegetarian?",
            skip_ids=[PEOPLE["charlie"]],
            now=T0 + timedelta(days=3),
        ),
    )
    assert [f.uuid for f in found["author"]] == [p.facts["charlie_celtics"]]
    assert p.facts["alice_austin"] in [f.uuid for f in found["people"]]
    assert [f.uuid for f in found["linked"]] == [p.facts["sister_austin"]]
    sister = await context_reads.reply_facts(
        store,
        FactRequest(
            G1,
            author_id=PEOPLE["bob"],
            mentioned_ids=[],
            names=[],
            entity_keys=[name_key("Charlie's sister")],
            text="",
            skip_ids=[],
            now=T0 + timedelta(days=3),
        ),
    )
    assert [f.uuid for f in sister["entities"]] == [p.facts["sister_austin"]]
    everything = {f.uuid for facts in found.values() for f in facts}
    assert p.facts["alice_veg"] not in everything  # Alice's fact of the other guild
    other = await context_reads.reply_facts(
        store,
        FactRequest(
            G2,
            author_id=PEOPLE["charlie"],
            mentioned_ids=[PEOPLE["alice"]],
            names=[],
            entity_keys=[],
            text="",
            skip_ids=[],
            now=T0 + timedelta(days=3),
        ),
    )
    assert [f.uuid for f in other["people"]] == [p.facts["alice_veg"]] and other["hop"] == [] == other["linked"]


async def test_candidates_and_expiry_and_cap(store: GraphStore) -> None:
    await populate(store)
    dave_now = await facts_about(store, G1, user_ids=[PEOPLE["dave"]], now=T0 + timedelta(days=2, hours=1))
    assert len(dave_now) == 2
    later = T0 + timedelta(days=4)
    assert len(await facts_about(store, G1, user_ids=[PEOPLE["dave"]], now=later)) == 1
    assert await retire_expired(store, later) == 1
    assert await retire_expired(store, later) == 0
    retired = await enforce_user_cap(store, 2, now=later)
    assert retired == 5 * 2  # five filler people with four facts each keep their two most important
    ivan = await facts_about(store, G1, user_ids=[PEOPLE["ivan"]], now=later)
    assert [f.importance for f in ivan] == [6, 5]


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


async def test_consent_is_stored_as_a_keyed_hash(store: GraphStore) -> None:
    await opt_out(store, PEOPLE["mallory"])
    keys = await opted_out_keys(store)
    assert keys == {consent_key(store, PEOPLE["mallory"])} and PEOPLE["mallory"] not in next(iter(keys))
    assert await opt_in(store, PEOPLE["mallory"])
    assert await opted_out_keys(store) == set()


async def test_stats_per_label_and_guild(store: GraphStore) -> None:
    p = await populate(store)
    stats = await graph_stats(store)
    facts = {(r["guild_id"]): r["count"] for r in stats["nodes"] if r["label"] == "Fact"}
    assert facts == {G1: len(p.facts) - 1, G2: 1}
    types = {r["type"] for r in stats["relationships"]}
    assert {
        "ABOUT",
        "MENTIONS",
        "REPORTED_BY",
        "FROM",
        "EXTRACTED_FROM",
        "RELATED_TO",
        "SENT",
        "IN_EPISODE",
        "TOOK_PART_IN",
        "IN_CHANNEL",
        "IN_GUILD",
        "REPLIES_TO",
    } <= types


async def test_recalled_messages_stay_in_their_guild_and_channel(store: GraphStore) -> None:
    p = await populate(store)
    later = T0 + timedelta(days=4)
    found = await recalled(store, G1, GENERAL, "did Alice adopt a cat? what is her name", before=later)
    assert found[0].content == "we adopted a cat! her name is Luna" and found[0].author_name == "Alice"
    guild_of = {m.id: m.guild_id for m in p.messages}
    assert {guild_of[m.id] for m in found} == {G1} and {m.channel_id for m in found} == {GENERAL}
    # The same words in another guild's channel, and the thread's messages from its parent channel: never.
    assert await recalled(store, G1, GENERAL, "vegetarian meat meetup", before=later) == []
    assert [m.content for m in await recalled(store, G2, OTHER, "vegetarian meat meetup", before=later)] == [
        "I'm vegetarian, no meat at the meetup please"
    ]
    assert await recalled(store, G2, GENERAL, "Luna cat", before=later) == []  # a channel of G1 asked as G2
    assert await recalled(store, G1, GENERAL, "job offer Acme staff engineer", before=later) == []
    assert len(await recalled(store, G1, THREAD, "job offer Acme staff engineer", before=later, limit=3)) == 3
    # Only messages sent before the moment asked about; no words to search, nothing read.
    assert await recalled(store, G1, GENERAL, "Luna cat", before=T0 + timedelta(hours=3)) == []
    assert await recalled(store, G1, GENERAL, "is it the?", before=later) == []
