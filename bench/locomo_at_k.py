"""`bench.locomo`'s second table: recall at k as the field publishes it for LoCoMo, grapevine beside the chunk
retriever contender (`bench.chunk_retriever`) at equal tokens (`bench.recall_at_k`).

For each question the contender ranks its chunks; its top k cost some tokens, and grapevine's reply context is
assembled at exactly that many tokens for the same question (a budget per question, their mean printed), as is
BM25 over raw messages. A question counts at k when any of its evidence turns is in what was retrieved (as
published) and strictly when all of them are. The published figures count sessions: the last lines say how the
contender and grapevine's context at the same tokens do by that count.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from bench.chunk_retriever import Chunk, ChunkRetriever, Encode, chunk_sessions
from bench.common import mean, table
from bench.recall_at_k import KS, AtK, ChunkRun, cell, overall, session_of

GRAPEVINE_AT_K = "grapevine context"
BM25_AT_K = "BM25 over raw messages"
NO_RERANKER = (
    "no reranker: no package on the registries ships a cross-encoder with its weights, and nothing may load one "
    "from a hub at run time"
)


def contender_name(model: str | None) -> str:
    return f"chunks: BM25 + {model}, RRF" if model else "chunks: BM25"


def contender_description(model: str | None) -> str:
    dense = f" and nearest chunks by {model}, fused by reciprocal rank" if model else " alone"
    return f"sessions cut into 6-turn chunks with a 1-turn overlap, each prefixed with its date, ranked by BM25{dense}"


@dataclass
class Budgets:
    """The tokens the contender's top k took for one question (`k`), and those of the chunks it read to reach k
    distinct sessions (`session_k`)."""

    run: ChunkRun
    k: dict[int, int] = field(default_factory=dict)
    session_k: dict[int, int] = field(default_factory=dict)
    sessions: dict[int, set[int]] = field(default_factory=dict)

    @classmethod
    def of(cls, run: ChunkRun, ks: Sequence[int] = KS) -> Budgets:
        out = cls(run)
        for k in ks:
            out.k[k] = run.tokens_at(k)
            out.sessions[k], out.session_k[k] = run.sessions_at(k)
        return out

    def all(self) -> list[int]:
        return sorted({*self.k.values(), *self.session_k.values()})


@dataclass
class AtKResult:
    categories: dict[int, str]
    contenders: dict[str, str] = field(default_factory=dict)  # row name -> what it is
    reranker: str = NO_RERANKER
    scores: dict[tuple[str, str, int], AtK] = field(default_factory=dict)  # (contender, method or "", k) -> hits

    def at(self, contender: str, method: str, k: int) -> AtK:
        return self.scores.setdefault((contender, method, k), AtK())

    def add(
        self,
        contender: str,
        category: int,
        evidence: Sequence[str],
        budgets: Budgets,
        grapevine: Callable[[int], tuple[set[str], int]],
        others: Sequence[tuple[str, Callable[[int], tuple[set[str], int]]]] = (),
    ) -> None:
        """One question: the contender's top k, and each other method's turns (and tokens used) at the tokens
        those took; by sessions too."""
        for k in budgets.k:
            self.at(contender, "", k).add(category, evidence, budgets.run.turns_at(k), budgets.k[k])
            self.at(contender, "", k).add_session(category, evidence, budgets.sessions[k])
            for name, method in ((GRAPEVINE_AT_K, grapevine), *others):
                found, used = method(budgets.k[k])
                self.at(contender, name, k).add(category, evidence, found, used)
                at_sessions, _ = method(budgets.session_k[k])
                self.at(contender, name, k).add_session(category, evidence, {session_of(d) for d in at_sessions})


class Contender:
    """The contender over one conversation's sessions (any objects with number, date and turns)."""

    def __init__(self, sessions: Sequence[Any], encode: Encode | None) -> None:
        self.chunks: list[Chunk] = chunk_sessions(sessions)
        self.retriever = ChunkRetriever(self.chunks, encode=encode)

    def budgets(self, question: str) -> Budgets:
        return Budgets.of(ChunkRun(self.chunks, self.retriever.rank(question)))


def _cells(hits: AtK, categories: Sequence[int], kind: str) -> list[str]:
    by = {"any": hits.any, "strict": hits.strict, "session": hits.session}[kind]
    return [cell(by.get(c, [])) for c in categories] + [cell(overall(by, categories))]


def report(out: Any, result: AtKResult, questions: int, conversations: int, path_name: str) -> None:
    cats = list(result.categories)
    first = next(iter(result.scores.values()), AtK())
    headers = [
        "k",
        "retrieved",
        *(f"{c} {name} ({len(first.any.get(c, []))})" for c, name in result.categories.items()),
        f"overall ({questions})",
        "tokens (mean)",
    ]
    rows = []
    keys = list(dict.fromkeys((contender, method) for contender, method, _ in result.scores))
    for k in KS:
        for contender, method in keys:
            hits = result.scores.get((contender, method, k))
            if hits is None:
                continue
            anys, stricts = _cells(hits, cats, "any"), _cells(hits, cats, "strict")
            name = f"  {method}" if method else contender
            rows.append(
                [f"R@{k}", name, *(f"{a}/{s}".replace("%", "") for a, s in zip(anys, stricts)), f"{mean(hits.tokens):.0f}"]
            )
    out.print(
        table(
            f"LoCoMo recall at k, % of questions with any/all evidence turns: {path_name}, {conversations} conversations, "
            f"{questions} questions (categories 1-5)",
            headers,
            rows,
            left=2,
        )
    )
    out.print(
        "A question counts at k when any of its evidence turns is among the turns retrieved (as published), and "
        "strictly when all of them are (any/all in each cell). A contender's top k are its k best chunks; under each, grapevine's reply "
        "context (messages, and facts by the turns they were drawn from) and the raw messages BM25 ranks first, each "
        "assembled per question at the tokens that contender's top k took for it (their mean in the last column). "
        + " ".join(f"{name}: {what}." for name, what in result.contenders.items())
        + f" {result.reranker[0].upper()}{result.reranker[1:]}."
    )
    for k in KS:
        parts = []
        for contender, method in keys:
            hits = result.scores.get((contender, method, k))
            if hits is not None and any(hits.session.values()):
                parts.append(
                    f"{f'{method} at the tokens of {contender}' if method else contender} {_cells(hits, cats, 'session')[-1]}"
                )
        if parts:
            out.print(
                f"By sessions, as the published figures count (the first {k} distinct sessions of a contender's best "
                f"{2 * k} chunks, and the others at the tokens of those chunks): " + "; ".join(parts)
            )
