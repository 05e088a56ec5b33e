"""Relevance to the message being answered: which remembered facts and messages to show first.

Pure, like `recall.assemble`: the builder reads candidates from the graph, these functions order them.
A fact scores by BM25+ (the `rank-bm25` library) of its text and subjects against the message,
computed over the candidate pool, fused by reciprocal rank with the orders the search indexes gave
(full text, vectors). Facts that match nothing keep their prior order (importance, recency) after
the ones that do, so a message that names a person but asks nothing specific still gets their facts.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from functools import lru_cache

from rank_bm25 import BM25Plus

from common.settings import RecallTuning
from common.text import content_words, keywords
from graph.models import FactView, MessageView
from recall.when import Period, timely_facts, timely_messages


@lru_cache(maxsize=1 << 16)  # pure, and the same few thousand words come back at every reply (a sixth of its client CPU)
def stem(word: str, plural_ing: bool = True) -> str:
    """A word without its common English inflection ("books", "camped", "camping", "painted" -> "book",
    "camp", "camp", "paint"), so a question and the fact that answers it match on the word, not its form.
    Only endings whose removal leaves a stem of three letters or more; "ss" (a class, to destress) is kept; with
    `plural_ing`, the plural of an "-ing" word loses both endings ("writings", "paintings" -> "writ", "paint")."""
    for suffix, replacement in (("ies", "y"), ("ing", ""), ("ed", ""), ("es", ""), ("s", "")):
        if word.endswith(suffix) and len(word) - len(suffix) >= 3:
            if suffix == "s" and word.endswith("ss"):
                return word
            if suffix == "es" and not word.endswith(("shes", "ches", "xes", "sses", "zes")):
                continue  # "games" -> "game" (by "s"), but "watches" -> "watch"
            if suffix == "s" and word.endswith("ings") and plural_ing:
                return stem(word[:-1], plural_ing)  # "writings" -> "writing" -> "writ", as "writing" does
            return _base(word[: -len(suffix)] + replacement)
    return _base(word)


def _base(word: str) -> str:
    """ "runn" -> "run", "hike" -> "hik" (as "hiking" -> "hik"): one form for a doubled or silent ending."""
    if len(word) >= 4 and word[-1] == word[-2] and word[-1] not in "lsz":
        return word[:-1]
    return word[:-1] if len(word) >= 4 and word.endswith("e") else word


def _stems(words: Sequence[str], tuning: RecallTuning) -> list[str]:
    if not tuning.stems:
        return list(words)
    plural_ing = tuning.plural_ing
    return [stem(w, plural_ing) for w in words]


# a reply ranks the same facts twice (the second round, the assembly), and the next reply many of them again
@lru_cache(maxsize=1 << 14)
def _document_stems(document: str, stems: bool, plural_ing: bool) -> tuple[str, ...]:
    """A document's content words as BM25 compares them; rank-bm25 needs a token in every document."""
    words = content_words(document)
    return tuple((stem(w, plural_ing) for w in words) if stems else words) or ("\0",)


def bm25_scores(query: str, documents: Sequence[str], tuning: RecallTuning = RecallTuning()) -> list[float]:
    """BM25 of each document against the query's words, over these documents only; 0 when nothing matches.
    Words are compared by their stems (`stem`)."""
    words = list(dict.fromkeys(_stems(keywords(query), tuning)))
    if not words or not documents:
        return [0.0] * len(documents)
    wanted = set(words)
    # a word the query does not hold counts only in its document's length: one filler token stands for each, so the
    # index counts and weighs the query's words alone (the same scores, for a fraction of a reply's CPU)
    corpus = [_matchable(_document_stems(d, tuning.stems, tuning.plural_ing), wanted) for d in documents]
    # BM25+ rather than Okapi: over a pool of a few dozen facts, Okapi's idf is 0 or negative for any word
    # in half of them (a name), which ranks a fact naming the person below one that does not
    scores = BM25Plus(corpus).get_scores(words)
    # BM25+ adds a floor for every query word, matched or not: a document sharing no word scores 0 here
    return [float(s) if wanted & set(doc) else 0.0 for s, doc in zip(scores, corpus)]


def _matchable(document: tuple[str, ...], wanted: set[str]) -> list[str]:
    return [w if w in wanted else "\0" for w in document]


def shares_words(query: str, documents: Sequence[str], tuning: RecallTuning = RecallTuning()) -> list[bool]:
    """Whether each document holds a word of the query, compared as `bm25_scores` compares them: where its score
    is above 0, without building the index a score needs."""
    wanted = set(_stems(keywords(query), tuning))
    return [bool(wanted.intersection(_document_stems(d, tuning.stems, tuning.plural_ing))) for d in documents]


Ranking = Sequence[str] | Mapping[str, int]  # keys best first, or each key's rank (1 = best; ties share one)


def _rank_of(order: Ranking) -> Mapping[str, int]:
    if isinstance(order, Mapping):
        return order
    ranks: dict[str, int] = {}
    for i, key in enumerate(order):
        ranks.setdefault(key, i + 1)
    return ranks


def tied_ranks(scored: Sequence[tuple[str, float]]) -> dict[str, int]:
    """Ranks of keys sorted best first by score, equal scores sharing the best of their ranks (1, 1, 3, ...):
    where a score cannot tell two keys apart, the order they came in must not do it for the fusion."""
    ranks: dict[str, int] = {}
    previous: float | None = None
    rank = 0
    for i, (key, score) in enumerate(scored):
        if score != previous:
            rank, previous = i + 1, score
        ranks.setdefault(key, rank)
    return ranks


def fuse(
    prior: Sequence[str], rankings: Sequence[Ranking], weights: Sequence[float] = (), *, k: int = RecallTuning().rrf_k
) -> list[str]:
    """Keys of `prior` ordered by reciprocal rank fusion of `rankings` (each a best-first list of keys or each
    key's rank, each counted with its weight, 1 when `weights` does not say) with constant `k`; keys no ranking
    holds keep their prior order after the rest, and ties keep it too."""
    ranks = [(_rank_of(r), weights[i] if i < len(weights) else 1.0) for i, r in enumerate(rankings)]
    score = {key: sum(w / (k + r[key]) for r, w in ranks if key in r) for key in prior}
    position: dict[str, int] = {}
    for i, key in enumerate(prior):
        position.setdefault(key, i)
    return sorted(dict.fromkeys(prior), key=lambda k: (-score[k], position[k]))


def fact_document(fact: FactView) -> str:
    return " ".join([fact.text, *fact.about])


def rank_facts(
    query: str,
    candidates: Sequence[FactView],
    searched: Sequence[Sequence[str]] = (),
    period: Period | None = None,
    tuning: RecallTuning = RecallTuning(),
) -> list[FactView]:
    """Candidates (distinct, in prior order) best first for `query`: BM25 over the candidates, fused with
    the orders of `searched` (fact uuids best first, as the vector search returned them) and,
    when the message names a `period`, with the order of the facts of that period (best matches first)."""
    facts = list({f.uuid: f for f in candidates}.values())
    scores = bm25_scores(query, [fact_document(f) for f in facts], tuning)
    pairs = sorted(zip(scores, facts), key=lambda t: -t[0])
    lexical = tied_ranks([(f.uuid, s) for s, f in pairs if s > 0])
    timely = timely_facts([f for _, f in pairs], period) if tuning.time_aware else []
    rankings: list[Ranking] = [lexical, *([timely] if timely else []), *searched]
    weights = [1.0] * (len(rankings) - len(searched)) + [tuning.searched_weight] * len(searched)
    order = fuse([f.uuid for f in facts], rankings, weights, k=tuning.rrf_k)
    by_uuid = {f.uuid: f for f in facts}
    return [by_uuid[u] for u in order]


def rank_messages(
    query: str, messages: Sequence[MessageView], period: Period | None = None, tuning: RecallTuning = RecallTuning()
) -> list[MessageView]:
    """Messages best first for `query`: BM25 over the messages (author and content), fused with the order
    they came in (the recalled search's: the rarest words first) and, when the message names a `period`, with
    the order of the messages sent then."""
    found = list({m.id: m for m in messages}.values())
    scores = bm25_scores(query, [f"{m.author_name} {m.content}" for m in found], tuning)
    pairs = sorted(zip(scores, found), key=lambda t: -t[0])
    lexical = [m.id for s, m in pairs if s > 0]
    timely = timely_messages([m for _, m in pairs], period) if tuning.time_aware else []
    order = fuse([m.id for m in found], [lexical, *([timely] if timely else []), [m.id for m in found]], k=tuning.rrf_k)
    by_id = {m.id: m for m in found}
    return [by_id[i] for i in order]
