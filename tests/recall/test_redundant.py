"""A recalled message whose fact the context keeps gives its room to the next match: the two spent the
budget twice on one turn (`RecallTuning.redundant`). Pure (assemble), then on a hand-made graph (build_context)."""

from __future__ import annotations

from datetime import timedelta

from common.settings import ContextSettings, RecallTuning
from common.tokens import estimate_tokens
from graph.models import EpisodeWrite, MessageView
from graph.reads import context as context_reads
from graph.reads.context import FactRequest
from graph.store import GraphStore
from graph.writes.episodes import write_episode
from recall.assemble import ContextRequest, Gathered, assemble, headers, message_line
from recall.gather import build_context
from tests.recall.test_recalled_part import msg, settings
from tests.support.busy_server import BOT, G1, GENERAL, PEOPLE, T0, U, in_general
from tests.support.fact_views import fact

ADOPTED = fact("f-adopt", "Caroline adopted a puppy called Biscuit")
SHELTER = msg("m-adopt", "we adopted a puppy from the shelter, his name is Biscuit", 10)
VISIT = msg("m-visit", "the puppy loved the beach visit yesterday", 20)


def gathered(*recalled_messages: object, channel: tuple[object, ...] = (), drawn: bool = True) -> Gathered:
    return Gathered(
        author_id="judy",
        author_name="Judy",
        related=[[ADOPTED]],
        query="What did Caroline's puppy do?",
        recalled=list(recalled_messages),  # type: ignore[arg-type]
        channel_messages=list(channel),  # type: ignore[arg-type]
        drawn={ADOPTED.uuid: (SHELTER.id,)} if drawn else {},
    )


def room_for_one(g: Gathered) -> int:
    """A recalled part's budget holding one of its messages, not two."""
    return estimate_tokens(headers(g)["recalled"]) + max(estimate_tokens(message_line(m, {})) for m in g.recalled)


def test_a_recalled_message_whose_fact_is_kept_gives_way_to_the_next_match() -> None:
    g = gathered(SHELTER, VISIT)
    budget = room_for_one(g)  # the shelter message would take the room
    ctx = assemble(g, settings(recalled_tokens=budget))
    assert ctx.fact_uuids == {ADOPTED.uuid}
    assert ctx.part("recalled").ids == [VISIT.id]  # the beach visit, which no kept line says
    off = RecallTuning(redundant=False)  # the lever off: the turn twice, the visit left out
    ctx = assemble(g, settings(recalled_tokens=budget), off)
    assert ctx.part("recalled").ids == [SHELTER.id] and ctx.fact_uuids == {ADOPTED.uuid}


def test_a_message_without_its_facts_stays() -> None:
    g = gathered(SHELTER, VISIT, drawn=False)  # no fact was drawn from it
    ctx = assemble(g, settings())
    assert ctx.part("recalled").ids == [SHELTER.id, VISIT.id] and ctx.fact_uuids == {ADOPTED.uuid}


def test_a_fact_drawn_from_a_message_of_the_conversation_stays() -> None:
    ctx = assemble(gathered(channel=(SHELTER,)), settings())
    assert ctx.part("channel").ids == [SHELTER.id] and ctx.fact_uuids == {ADOPTED.uuid}


async def test_on_a_graph_the_recalled_turn_of_a_kept_fact_gives_way(store: GraphStore) -> None:
    """Bob's shelter message and the fact drawn from it both match; the beach visit, said later, only fits when the
    shelter message gives way to its fact (the facts read gives the messages each fact came from)."""
    p = await in_general(store, "bob", "judy")
    shelter = await p.say(GENERAL, "bob", "we adopted a puppy from the shelter, his name is Biscuit", T0)
    # not next to each other: a message scores the words of its neighbours too, and this is about the redundant turn
    aside = await p.say(GENERAL, "judy", "aww", T0 + timedelta(minutes=2))
    beach = await p.say(GENERAL, "bob", "the puppy loved the beach visit yesterday", T0 + timedelta(minutes=5))
    key = await p.episode(GENERAL, [shelter, aside, beach])
    adopted = p.fact("adopted", "Bob adopted a puppy called Biscuit from the shelter", [U("bob")], shelter)
    await write_episode(store, EpisodeWrite(key=key, guild_id=G1, facts=(adopted,)))
    about_bob = await context_reads.reply_facts(store, FactRequest(G1, author_id=PEOPLE["bob"], mentioned_ids=[], names=[],
                                                entity_keys=[], text="", skip_ids=[], now=T0 + timedelta(days=1)))  # fmt: skip
    assert [f.sources for f in about_bob["author"]] == [(shelter.id,)]
    req = ContextRequest(
        G1, GENERAL, PEOPLE["judy"], "What did Bob's puppy from the shelter do?", None, T0 + timedelta(days=1), bot_user_id=BOT
    )
    settings = ContextSettings(channel_messages=0, channel_episodes=0)
    lines = [
        message_line(MessageView(m.id, GENERAL, m.author_id, "Bob", False, m.content, m.created_at), {}) for m in (shelter, beach)
    ]
    room = estimate_tokens(headers(Gathered("judy", "Judy"))["recalled"]) + max(map(estimate_tokens, lines))  # one, not two
    tight = settings.model_copy(update={"recalled_tokens": room})
    alone = RecallTuning(passage_reach=0)  # the matches without their passages: this is about the redundant turn
    ctx = await build_context(store, req, tight, tuning=alone)
    assert ctx.fact_uuids == {adopted.uuid} and ctx.part("recalled").ids == [beach.id]  # the shelter turn, once
    off = RecallTuning(passage_reach=0, redundant=False)  # the lever off: the shelter turn twice
    ctx = await build_context(store, req, tight, tuning=off)
    assert ctx.fact_uuids == {adopted.uuid} and ctx.part("recalled").ids == [shelter.id]
