"""Recall at k, any and strict, by turns and by sessions (bench/recall_at_k.py)."""

from __future__ import annotations

from bench.chunk_retriever import Chunk
from bench.recall_at_k import AtK, ChunkRun, all_hit, any_hit, cell, overall, session_of


def test_any_counts_one_evidence_turn_strict_needs_them_all() -> None:
    found = {"D1:1", "D2:4"}
    assert any_hit(["D1:1", "D3:3"], found) and not all_hit(["D1:1", "D3:3"], found)
    assert all_hit(["D1:1", "D2:4"], found)
    assert not any_hit([], found) and not all_hit([], found)


def test_session_of_a_dia_id() -> None:
    assert session_of("D12:3") == 12 and session_of("D1:10") == 1


def _run() -> ChunkRun:
    chunks = [
        Chunk(1, ("D1:1", "D1:2"), "[d]\nA: a b c"),
        Chunk(1, ("D1:2", "D1:3"), "[d]\nA: a b c d e f g h"),
        Chunk(2, ("D2:1",), "[d]\nB: x"),
        Chunk(3, ("D3:1",), "[d]\nB: y"),
    ]
    return ChunkRun(chunks, [1, 0, 2, 3])


def test_the_top_k_chunks_give_their_turns_and_tokens() -> None:
    run = _run()
    assert run.turns_at(1) == {"D1:2", "D1:3"}
    assert run.turns_at(2) == {"D1:1", "D1:2", "D1:3"}
    assert run.tokens_at(2) == run.chunks[1].tokens + run.chunks[0].tokens
    assert run.turns_at(10) == {"D1:1", "D1:2", "D1:3", "D2:1", "D3:1"}


def test_sessions_are_the_first_k_distinct_among_the_best_2k_chunks() -> None:
    run = _run()
    # two chunks of session 1 come first: two sessions need three chunks
    sessions, tokens = run.sessions_at(2)
    assert sessions == {1, 2} and tokens == sum(run.chunks[i].tokens for i in (1, 0, 2))
    # one session: the first chunk alone
    assert run.sessions_at(1) == ({1}, run.chunks[1].tokens)
    # the 2k bound: k=1 reads at most two chunks even when they share a session
    same = ChunkRun([Chunk(1, ("D1:1",), "a"), Chunk(1, ("D1:2",), "b"), Chunk(2, ("D2:1",), "c")], [0, 1, 2])
    assert same.sessions_at(1)[0] == {1}


def test_at_k_keeps_any_strict_and_session_hits_per_category() -> None:
    at = AtK()
    at.add(1, ["D1:1", "D2:1"], {"D1:1"}, 300)
    at.add(1, ["D1:1"], {"D1:1"}, 200)
    at.add(4, ["D3:1"], set(), 100)
    at.add_session(4, ["D3:1"], {3})
    assert at.any[1] == [True, True] and at.strict[1] == [False, True] and at.any[4] == [False]
    assert at.session[4] == [True] and at.tokens == [300, 200, 100]
    assert cell(at.strict[1]) == "50.0%" and cell([]) == "-"
    assert overall(at.any, (1, 2, 3, 4)) == [True, True, False]
