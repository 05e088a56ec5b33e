"""The contender's chunks, fusion and ranking (bench/chunk_retriever.py)."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from datetime import UTC, datetime

import numpy as np
import pytest

from bench.chunk_retriever import Chunk, ChunkRetriever, chunk_sessions, fuse, stamp, windows
from bench.locomo import parse_date


@dataclass
class T:
    dia_id: str
    speaker: str
    text: str


@dataclass
class S:
    number: int
    date: datetime
    turns: list[T]


@pytest.mark.parametrize(
    ("count", "expected"),
    [
        (0, []),
        (1, [(0, 1)]),
        (6, [(0, 6)]),
        (7, [(0, 6), (5, 7)]),
        (11, [(0, 6), (5, 11)]),
        (14, [(0, 6), (5, 11), (10, 14)]),
    ],
)
def test_windows_of_six_turns_overlap_by_one(count: int, expected: list[tuple[int, int]]) -> None:
    assert [(r.start, r.stop) for r in windows(count)] == expected


@pytest.mark.parametrize("count", range(1, 40))
@pytest.mark.parametrize(("size", "overlap"), [(6, 1), (4, 2), (3, 0), (1, 0)])
def test_windows_cover_every_turn_and_share_the_overlap(count: int, size: int, overlap: int) -> None:
    spans = windows(count, size, overlap)
    assert sorted({i for r in spans for i in r}) == list(range(count))
    assert all(len(r) <= size for r in spans)
    for a, b in zip(spans, spans[1:]):
        assert len(set(a) & set(b)) == overlap and b.start > a.start


def test_an_overlap_as_long_as_the_chunk_is_refused() -> None:
    with pytest.raises(ValueError, match="overlap"):
        windows(10, 3, 3)


def test_the_prefix_is_the_session_date_as_locomo_writes_it() -> None:
    date = datetime(2023, 5, 8, 13, 56, tzinfo=UTC)
    assert stamp(date) == "1:56 pm on 8 May, 2023"
    assert parse_date(stamp(date)) == date
    assert stamp(datetime(2022, 1, 20, 9, 5, tzinfo=UTC)) == "9:05 am on 20 January, 2022"


def test_chunks_carry_the_date_the_speakers_and_their_turns() -> None:
    turns = [T(f"D3:{i}", "Ann" if i % 2 else "Bo", f"turn {i}") for i in range(1, 9)]
    chunks = chunk_sessions([S(3, datetime(2023, 7, 1, 18, 0, tzinfo=UTC), turns)])
    assert [c.dia_ids for c in chunks] == [tuple(f"D3:{i}" for i in range(1, 7)), ("D3:6", "D3:7", "D3:8")]
    assert chunks[1].text == "[6:00 pm on 1 July, 2023]\nBo: turn 6\nAnn: turn 7\nBo: turn 8"
    assert all(c.session == 3 for c in chunks) and chunks[0].tokens > chunks[1].tokens > 0


def test_fusion_adds_reciprocal_ranks() -> None:
    # 2 is second in both (2 / 62), 1 first in one and absent from the other (1 / 61): 2 wins
    assert fuse([[1, 2, 3], [4, 2, 3]])[:2] == [2, 3]
    assert set(fuse([[1, 2, 3], [4, 2, 3]])) == {1, 2, 3, 4}
    assert fuse([[1, 2], [2, 1]]) == [1, 2]  # a tie keeps the first ranking's order
    assert fuse([[5, 6, 7]]) == [5, 6, 7]


def _chunks() -> list[Chunk]:
    return [
        Chunk(1, ("D1:1",), "[x]\nAnn: we went camping by the lake"),
        Chunk(1, ("D1:2",), "[x]\nBo: my sister adopted a puppy named Luna"),
        Chunk(2, ("D2:1",), "[x]\nAnn: I painted a sunset over the ocean"),
    ]


def trigram_encoder(texts: list[str]) -> np.ndarray:
    """A real (if weak) dense encoder: hashed character trigrams, L2-normalised."""
    out = np.zeros((len(texts), 256))
    for row, text in enumerate(texts):
        t = f"  {text.casefold()}  "
        for i in range(len(t) - 2):
            out[row, hashlib.blake2s(t[i : i + 3].encode(), digest_size=2).digest()[0]] += 1
    normed: np.ndarray = out / np.maximum(np.linalg.norm(out, axis=1, keepdims=True), 1e-9)
    return normed


def test_bm25_finds_the_chunk_with_the_question_words() -> None:
    retriever = ChunkRetriever(_chunks())
    assert retriever.rank("What is the puppy's name?")[0] == 1
    assert retriever.dense("anything") == []


def test_with_an_encoder_the_order_is_the_fusion_of_both() -> None:
    retriever = ChunkRetriever(_chunks(), encode=trigram_encoder)
    question = "Who painted the ocean?"
    dense, lexical = retriever.dense(question), retriever.lexical(question)
    assert sorted(dense) == [0, 1, 2]
    assert retriever.rank(question) == fuse([lexical, dense])
    assert retriever.rank(question)[0] == 2


def test_a_reranker_reorders_the_fused_pool_by_its_scores() -> None:
    seen: list[tuple[str, list[str]]] = []

    def rerank(question: str, passages: list[str]) -> list[float]:
        seen.append((question, passages))
        return [float("camping" in p) for p in passages]

    retriever = ChunkRetriever(_chunks(), rerank=rerank)
    order = retriever.rank("puppy")
    assert order[0] == 0 and sorted(order) == [0, 1, 2]
    assert seen and seen[0][0] == "puppy" and len(seen[0][1]) == 3


def test_no_chunks_is_an_error() -> None:
    with pytest.raises(ValueError, match="no chunks"):
        ChunkRetriever([])
