"""The retrieval-only contender on LoCoMo, built as the best published design describes it: each session cut
into chunks of about 6 turns with a 1-turn overlap, each chunk prefixed with its session's date and each turn
with its speaker, ranked by BM25 (rank-bm25) and by dense embeddings, the two rankings fused by reciprocal
rank, then the best candidates reordered by a cross-encoder where one is given.

No package on the registries ships a cross-encoder with its weights (see the README's LoCoMo part), and
nothing here may load one from a hub at run time, so `bench.locomo` runs it without one and says so.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Protocol

import numpy as np

from common.tokens import estimate_tokens

CHUNK_TURNS, OVERLAP = 6, 1
RRF_K = 60  # the constant of reciprocal rank fusion, as in its paper and the published design
RERANK_POOL = 20  # the fused candidates a cross-encoder reorders
_WORD = re.compile(r"\w+")
_STOP = frozenset(
    "a an and are as at be but by did do does for from had has have he her him his how i if in is it its me my no not "
    "of on or our she so that the their them then there they this to too us was we were what when where which who "
    "why will with you your".split()
)

Encode = Callable[[list[str]], np.ndarray]  # texts -> one L2-normalised row per text
Rerank = Callable[[str, list[str]], Sequence[float]]  # (query, passages) -> a score per passage


class TurnLike(Protocol):
    @property
    def dia_id(self) -> str: ...
    @property
    def speaker(self) -> str: ...
    @property
    def text(self) -> str: ...


class SessionLike(Protocol):
    @property
    def number(self) -> int: ...
    @property
    def date(self) -> datetime: ...
    @property
    def turns(self) -> Sequence[TurnLike]: ...


@dataclass(frozen=True)
class Chunk:
    session: int
    dia_ids: tuple[str, ...]
    text: str

    @property
    def tokens(self) -> int:
        return estimate_tokens(self.text)


def windows(count: int, size: int = CHUNK_TURNS, overlap: int = OVERLAP) -> list[range]:
    """Index ranges of `size` turns, each starting `overlap` turns before the previous one ends; a session of at
    most `size` turns is one chunk, and the last chunk may be shorter."""
    if count <= 0:
        return []
    if not 0 <= overlap < size:
        raise ValueError(f"the overlap ({overlap}) must be at least 0 and less than the chunk size ({size})")
    out, start = [], 0
    while True:
        end = min(start + size, count)
        out.append(range(start, end))
        if end == count:
            return out
        start = end - overlap


def stamp(date: datetime) -> str:
    """The session's date as LoCoMo writes it ("1:56 pm on 8 May, 2023"), the prefix of each of its chunks."""
    return f"{date:%-I:%M} {date:%p}".lower() + f" on {date.day} {date:%B}, {date.year}"


def chunk_sessions(sessions: Iterable[SessionLike], size: int = CHUNK_TURNS, overlap: int = OVERLAP) -> list[Chunk]:
    chunks = []
    for session in sessions:
        turns = list(session.turns)
        prefix = f"[{stamp(session.date)}]"
        for span in windows(len(turns), size, overlap):
            lines = [f"{turns[i].speaker}: {turns[i].text}" for i in span]
            chunks.append(Chunk(session.number, tuple(turns[i].dia_id for i in span), "\n".join([prefix, *lines])))
    return chunks


def words(text: str) -> list[str]:
    return [w for w in _WORD.findall(text.casefold()) if w not in _STOP]


def fuse(rankings: Sequence[Sequence[int]], k: int = RRF_K) -> list[int]:
    """Reciprocal rank fusion: each item scores the sum of 1 / (k + rank) over the rankings (rank from 1); ties
    keep the first ranking's order."""
    score: dict[int, float] = {}
    for ranking in rankings:
        for rank, item in enumerate(ranking, start=1):
            score[item] = score.get(item, 0.0) + 1.0 / (k + rank)
    first = {item: i for i, item in enumerate(rankings[0])} if rankings else {}
    return sorted(score, key=lambda item: (-score[item], first.get(item, len(first)), item))


class ChunkRetriever:
    """Ranks the chunks of one conversation for a question: BM25 and (with `encode`) dense, fused by reciprocal
    rank, then (with `rerank`) the best RERANK_POOL reordered by the cross-encoder's scores."""

    def __init__(self, chunks: Sequence[Chunk], encode: Encode | None = None, rerank: Rerank | None = None) -> None:
        from rank_bm25 import BM25Okapi

        if not chunks:
            raise ValueError("no chunks to retrieve from")
        self.chunks = list(chunks)
        self.bm25 = BM25Okapi([words(c.text) or ["_"] for c in self.chunks])
        self.encode = encode
        self.vectors = encode([c.text for c in self.chunks]) if encode is not None else None
        self.rerank = rerank

    def lexical(self, question: str) -> list[int]:
        scores = self.bm25.get_scores(words(question))
        return sorted(range(len(self.chunks)), key=lambda i: (-scores[i], i))

    def dense(self, question: str) -> list[int]:
        if self.encode is None or self.vectors is None:
            return []
        scores = self.vectors @ self.encode([question])[0]
        return sorted(range(len(self.chunks)), key=lambda i: (-float(scores[i]), i))

    def rank(self, question: str) -> list[int]:
        rankings = [r for r in (self.lexical(question), self.dense(question)) if r]
        order = fuse(rankings) if len(rankings) > 1 else rankings[0]
        if self.rerank is None:
            return order
        pool = order[:RERANK_POOL]
        scores = self.rerank(question, [self.chunks[i].text for i in pool])
        reordered = [i for _, i in sorted(zip((-float(s) for s in scores), pool), key=lambda si: si[0])]
        return reordered + order[RERANK_POOL:]
