"""A recalled message scores the question's words that it and the messages just before and after it hold: in chat
a question and its answer split the words of a later question between two turns ("did your sister like the
kayak?", "yes! the lake was perfect"), and a message holding more of them alone, somewhere else, outranked both
(queries/context/recalled.cypher and recalled_before.cypher, `RecallTuning.passage`)."""

from __future__ import annotations

from datetime import timedelta

from common.settings import RecallTuning
from graph.store import GraphStore
from tests.support.busy_server import G1, GENERAL, T0, Populated, in_general, recalled

ASKED = T0 + timedelta(days=2)
QUESTION = "Did Bob's sister enjoy the kayak on the lake?"


async def lake_talk(store: GraphStore, *, kayaks: int = 6) -> Populated:
    """Alice asks Bob about his sister and the kayak, Bob answers about the lake; around them, `kayaks` messages
    each holding "kayak" and "lake", none next to another match."""
    p = await in_general(store, "alice", "bob", "judy")
    talk, minute = [], 0
    for n in range(kayaks):
        talk.append(
            await p.say(GENERAL, "judy", f"kayak rentals at the lake are {n + 10} dollars", T0 + timedelta(minutes=minute))
        )
        talk.append(await p.say(GENERAL, "judy", "anyway, off to work", T0 + timedelta(minutes=minute + 1)))
        minute += 2
    talk.append(await p.say(GENERAL, "alice", "did your sister like the kayak?", T0 + timedelta(minutes=minute)))
    talk.append(await p.say(GENERAL, "bob", "yes! the lake was perfect", T0 + timedelta(minutes=minute + 1)))
    talk.append(await p.say(GENERAL, "alice", "see you later", T0 + timedelta(minutes=minute + 2)))
    await p.episode(GENERAL, talk)
    return p


async def test_an_answer_ranks_with_the_question_it_answers(store: GraphStore) -> None:
    kayaks = 6
    p = await lake_talk(store, kayaks=kayaks)
    asked, answer = p.messages[-3].id, p.messages[-2].id
    found = [m.id for m in await recalled(store, G1, GENERAL, QUESTION, before=ASKED)]
    # together they hold sister, kayak and lake: both above every message holding kayak and lake alone
    assert found[:2] == [answer, asked]
    assert len(found) == kayaks + 2 and p.messages[-1].id not in found  # only matches: "see you later" holds none
    assert [m.id for m in await recalled(store, G1, GENERAL, QUESTION, before=ASKED, limit=2)] == [answer, asked]

    off = RecallTuning(passage=False)  # the lever off: each message by its own words
    found = [m.id for m in await recalled(store, G1, GENERAL, QUESTION, before=ASKED, tuning=off)]
    assert found[0] == asked and found.index(answer) == len(found) - 1  # "lake" alone ranks below every kayak message
    assert answer not in {m.id for m in await recalled(store, G1, GENERAL, QUESTION, before=ASKED, limit=2, tuning=off)}
