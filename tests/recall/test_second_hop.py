"""Recall levers on a small hand-made graph, on the real embedded engine: the second hop (facts
about what a named member relates to) and the evidence turns a fact brings (its source message's
neighbours in the window)."""

from __future__ import annotations

from datetime import timedelta

from common.settings import ContextSettings, RecallTuning
from graph.models import Channel, EpisodeWrite, Guild, RelationWrite, User
from graph.reads import context as context_reads
from graph.reads.context import FactRequest
from graph.store import GraphStore
from graph.writes.discord_records import upsert_channel, upsert_guild, upsert_users
from graph.writes.episodes import write_episode
from recall.assemble import ContextRequest
from recall.gather import build_context, gather, name_candidates
from tests.support.busy_server import BOT, G1, GENERAL, PEOPLE, T0, E, Populated, U, in_general

AFTER = T0 + timedelta(days=2)


async def small_graph(store: GraphStore) -> Populated:
    """Bob's sister Dana bakes bread (a fact about Dana, not Bob); Alice got a telescope, and what came with
    it is only in the next message, which no fact cites."""
    p = await in_general(store, "alice", "bob", "judy")
    m1 = await p.say(GENERAL, "bob", "Dana started at the Elm Street bakery, she bakes sourdough every morning", T0)
    m2 = await p.say(GENERAL, "alice", "what did you get for your birthday?", T0 + timedelta(minutes=1))
    m3 = await p.say(GENERAL, "bob", "a telescope from my uncle", T0 + timedelta(minutes=2))
    m4 = await p.say(GENERAL, "bob", "it came with a star map of Orion", T0 + timedelta(minutes=3))
    key = await p.episode(GENERAL, [m1, m2, m3, m4])
    dana = p.entity("dana", "Dana", "person")
    await write_episode(
        store,
        EpisodeWrite(
            key=key,
            guild_id=G1,
            summary="Bob talked about his sister Dana and his birthday telescope.",
            entities=(dana,),
            relations=(RelationWrite(entity_uuid=dana.uuid, kind="sister", target=U("bob")),),
            facts=(
                p.fact("dana_bakes", "Dana bakes sourdough at the Elm Street bakery", [E(dana.uuid)], m1),
                p.fact("bob_telescope", "Bob got a telescope for his birthday", [U("bob")], m3),
            ),
        ),
    )
    return p


def ask(text: str) -> ContextRequest:
    return ContextRequest(G1, GENERAL, PEOPLE["judy"], text, None, AFTER, bot_user_id=BOT)


async def test_a_named_members_relations_bring_the_second_hop(store: GraphStore) -> None:
    p = await small_graph(store)
    question = "What does Bob's sister do these days?"
    first = await context_reads.reply_facts(
        store,
        FactRequest(
            G1,
            author_id=PEOPLE["judy"],
            mentioned_ids=[],
            names=["bob", "sister", "days"],
            entity_keys=name_candidates(question),
            text=question,
            skip_ids=[PEOPLE["judy"]],
            now=AFTER,
        ),
    )
    assert p.facts["dana_bakes"] not in {f.uuid for name, source in first.items() if name != "hop" for f in source}
    assert [f.uuid for f in first["hop"]] == [p.facts["dana_bakes"]]  # only the second hop finds it
    ctx = await build_context(store, ask(question), ContextSettings())
    assert p.facts["dana_bakes"] in ctx.part("related").ids
    assert "Dana bakes sourdough" in ctx.render()
    unrelated = await build_context(store, ask("What does Alice do these days?"), ContextSettings())
    assert p.facts["dana_bakes"] not in unrelated.fact_uuids  # Alice relates to no one


async def test_a_fact_brings_its_turn_and_the_turns_around_it(store: GraphStore) -> None:
    p = await small_graph(store)
    ctx = await build_context(store, ask("What did Bob get for his birthday?"), ContextSettings(channel_messages=0))
    assert p.facts["bob_telescope"] in ctx.part("related").ids
    star_map = p.messages[3].id  # shares no word with the question: only the evidence lever brings it
    assert star_map in ctx.part("recalled").ids
    assert "star map of Orion" in ctx.render()


async def test_an_old_fact_about_a_named_member_is_read_and_ranked_first(store: GraphStore) -> None:
    """Sixty newer facts about Alice, then the one that answers: only reading all her facts (the pool was her 50
    newest) and comparing stems ("camped", "camping") finds it; the full-text search shares no word with it."""
    p = await in_general(store, "alice", "judy")
    said = await p.say(GENERAL, "alice", "we went camping at Yosemite last summer", T0)
    writes = [p.fact("yosemite", "went camping at Yosemite last summer", [U("alice")], said)]
    for i in range(60):
        later = await p.say(GENERAL, "alice", f"colour number {i} is nice", T0 + timedelta(hours=1, minutes=i))
        writes.append(p.fact(f"colour{i}", f"likes colour number {i}", [U("alice")], later))
    key = await p.episode(GENERAL, p.messages)
    await write_episode(store, EpisodeWrite(key=key, guild_id=G1, facts=tuple(writes)))
    ctx = await build_context(store, ask("Where has Alice camped?"), ContextSettings(total_tokens=300))
    assert ctx.part("related").ids[0] == p.facts["yosemite"]


async def test_the_second_hop_keeps_to_what_the_channel_may_recall(store: GraphStore) -> None:
    """Channel scope over the second hop: one that read every fact of the guild would bring a fact said only in a
    private channel back in #general through a member's relations."""
    from graph.privacy.channels import set_mode

    staff = "100000000000000777"
    p = Populated(store)
    await upsert_guild(store, Guild(id=G1, name="Book Club"))
    await upsert_channel(store, Channel(id=GENERAL, guild_id=G1, name="general"))
    await upsert_channel(store, Channel(id=staff, guild_id=G1, name="staff"))
    assert await set_mode(store, G1, GENERAL, "shared") and await set_mode(store, G1, staff, "private")
    await upsert_users(store, [User(id=PEOPLE[n], name=n, display_name=n.capitalize()) for n in ("bob", "judy")])
    said = await p.say(staff, "bob", "Dana is leaving the bakery for a job at the zanzibar lab", T0)
    dana = p.entity("dana", "Dana", "person")
    await write_episode(
        store,
        EpisodeWrite(
            key=await p.episode(staff, [said]),
            guild_id=G1,
            summary="",
            entities=(dana,),
            relations=(RelationWrite(entity_uuid=dana.uuid, kind="sister", target=U("bob")),),
            facts=(p.fact("dana_lab", "Dana is leaving the bakery for the zanzibar lab", [E(dana.uuid)], said),),
        ),
    )
    question = "What does Bob's sister do these days?"
    general = await build_context(store, ask(question), ContextSettings())
    assert p.facts["dana_lab"] not in general.fact_uuids and "zanzibar" not in general.render()
    here = ContextRequest(G1, staff, PEOPLE["judy"], question, None, AFTER, bot_user_id=BOT)
    assert p.facts["dana_lab"] in (await build_context(store, here, ContextSettings())).fact_uuids


async def test_facts_found_by_their_words_come_from_the_recalled_messages(store: GraphStore) -> None:
    """Facts' text is not searched in full (that would score every posting of each word). A question naming
    nobody still finds the fact through the channel's message it was drawn from, which holds its words; the
    fact's words alone, in no recalled message, find nothing (bounded: the recalled search is)."""
    p = await small_graph(store)
    ctx = await build_context(store, ask("who bakes sourdough?"), ContextSettings(channel_messages=0))
    assert p.facts["dana_bakes"] in ctx.part("related").ids  # from "she bakes sourdough every morning"
    assert p.messages[0].id not in ctx.part("recalled").ids  # the message gives way to its fact (RecallTuning.redundant)
    gathered = await gather(store, ask("who bakes sourdough?"), ContextSettings())
    assert p.facts["dana_bakes"] not in {f.uuid for source in gathered.related for f in source}  # the first round misses it
    assert gathered.searched == [[]]  # only the vector order (none without embeddings) is fused with BM25
    off = await build_context(
        store, ask("who bakes sourdough?"), ContextSettings(channel_messages=0), tuning=RecallTuning(matched_facts=0)
    )
    assert p.facts["dana_bakes"] not in off.fact_uuids  # the case the lever fixes


async def test_a_named_members_facts_holding_the_questions_words_lead_their_pool(store: GraphStore) -> None:
    """Facts' text is not searched in full; a member's facts are read in one pool of the 150 most
    important and newest. The one fact that answers, older than 200 others, leads the pool because it holds a
    word of the question other than the member's name (every fact about her names her)."""
    p = await in_general(store, "alice", "judy")
    said = await p.say(GENERAL, "alice", "I volunteer at the zoo on weekends", T0)
    writes = [p.fact("zoo", "Alice volunteers at the zoo", [U("alice")], said, importance=3)]
    for i in range(200):
        later = await p.say(GENERAL, "alice", f"fact number {i}", T0 + timedelta(hours=1, minutes=i))
        writes.append(p.fact(f"f{i}", f"Alice mentioned number {i}", [U("alice")], later, importance=7))
    await write_episode(store, EpisodeWrite(key=await p.episode(GENERAL, p.messages), guild_id=G1, facts=tuple(writes)))
    question = "Where does Alice volunteers?"
    pooled = await context_reads.reply_facts(store, FactRequest(G1, author_id=PEOPLE["judy"], mentioned_ids=[],
                                             names=["alice", "volunteers"], entity_keys=[], text=question,
                                             skip_ids=[PEOPLE["judy"]], now=AFTER, pool=RecallTuning().ranked_pool))  # fmt: skip
    assert p.facts["zoo"] in {f.uuid for f in pooled["people"]}
    named_only = await context_reads.reply_facts(store, FactRequest(G1, author_id=PEOPLE["judy"], mentioned_ids=[],
                                                 names=["alice"], entity_keys=[], text="Alice?", skip_ids=[PEOPLE["judy"]],
                                                 now=AFTER, pool=RecallTuning().ranked_pool))  # fmt: skip
    assert p.facts["zoo"] not in {f.uuid for f in named_only["people"]}  # her name is in every fact: it ranks nothing
    ctx = await build_context(store, ask(question), ContextSettings(total_tokens=300, channel_messages=0))
    assert ctx.part("related").ids[0] == p.facts["zoo"]


async def test_a_question_full_of_pattern_syntax_is_read_as_words(store: GraphStore) -> None:
    """The people pool's pattern is built in the read from the message's words; what a member types is never
    pattern syntax there (only word characters reach it), so a question full of it reads as its words."""
    p = await in_general(store, "alice", "judy")
    said = await p.say(GENERAL, "alice", "I volunteer at the zoo on weekends", T0)
    other = await p.say(GENERAL, "alice", "my cat is called Luna", T0 + timedelta(minutes=1))
    writes = [p.fact("zoo", "Alice volunteers at the zoo", [U("alice")], said, importance=3),
              p.fact("cat", "Alice has a cat called Luna", [U("alice")], other, importance=9)]  # fmt: skip
    await write_episode(store, EpisodeWrite(key=await p.episode(GENERAL, p.messages), guild_id=G1, facts=tuple(writes)))
    ctx = await build_context(store, ask("alice (.*)+ [zoo]? \\b|.* ^$ ((a+)+)+ zoo"), ContextSettings(channel_messages=0))
    assert ctx.part("related").ids[0] == p.facts["zoo"]  # the read ran, and "zoo" still ranks first
