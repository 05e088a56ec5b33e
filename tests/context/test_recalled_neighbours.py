"""Issue 19: a recalled message brings the turns around it in its window. The full-text search finds the turn
that shares the question's words, often the question someone asked in the chat; the answer is the next turn,
which shares none of them, and when no fact was drawn from it nothing else brings it (recall/expand.py,
queries/context/neighbours.cypher). The lever is off by default (its cost per build, see NEIGHBOUR_MATCHES): these
tests turn it on."""

from __future__ import annotations

from datetime import timedelta

import pytest

import recall.expand
from common.settings import ContextSettings
from common.tokens import estimate_tokens
from graph.store import GraphStore
from recall.assemble import ContextRequest
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


@pytest.fixture
def neighbours_on(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(recall.expand, "NEIGHBOUR_MATCHES", 5)


@pytest.mark.usefixtures("neighbours_on")
async def test_a_recalled_question_brings_its_answer(store: GraphStore, monkeypatch: pytest.MonkeyPatch) -> None:
    p = await puppy_talk(store)
    question, answer = p.messages[1].id, p.messages[2].id
    ctx = await build_context(store, ask("What name did Bob give his puppy?"), SETTINGS)
    recalled = ctx.part("recalled").ids
    assert question in recalled and answer in recalled
    assert "Biscuit" in ctx.render()
    assert p.messages[4].id not in recalled  # one turn each side, not the whole window
    monkeypatch.setattr(recall.expand, "NEIGHBOUR_MATCHES", 0)  # the lever off: the match alone
    ctx = await build_context(store, ask("What name did Bob give his puppy?"), SETTINGS)
    assert question in ctx.part("recalled").ids and answer not in ctx.message_ids


@pytest.mark.usefixtures("neighbours_on")
async def test_a_neighbour_ranks_after_its_match_and_the_budget_trims_it_first(store: GraphStore) -> None:
    p = await puppy_talk(store)
    ctx = await build_context(store, ask("What name did Bob give his puppy?"), SETTINGS)
    assert ctx.part("recalled").ids == [m.id for m in p.messages[:3]]  # the match and a turn each side, oldest first
    part = ctx.part("recalled")
    room = estimate_tokens(part.header) + estimate_tokens(part.lines[1])  # the match's line alone
    tight = await build_context(
        store, ask("What name did Bob give his puppy?"), SETTINGS.model_copy(update={"recalled_tokens": room})
    )
    assert tight.part("recalled").ids == [p.messages[1].id]


async def test_neighbours_stay_in_the_channel(store: GraphStore) -> None:
    p = await puppy_talk(store)
    found = await store.neighbour_messages(G1, "another-channel", [p.messages[1].id], at=ASKED)
    assert found == []
    found = await store.neighbour_messages(G1, GENERAL, [p.messages[1].id, p.messages[3].id], at=ASKED)
    assert [(rank, m.id) for rank, m in found] == [
        (0, p.messages[0].id),
        (0, p.messages[2].id),
        (1, p.messages[2].id),
        (1, p.messages[4].id),
    ]
    before_the_answer = T0 + timedelta(seconds=90)  # nothing said after the reply is quoted in it
    found = await store.neighbour_messages(G1, GENERAL, [p.messages[1].id], at=before_the_answer)
    assert [m.id for _, m in found] == [p.messages[0].id]
    assert await store.neighbour_messages(G1, GENERAL, [p.messages[2].id], at=before_the_answer) == []
