"""Relevance ranking of the reply context's facts and recalled messages: pure, no database."""

from __future__ import annotations

from dataclasses import replace
from datetime import UTC, datetime, timedelta

import pytest
from hypothesis import given
from hypothesis import strategies as st
from rank_bm25 import BM25Plus

from common.settings import ContextSettings, RecallTuning
from common.text import content_words, document_terms, keywords, stem
from graph.models import FactView, MessageView
from recall.assemble import ContextRequest, Gathered, assemble
from recall.gather import around
from recall.ranking import (
    bm25_scores,
    fact_terms,
    facts_share_words,
    fuse,
    rank_facts,
    rank_messages,
    shared_relevance,
    shares_words,
    tied_ranks,
)

D = datetime(2024, 5, 3, 18, 0, tzinfo=UTC)


def fact(uuid: str, text: str, about: tuple[str, ...] = ("Caroline",)) -> FactView:
    return FactView(uuid=uuid, text=text, category="other", importance=5, confidence=0.9, valid_at=D, about=about)


def msg(mid: str, author: str, text: str, minute: int = 0) -> MessageView:
    return MessageView(
        id=mid,
        channel_id="c",
        author_id=author.lower(),
        author_name=author,
        author_is_bot=False,
        content=text,
        created_at=D + timedelta(minutes=minute),
    )


def test_content_words_keep_repeats_and_drop_stop_words() -> None:
    assert content_words("The cat and the other cat, 42 times") == ["cat", "other", "cat", "times"]


def test_bm25_scores_zero_without_a_shared_word_and_prefers_the_closer_match() -> None:
    docs = [
        "Caroline went to a support group",
        "Caroline likes painting",
        "Melanie ran a charity race",
        "Caroline painted a sunset",
        "Caroline joined a support group for LGBTQ people",
    ]
    scores = bm25_scores("When did Caroline go to the LGBTQ support group?", docs)
    assert scores[2] == 0.0  # shares no word with the question
    assert scores[4] > scores[0] > scores[1] > 0  # every word matched beats some, which beats the name alone
    assert bm25_scores("", docs) == [0.0] * 5 and bm25_scores("what?", []) == []


_WORDS = st.sampled_from(["Caroline", "painting", "paintings", "painted", "group", "groups", "the", "what", "race", "LGBTQ", "?"])


@given(
    query=st.lists(_WORDS, max_size=6).map(" ".join),
    docs=st.lists(st.lists(_WORDS, max_size=8).map(" ".join), max_size=6),
    plural_ing=st.booleans(),
)
def test_shares_words_is_where_bm25_scores_above_zero(query: str, docs: list[str], plural_ing: bool) -> None:
    """The matched facts keep those that share a word with the message without scoring them: the same test."""
    tuning = RecallTuning(plural_ing=plural_ing)
    assert shares_words(query, docs, tuning) == [score > 0 for score in bm25_scores(query, docs, tuning)]


@given(query=st.lists(_WORDS, max_size=6).map(" ".join), docs=st.lists(st.lists(_WORDS, max_size=8).map(" ".join), max_size=6))
def test_bm25_scores_are_bm25_plus_over_the_whole_documents(query: str, docs: list[str]) -> None:
    """The index is built over the query's words only (the rest count in a document's length): the same scores."""
    words = list(dict.fromkeys(stem(w) for w in keywords(query)))
    corpus = [tuple(stem(w) for w in content_words(d)) or ("\0",) for d in docs]
    whole = BM25Plus(corpus).get_scores(words) if words and docs else [0.0] * len(docs)
    expected = [float(s) if set(words) & set(doc) else 0.0 for s, doc in zip(whole, corpus)]
    assert bm25_scores(query, docs) == pytest.approx(expected)


_TEXTS = st.lists(st.sampled_from(["Caroline", "paintings", "painted", "group's", "ZOË", "Straße", "42", "a", "x1", "—",
                                   "LGBTQ", "camping", "hiked", "writings", "class", "watches", "the", "Mel-anie"]),
                  max_size=8).map(" ".join)  # fmt: skip
_TUNINGS = st.sampled_from([RecallTuning(), RecallTuning(stems=False), RecallTuning(plural_ing=False),
                            RecallTuning(stems=False, plural_ing=False), RecallTuning(speaker_blind=False)])  # fmt: skip


def held_as_the_read_model_makes_it(f: FactView) -> FactView:
    """The fact with the terms the read model makes once (graph/reads/fact_model.py): its text's, then its subjects'."""
    own, named = document_terms(f.text), document_terms(" ".join(f.about))
    return replace(f, terms=own + named, text_terms=len(own))


@given(query=_TEXTS, texts=st.lists(st.tuples(_TEXTS, st.lists(_TEXTS, max_size=2)), max_size=6), tuning=_TUNINGS)
def test_a_facts_terms_made_once_rank_as_its_text_does(query: str, texts: list[tuple[str, list[str]]],
                                                      tuning: RecallTuning) -> None:  # fmt: skip
    """A fact holding the terms made when it entered the read model ranks, is scored and matched exactly as the same
    fact ranked from its text and subjects' names, with every tuning of the stems (those the terms were not made
    with are made from the text)."""
    plain = [FactView(uuid=f"f{i}", text=t, category="other", importance=5, confidence=0.9, valid_at=D, about=tuple(a),
                      reporters=(("c", "Caroline", D),)) for i, (t, a) in enumerate(texts)]  # fmt: skip
    held = [held_as_the_read_model_makes_it(f) for f in plain]
    for f, h in zip(plain, held):
        assert fact_terms(h) == (tuple(stem(w) for w in content_words(" ".join([f.text, *f.about]))) or ("\0",))
        assert fact_terms(h, whole=False) == (tuple(stem(w) for w in content_words(f.text)) or ("\0",))
        assert [fact_terms(h, tuning, whole) for whole in (True, False)] == [fact_terms(f, tuning, w) for w in (True, False)]
    assert [f.uuid for f in rank_facts(query, held, tuning=tuning)] == [f.uuid for f in rank_facts(query, plain, tuning=tuning)]
    assert facts_share_words(query, held, tuning) == shares_words(query, [" ".join([f.text, *f.about]) for f in plain], tuning)
    messages = [msg(f"m{i}", "Melanie", t, i) for i, (t, _) in enumerate(texts)]
    who = frozenset({"caroline", "melanie"})
    assert shared_relevance(query, held, messages, who, tuning) == shared_relevance(query, plain, messages, who, tuning)


@given(parts=st.lists(_TEXTS, max_size=5), stems=st.booleans(), plural_ing=st.booleans())
def test_the_terms_of_texts_joined_by_a_space_are_each_texts_in_turn(parts: list[str], stems: bool, plural_ing: bool) -> None:
    """What a fact's terms (its text's, then its subjects') and a passage's (its turns') are made of."""
    joined = document_terms(" ".join(parts), stems, plural_ing)
    assert joined == tuple(t for part in parts for t in document_terms(part, stems, plural_ing))


def test_fuse_orders_by_reciprocal_rank_and_keeps_prior_order_for_the_rest() -> None:
    assert fuse(["a", "b", "c", "d", "e"], [["d", "b"], ["b"]]) == ["b", "d", "a", "c", "e"]
    assert fuse(["a", "b", "a"], []) == ["a", "b"]


def test_relevant_facts_come_first_whatever_their_prior_rank() -> None:
    prior = [fact(f"p{i}", f"Caroline mentioned hobby number {i}") for i in range(30)]  # important, recent, off topic
    prior.append(fact("group", "Caroline went to an LGBTQ support group on 7 May"))
    ranked = rank_facts("When did Caroline go to the LGBTQ support group?", prior)
    assert ranked[0].uuid == "group"
    assert [f.uuid for f in ranked[1:]] == [f"p{i}" for i in range(30)]  # only the name matched: prior order kept
    assert rank_facts("anything new?", prior) == prior  # nothing to match: prior order


def test_searched_order_is_fused_with_the_lexical_one() -> None:
    prior = [
        fact("a", "Melanie paints sunsets"),
        fact("b", "Caroline paints sunsets with friends"),
        fact("c", "Caroline went camping", about=("Caroline", "Melanie")),
    ]
    plain = rank_facts("painting sunsets", prior)
    assert [f.uuid for f in plain][:2] == ["a", "b"]
    boosted = rank_facts("painting sunsets", prior, searched=[["b"], ["b", "c"]])
    assert [f.uuid for f in boosted] == ["b", "a", "c"]  # found by two searches beats found by one


def test_subjects_count_as_words_of_a_fact() -> None:
    prior = [fact("x", "likes jazz", about=("Melanie",)), fact("y", "likes jazz", about=("Caroline",))]
    assert [f.uuid for f in rank_facts("does Caroline like jazz", prior)] == ["y", "x"]


def test_messages_rank_by_words_then_author() -> None:
    found = [
        msg("1", "Melanie", "so proud of you!"),
        msg("2", "Caroline", "I went to the support group yesterday", 1),
        msg("3", "Melanie", "the group hike was fun", 2),
        msg("4", "Caroline", "good morning", 3),
    ]
    ranked = rank_messages("did Caroline go to the support group", found)
    assert [m.id for m in ranked] == ["2", "3", "4", "1"]  # what it asks about first; the named member breaks ties


def reported(uuid: str, text: str, who: str) -> FactView:
    return FactView(
        uuid=uuid, text=text, category="other", importance=5, confidence=0.9, valid_at=D, about=(who,),
        about_ids=(who.lower(),), reporters=((who.lower(), who, D),),
    )  # fmt: skip


@pytest.mark.parametrize("blind", [True, False])
def test_a_question_naming_the_wrong_member_still_finds_what_was_said(blind: bool) -> None:
    """ "What did Melanie paint?" when Caroline painted: the turn and the fact that say it rank above the named
    member's talk of other things (with the speaker-blind rule off, Melanie's own lines came first)."""
    tuning = RecallTuning(speaker_blind=blind)
    long = "a big sunset over the lake near {} old home last summer with {} friends from the choir"
    found = [
        msg("c2", "Caroline", "hi all"),
        msg("m1", "Melanie", "Melanie here, hi", 1),
        msg("c1", "Caroline", "I painted " + long.format("my", "my"), 2),
    ]
    first = rank_messages("What did Melanie paint?", found, tuning=tuning)[0].id
    facts = [
        reported("f1", "Melanie hugged Melanie's sister", "Melanie"),
        reported("f3", "Caroline painted " + long.format("her", "her"), "Caroline"),
        reported("f2", "Caroline is proud of her family", "Caroline"),
    ]
    best = rank_facts("What did Melanie paint?", facts, tuning=tuning)[0].uuid
    assert (first, best) == (("c1", "f3") if blind else ("m1", "f1"))


def test_a_question_of_names_alone_ranks_on_the_names() -> None:
    facts = [reported("f1", "Melanie likes jazz", "Melanie"), reported("f2", "Caroline likes jazz", "Caroline")]
    assert rank_facts("Caroline?", facts)[0].uuid == "f2"


def test_question_and_fact_meet_on_word_stems() -> None:
    assert [stem(w) for w in ("books", "camped", "camping", "running", "hike", "hiking", "stories", "class")] == [
        "book", "camp", "camp", "run", "hik", "hik", "story", "class"
    ]  # fmt: skip
    prior = [fact(f"p{i}", f"Caroline mentioned hobby number {i}") for i in range(10)]
    prior.append(fact("camp", "Caroline went camping in the mountains with friends"))
    assert rank_facts("Where has Caroline camped?", prior)[0].uuid == "camp"  # "camped" meets "camping"


def test_the_related_facts_considered_are_the_best_that_the_part_can_hold() -> None:
    considered = RecallTuning().related_facts
    facts = [fact(f"p{i}", f"Caroline mentioned hobby number {i}") for i in range(3 * considered)]
    facts.append(fact("group", "Caroline went to an LGBTQ support group"))
    gathered = Gathered(author_id="a", author_name="A", related=[facts], query="Did Caroline go to a support group?")
    big = 10**6
    unbounded = assemble(gathered, ContextSettings(total_tokens=big, related_tokens=big)).part("related")
    assert unbounded.items == len(facts) and unbounded.ids[0] == "group"  # room for all: all are considered
    room = unbounded.tokens // 2
    half = assemble(gathered, ContextSettings(total_tokens=big, related_tokens=room)).part("related")
    assert half.ids[0] == "group" and considered < half.items < len(facts)
    assert half.items + half.trimmed < len(facts)  # the weakest were never rendered: no room for them


def test_a_plural_of_an_ing_word_meets_its_singular() -> None:
    # "writings" lost only its "s" and never met "writing" (-> "writ"): one suffix was removed, never two
    assert {stem(w) for w in ("writings", "writing", "writes")} == {"writ"}
    assert [stem(w) for w in ("paintings", "meetings", "things", "kings", "sings")] == ["paint", "meet", "thing", "king", "sing"]
    prior = [fact(f"p{i}", f"Joanna mentioned hobby number {i}") for i in range(10)]
    prior.append(fact("w", "Joanna is heavily invested in writing projects"))
    assert rank_facts("What kind of writings does Joanna do?", prior)[0].uuid == "w"


def test_the_plural_rule_turned_off_is_heard_though_stems_are_cached() -> None:
    """Stems are cached (the same words come back at every reply): a tuning without the plural rule must not be
    answered from what was cached with it, or the bench measures that lever as adding nothing."""
    docs = ["Caroline loves her paintings", "Caroline loves painting"]
    assert all(bm25_scores("paintings", docs))  # with the rule: "paintings" and "painting" are both "paint"
    assert bm25_scores("paintings", docs, RecallTuning(plural_ing=False))[1] == 0.0  # "painting" is not "paintings"


def test_facts_bm25_cannot_tell_apart_share_a_rank_in_the_fusion() -> None:
    """Two facts that score the same for the question: the order they were read in must not decide for the fusion,
    so the nearest-facts order (or a date) does. Without shared ranks the first read kept 1 against 2, and the
    searched order's 2 against 1 only drew level with it."""
    assert tied_ranks([("a", 2.0), ("b", 2.0), ("c", 1.0), ("d", 1.0), ("e", 0.5)]) == {"a": 1, "b": 1, "c": 3, "d": 3, "e": 5}
    first, second = fact("f1", "Caroline went to a concert"), fact("f2", "Caroline went to a museum")
    ranked = rank_facts("where did Caroline go?", [first, second], searched=[["f2", "f1"]])
    assert [f.uuid for f in ranked] == ["f2", "f1"]


def test_the_neighbours_of_the_best_matches_are_anchored_to_their_match() -> None:
    """The messages around a match come after every match, best match first, each with its match's id in
    `anchors`: the context counts a neighbour as relevant as its match (the answer next to the question)."""
    best, second = msg("q1", "Melanie", "where did you paint?", 10), msg("q2", "Melanie", "what did you paint?", 20)
    near = [("q2", msg("a2", "Caroline", "a sunset", 21)), ("q1", msg("a1", "Caroline", "at the lake", 11))]
    near.append(("q1", msg("q2", "Melanie", "what did you paint?", 20)))  # recalled already: not again
    anchors: dict[str, str] = {}
    req = ContextRequest("g", "c", "observer", "what did Melanie paint?", None, D + timedelta(hours=1))
    out = around([best, second], near, req, matches=2, anchors=anchors)
    assert [m.id for m in out] == ["a1", "a2"] and anchors == {"a1": "q1", "a2": "q2"}
