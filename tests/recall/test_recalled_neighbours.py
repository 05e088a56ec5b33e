"""A recalled message brings the turns around it in the channel. The recalled search finds the turn
that shares the question's words, often the question someone asked in the chat; the answer is the next turn,
which shares none of them, and when no fact was drawn from it nothing else brings it. The search returns the
messages next to its matches from the rows it read already (queries/context/recalled.cypher, no further read);
the best `RecallTuning.neighbour_matches` matches bring theirs, after every match."""

from __future__ import annotations

from datetime import timedelta

from common.settings import ContextSettings, RecallTuning
from common.tokens import estimate_tokens
from graph.reads import context as context_reads
from graph.store import GraphStore
from recall.assemble import ContextRequest, day
from recall.gather import build_context
from tests.support.busy_server import BOT, G1, GENERAL, PEOPLE, T0, Populated, in_general

ASKED = T0 + timedelta(days=2)
SETTINGS = ContextSettings(channel_messages=0, channel_episodes=0)  # only what is recalled for the question


async def puppy_talk(store: GraphStore) -> Populated:
    """Alice asks Bob what he named his puppy; Bob answers in the next turn without repeating the question."""
    p = await in_general(store, "alice", "bob", "judy")
    talk = [
        await p.say(GENERAL, "alice", "rainy morning here", T0),
        await p.say(GENERAL, "alice", "what did you name your new puppy?", T0 + timedelta(minutes=1)),
        await p.say(GENERAL, "bob", "Biscuit, after my favourite cookie", T0 + timedelta(minutes=2)),
        await p.say(GENERAL, "bob", "anyway, off to work", T0 + timedelta(minutes=3)),
        await p.say(GENERAL, "alice", "see you later", T0 + timedelta(minutes=4)),
    ]
    await p.episode(GENERAL, talk)
    return p


def ask(text: str) -> ContextRequest:
    return ContextRequest(G1, GENERAL, PEOPLE["judy"], text, None, ASKED, bot_user_id=BOT)


async def test_a_recalled_question_brings_its_answer(store: GraphStore) -> None:
    p = await puppy_talk(store)
    question, answer = p.messages[1].id, p.messages[2].id
    ctx = await build_context(store, ask("What name did Bob give his puppy?"), SETTINGS)
    recalled = ctx.part("recalled").ids
    assert question in recalled and answer in recalled
    assert "Biscuit" in ctx.render()
    assert p.messages[4].id in recalled  # its passage: up to `passage_reach` turns each side in its window
    one = RecallTuning(passage_reach=1)
    ctx = await build_context(store, ask("What name did Bob give his puppy?"), SETTINGS, tuning=one)
    assert p.messages[4].id not in ctx.part("recalled").ids  # one turn each side, not the whole window
    off = RecallTuning(neighbour_matches=0, passage_reach=0)  # the levers off: the match alone
    ctx = await build_context(store, ask("What name did Bob give his puppy?"), SETTINGS, tuning=off)
    assert question in ctx.part("recalled").ids and answer not in ctx.message_ids


async def test_a_neighbour_ranks_after_its_match_and_the_budget_trims_it_first(store: GraphStore) -> None:
    p = await puppy_talk(store)
    ctx = await build_context(store, ask("What name did Bob give his puppy?"), SETTINGS)
    assert ctx.part("recalled").ids == [m.id for m in p.messages]  # the match and its passage, oldest first
    part = ctx.part("recalled")
    # the match's line alone, dated (shown after another of its day, its line gives the time alone)
    room = estimate_tokens(part.header) + estimate_tokens(part.lines[1]) + estimate_tokens(day(p.messages[1].created_at))
    tight = await build_context(
        store, ask("What name did Bob give his puppy?"), SETTINGS.model_copy(update={"recalled_tokens": room})
    )
    assert tight.part("recalled").ids == [p.messages[1].id]


async def test_neighbours_come_from_the_search_and_stay_in_the_channel_before_the_reply(store: GraphStore) -> None:
    p = await puppy_talk(store)
    talk = await context_reads.conversation(store, G1, GENERAL, author_id=PEOPLE["judy"], at=ASKED, text="puppy", recall=20)
    assert [m.id for m in talk.recalled] == [p.messages[1].id]
    assert sorted((match, m.id) for match, m in talk.around) == sorted(
        [(p.messages[1].id, p.messages[0].id), (p.messages[1].id, p.messages[2].id)]
    )
    elsewhere = await context_reads.conversation(
        store, G1, "another-channel", author_id=PEOPLE["judy"], at=ASKED, text="puppy", recall=20
    )
    assert elsewhere.recalled == () and elsewhere.around == ()
    before_the_answer = T0 + timedelta(seconds=90)  # nothing said after the reply is quoted in it
    early = await context_reads.conversation(
        store, G1, GENERAL, author_id=PEOPLE["judy"], at=before_the_answer, text="puppy", recall=20
    )
    assert [m.id for _, m in early.around] == [p.messages[0].id]
