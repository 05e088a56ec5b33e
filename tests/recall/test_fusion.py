"""Fusion weights of the related facts' ranking: the nearest facts by embedding are fused with BM25
by reciprocal rank, each order with its weight (`RecallTuning.searched_weight`, equal by default: on LoCoMo,
weights 0.5 to 1.5 recall within 0.4 points of each other and cross-validation picks 0.5 or 1)."""

from __future__ import annotations

from datetime import UTC, datetime

from common.settings import RecallTuning
from graph.models import FactView
from recall.ranking import fuse, rank_facts

D = datetime(2024, 5, 3, 18, 0, tzinfo=UTC)


def fact(uuid: str, text: str) -> FactView:
    return FactView(uuid=uuid, text=text, category="other", importance=5, confidence=0.9, valid_at=D, about=("Melanie",))


def test_weights_scale_each_order() -> None:
    assert fuse(["a", "b", "c"], [["a"], ["b"]]) == ["a", "b", "c"]  # a tie keeps the prior order
    assert fuse(["a", "b", "c"], [["a"], ["b"]], [1.0, 2.0]) == ["b", "a", "c"]
    assert fuse(["a", "b", "c"], [["a"], ["b"]], [1.0, 0.0]) == ["a", "b", "c"]


def test_a_fact_sharing_no_word_with_the_question_is_ranked_by_its_embedding() -> None:
    """ "What activities does Melanie partake in?": pottery shares no word with it, only the name; BM25 ranks it
    with every other fact about Melanie, the vector search first."""
    prior = [fact(f"p{i}", f"Melanie mentioned her cousin number {i}") for i in range(10)] + [
        fact("pottery", "Melanie signed up for a pottery class")
    ]
    question = "What activities does Melanie partake in?"
    assert rank_facts(question, prior)[-1].uuid == "pottery"
    assert rank_facts(question, prior, searched=[["pottery"]])[0].uuid == "pottery"
    off = RecallTuning(searched_weight=0.0)
    assert rank_facts(question, prior, searched=[["pottery"]], tuning=off)[-1].uuid == "pottery"  # the lever off
