"""The recalled-message search preselects its candidates by the rarity of the question's words among
the messages it reads (BM25's idf, in queries/context/recalled.cypher and the older windows' part of conversation.cypher), not by how
many of them a message holds. A busy channel says "weekend" and "trip" all the time; the one message about the
kayak holds only the rare word, and a plain count ranked it behind every message holding the two common ones,
past the candidates that Python's BM25 re-ranks (`ContextSettings.recalled_messages`)."""

from __future__ import annotations

from datetime import timedelta

from common.settings import ContextSettings, RecallTuning
from graph.store import GraphStore
from recall.assemble import ContextRequest
from recall.gather import build_context
from tests.support.busy_server import BOT, G1, GENERAL, PEOPLE, T0, Populated, in_general, recalled

ASKED = T0 + timedelta(days=2)
QUESTION = "How did Bob's weekend trip with the kayak go?"
SETTINGS = ContextSettings(channel_messages=0, channel_episodes=0, recalled_messages=20)


async def busy_weekends(store: GraphStore) -> Populated:
    """25 messages about weekend trips, small talk, then one about Bob's kayak (not next to a trip message)."""
    p = await in_general(store, "alice", "bob", "judy")
    talk = [await p.say(GENERAL, "alice", f"weekend trip number {n} was fun", T0 + timedelta(minutes=n)) for n in range(25)]
    talk.append(await p.say(GENERAL, "judy", "anyway, how was yours?", T0 + timedelta(minutes=29)))
    talk.append(await p.say(GENERAL, "bob", "the kayak flipped over twice, I was soaked", T0 + timedelta(minutes=30)))
    await p.episode(GENERAL, talk)
    return p


def ask(text: str) -> ContextRequest:
    return ContextRequest(G1, GENERAL, PEOPLE["judy"], text, None, ASKED, bot_user_id=BOT)


async def test_a_message_with_the_rare_word_is_a_candidate(store: GraphStore) -> None:
    p = await busy_weekends(store)
    kayak = p.messages[-1].id
    found = await recalled(store, G1, GENERAL, QUESTION, before=ASKED)
    assert found[0].id == kayak and len(found) == 20
    assert kayak in (await build_context(store, ask(QUESTION), SETTINGS)).part("recalled").ids
    off = RecallTuning(
        rarity=False, passage_reach=0
    )  # the lever off: counted, the kayak has 1 word of 3 (and no passage brings it)
    assert kayak not in {m.id for m in await recalled(store, G1, GENERAL, QUESTION, before=ASKED, tuning=off)}
    assert kayak not in (await build_context(store, ask(QUESTION), SETTINGS, tuning=off)).message_ids
