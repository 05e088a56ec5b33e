"""A reply's reads (graph/reads/context.py: `conversation`, `reply_facts`) on a populated graph: the channel's
recent talk, summaries, reply chain and recalled messages, and the facts by source, all within the guild and
before the reply."""

from __future__ import annotations

from datetime import timedelta

from common.text import name_key
from graph.reads import context as context_reads
from graph.reads.context import FactRequest
from graph.reads.facts import entities_by_names, search_entities
from graph.store import GraphStore
from tests.support.busy_server import G1, G2, GENERAL, OTHER, PEOPLE, T0, THREAD, populate, recalled


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
