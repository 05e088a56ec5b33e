"""Recall at k as the field publishes it for LoCoMo, and at equal tokens for a context that is not a list.

A retriever's top k are its k best chunks. A question counts as recalled at k when *any* of its evidence turns
is among the turns of those chunks (as published), and *strictly* when *all* of them are. The published
figures count sessions, not turns: a question counts when a session holding one of its evidence turns is among
the first k distinct sessions of the best 2k chunks (`sessions_at`).

grapevine's reply context is no list: its "top k" is the context assembled at the tokens the contender's top k
took for the same question (`ChunkRun.tokens_at`), and it counts the turns it holds (as messages, or as the
source of a fact it holds) the same way.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from bench.chunk_retriever import Chunk

KS = (5, 10)


def any_hit(evidence: Iterable[str], found: set[str]) -> bool:
    return any(e in found for e in evidence)


def all_hit(evidence: Iterable[str], found: set[str]) -> bool:
    wanted = list(evidence)
    return bool(wanted) and all(e in found for e in wanted)


def session_of(dia_id: str) -> int:
    """'D12:3' -> 12."""
    return int(dia_id[1:].split(":", 1)[0])


@dataclass(frozen=True)
class ChunkRun:
    """One question's ranking of the chunks of its conversation."""

    chunks: Sequence[Chunk]
    order: Sequence[int]

    def turns_at(self, k: int) -> set[str]:
        return {d for i in self.order[:k] for d in self.chunks[i].dia_ids}

    def tokens_at(self, k: int) -> int:
        return sum(self.chunks[i].tokens for i in self.order[:k])

    def sessions_at(self, k: int) -> tuple[set[int], int]:
        """The first k distinct sessions among the best 2k chunks (the published protocol), and the tokens of the
        chunks read to reach them."""
        seen: set[int] = set()
        tokens = 0
        for i in self.order[: 2 * k]:
            if len(seen) == k:
                break
            seen.add(self.chunks[i].session)
            tokens += self.chunks[i].tokens
        return seen, tokens


@dataclass
class AtK:
    """Hits of one method at one k, per category: (any, strict, session) per question, and the tokens used."""

    any: dict[int, list[bool]] = field(default_factory=lambda: defaultdict(list))
    strict: dict[int, list[bool]] = field(default_factory=lambda: defaultdict(list))
    session: dict[int, list[bool]] = field(default_factory=lambda: defaultdict(list))
    tokens: list[int] = field(default_factory=list)

    def add(self, category: int, evidence: Sequence[str], found: set[str], tokens: int) -> None:
        self.any[category].append(any_hit(evidence, found))
        self.strict[category].append(all_hit(evidence, found))
        self.tokens.append(tokens)

    def add_session(self, category: int, evidence: Sequence[str], sessions: set[int]) -> None:
        self.session[category].append(any(session_of(e) in sessions for e in evidence))


def share(values: Iterable[bool]) -> float | None:
    items = list(values)
    return sum(items) / len(items) if items else None


def cell(values: Iterable[bool]) -> str:
    value = share(values)
    return "-" if value is None else f"{100 * value:.1f}%"


def overall(by_category: dict[int, list[bool]], categories: Iterable[int]) -> list[bool]:
    return [hit for c in categories for hit in by_category.get(c, [])]
