"""grapevine beside the contender at the tokens the contender's top k took (bench/locomo_at_k.py)."""

from __future__ import annotations

from bench.chunk_retriever import Chunk
from bench.locomo_at_k import GRAPEVINE_AT_K, AtKResult, Budgets
from bench.recall_at_k import ChunkRun


def _run() -> ChunkRun:
    chunks = [
        Chunk(1, ("D1:1", "D1:2"), "[d]\nA: one two three"),
        Chunk(1, ("D1:2", "D1:3"), "[d]\nA: four five six seven"),
        Chunk(2, ("D2:1", "D2:2"), "[d]\nB: eight"),
    ]
    return ChunkRun(chunks, [1, 0, 2])


def test_budgets_are_the_tokens_of_the_top_k_and_of_the_chunks_read_to_reach_k_sessions() -> None:
    run = _run()
    budgets = Budgets.of(run, ks=(1, 2))
    assert budgets.k == {1: run.tokens_at(1), 2: run.tokens_at(2)}
    assert budgets.sessions[2] == {1, 2} and budgets.session_k[2] == run.tokens_at(3)
    assert budgets.all() == sorted({run.tokens_at(1), run.tokens_at(2), run.tokens_at(3)})


def test_grapevine_is_asked_at_the_contenders_tokens_for_the_same_question() -> None:
    run = _run()
    budgets = Budgets.of(run, ks=(1, 2))
    asked: list[int] = []

    def grapevine(budget: int) -> tuple[set[str], int]:
        asked.append(budget)
        return ({"D1:1", "D2:1"} if budget >= run.tokens_at(2) else {"D1:1"}), budget - 1

    result = AtKResult({1: "multi-hop"})
    result.add("contender", 1, ["D1:1", "D2:1"], budgets, grapevine)
    assert sorted(set(asked)) == budgets.all()
    contender_1, contender_2 = result.at("contender", "", 1), result.at("contender", "", 2)
    assert contender_1.any[1] == [False] and contender_2.any[1] == [True] and contender_2.strict[1] == [False]
    assert contender_2.session[1] == [True]  # session 1 is among the first two distinct sessions
    ours_1, ours_2 = result.at("contender", GRAPEVINE_AT_K, 1), result.at("contender", GRAPEVINE_AT_K, 2)
    assert ours_1.any[1] == [True] and ours_1.strict[1] == [False]
    assert ours_2.strict[1] == [True] and ours_2.tokens == [run.tokens_at(2) - 1]
