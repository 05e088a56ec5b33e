"""The recalled tokens spent as a chunk retriever spends them (recall.ranking.passage_turns_order): each match read
with the turns around it at every width, every width of every passage ranked by BM25 together, the best passages'
turns first. A strong match's passage extends to the answer three turns on before a weaker match is read at all;
a weak one's gives way to the next match as soon as its new turns hold none of the question's words."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from graph.models import MessageView
from recall.ranking import passage_turns_order

T0 = datetime(2024, 5, 3, tzinfo=UTC)
QUESTION = "What was Bob promoted to at work?"


def msg(key: str, text: str, minute: int) -> MessageView:
    return MessageView(key, "c", "a", "Bob", False, text, T0 + timedelta(minutes=minute))


WEEK = msg("week", "how was your week?", 0)
PROMOTED = msg("promoted", "great, I got promoted at work", 1)
WOW = msg("wow", "wow, congratulations", 2)
WHAT = msg("what", "to what?", 3)
MANAGER = msg("manager", "assistant manager, starting monday", 4)
BUSY = msg("busy", "work was busy today", 60)
OK = msg("ok", "oh no", 61)
TEA = msg("tea", "I made some tea", 62)
BACK = msg("back", "back to work tomorrow", 63)
AROUND = {
    "promoted": [(-1, WEEK), (1, WOW), (2, WHAT), (3, MANAGER)],
    "busy": [(1, OK), (2, TEA)],
    "back": [(-1, TEA)],
}


def test_the_best_passage_extends_while_it_outranks_the_next_match() -> None:
    ordered = passage_turns_order(QUESTION, [PROMOTED, BUSY, BACK], AROUND)
    assert [m.id for m, _ in ordered] == ["promoted", "wow", "week", "what", "manager", "busy", "back", "ok", "tea"]
    # the answer three turns on comes with the strong match; the weak one's neighbour waits for the next match
    assert {m.id: match for m, match in ordered} == {
        "promoted": "promoted", "wow": "promoted", "week": "promoted", "what": "promoted", "manager": "promoted",
        "busy": "busy", "ok": "busy", "back": "back", "tea": "back",  # a turn two passages share, once, with the better
    }  # fmt: skip


def test_without_neighbours_the_matches_keep_their_order() -> None:
    ordered = passage_turns_order(QUESTION, [PROMOTED, BUSY, BACK], {})
    assert [m.id for m, _ in ordered] == ["promoted", "busy", "back"]
