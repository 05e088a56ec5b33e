"""One guild's full-text matches in an order only they and the words asked decide (graph/reads/search_order.py)."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from graph.reads.search_order import in_guild_order

TEXTS = ["alice hikes the ridge in july", "bob knows berlin", "berlin in july with the van", "Berlin's miso", "july"]


def _ordered(texts: list[str], asked: str, limit: int = 10) -> list[str]:
    return in_guild_order(texts, asked, lambda t: [t], lambda t: t, limit)


def test_the_match_holding_most_of_the_words_asked_comes_first_then_the_shortest() -> None:
    assert _ordered(TEXTS, "berlin july") == [
        "berlin in july with the van",  # both words
        "july",  # one word, in the fewest words
        "Berlin's miso",  # the piece as written, or its word
        "bob knows berlin",
        "alice hikes the ridge in july",
    ]
    assert _ordered(TEXTS, "berlin july", limit=2) == ["berlin in july with the van", "july"]


@given(st.permutations(TEXTS), st.sampled_from(["berlin", "july ridge", "miso berlin's", "van"]))
def test_the_order_is_the_same_whatever_order_the_engine_gave(texts: list[str], asked: str) -> None:
    assert _ordered(list(texts), asked) == _ordered(TEXTS, asked)
