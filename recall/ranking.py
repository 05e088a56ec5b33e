"""Relevance to the message being answered: which remembered facts and messages to show first.

Pure, like `recall.assemble`: the builder reads candidates from the graph, these functions order them.
A fact scores by BM25+ (the `rank-bm25` library) of its text and subjects against the message,
computed over the candidate pool, fused by reciprocal rank with the orders the search indexes gave
(full text, vectors). Facts that match nothing keep their prior order (importance, recency) after
the ones that do, so a message that names a person but asks nothing specific still gets their facts.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from functools import lru_cache

from rank_bm25 import BM25Plus

from common.settings import RecallTuning
from common.text import document_terms, keywords, stem
from graph.models import FactView, MessageView
from recall.when import Period, fact_time, timely_facts, timely_messages
from recall.when import timely as time_ordered


def _stems(words: Sequence[str], tuning: RecallTuning) -> list[str]:
    if not tuning.stems:
        return list(words)
    plural_ing = tuning.plural_ing
    return [stem(w, plural_ing) for w in words]


Terms = tuple[str, ...]  # a document's words as BM25 compares them (`document_terms`), never empty


# a message's text ranked by one reply comes back at the next ones (the channel's latest, the passages around it);
# a fact's terms are the read model's, made once (`fact_terms`)
@lru_cache(maxsize=1 << 14)
def _document_stems(document: str, stems: bool, plural_ing: bool) -> Terms:
    """A document's content words as BM25 compares them; rank-bm25 needs a token in every document."""
    return document_terms(document, stems, plural_ing) or ("\0",)


def fact_terms(fact: FactView, tuning: RecallTuning = RecallTuning(), whole: bool = True) -> Terms:
    """The terms of the fact's document (`fact_document`: its text and its subjects' names), or of its text alone
    without `whole`: those the read model made with the fact (`FactView.terms`, stemmed as the default tuning
    stems) when the tuning compares words so, else made from the text now."""
    held = fact.terms
    if held is not None and tuning.stems and tuning.plural_ing:
        return (held if whole else held[: fact.text_terms]) or ("\0",)
    return _document_stems(fact_document(fact) if whole else fact.text, tuning.stems, tuning.plural_ing)


def _own_terms(text: str, tuning: RecallTuning) -> tuple[str, ...]:
    """The text's terms without the token an empty document stands for (a part of a document)."""
    terms = _document_stems(text, tuning.stems, tuning.plural_ing)
    return () if terms == ("\0",) else terms


def _terms(documents: Sequence[str], tuning: RecallTuning) -> list[Terms]:
    stems, plural_ing = tuning.stems, tuning.plural_ing
    return [_document_stems(d, stems, plural_ing) for d in documents]


def forget_texts() -> int:
    """Empty the caches that hold words of what members said (a forget or a delete must leave none in the
    process); how many entries they held."""
    held = stem.cache_info().currsize + _document_stems.cache_info().currsize
    stem.cache_clear()
    _document_stems.cache_clear()
    return held


def bm25_scores(query: str, documents: Sequence[str], tuning: RecallTuning = RecallTuning()) -> list[float]:
    """BM25 of each document against the query's words, over these documents only; 0 when nothing matches.
    Words are compared by their stems (`stem`)."""
    return _bm25(query, _terms(documents, tuning), tuning)


def _bm25(query: str, documents: Sequence[Terms], tuning: RecallTuning) -> list[float]:
    """`bm25_scores` over the documents' terms."""
    words = list(dict.fromkeys(_stems(keywords(query), tuning)))
    if not words or not documents:
        return [0.0] * len(documents)
    wanted = set(words)
    # a word the query does not hold counts only in its document's length: one filler token stands for each, so the
    # index counts and weighs the query's words alone (the same scores, for a fraction of a reply's CPU)
    corpus = [_matchable(d, wanted) for d in documents]
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
    return _shared(query, _terms(documents, tuning), tuning)


def facts_share_words(query: str, facts: Sequence[FactView], tuning: RecallTuning = RecallTuning()) -> list[bool]:
    """`shares_words` over the facts' documents (`fact_document`)."""
    return _shared(query, [fact_terms(f, tuning) for f in facts], tuning)


def _shared(query: str, documents: Sequence[Terms], tuning: RecallTuning) -> list[bool]:
    wanted = set(_stems(keywords(query), tuning))
    return [not wanted.isdisjoint(d) for d in documents]


Ranking = Sequence[str] | Mapping[str, int]  # keys best first, or each key's rank (1 = best; ties share one)


def _rank_of(order: Ranking) -> Mapping[str, int]:
    if isinstance(order, Mapping):
        return order
    ranks: dict[str, int] = {}
    for i, key in enumerate(order):
        ranks.setdefault(key, i + 1)
    return ranks


def tied_ranks(scored: Sequence[tuple[str, object]]) -> dict[str, int]:
    """Ranks of keys sorted best first by score, equal scores sharing the best of their ranks (1, 1, 3, ...):
    where a score cannot tell two keys apart, the order they came in must not do it for the fusion."""
    ranks: dict[str, int] = {}
    previous: object = None
    rank = 0
    for i, (key, score) in enumerate(scored):
        if score != previous:
            rank, previous = i + 1, score
        ranks.setdefault(key, rank)
    return ranks


def fused_scores(
    keys: Sequence[str], rankings: Sequence[Ranking], weights: Sequence[float] = (), *, k: int = RecallTuning().rrf_k
) -> dict[str, float]:
    """Each key's reciprocal rank fusion score over `rankings` (see `fuse`): 0 for a key no ranking holds."""
    ranks = [(_rank_of(r), weights[i] if i < len(weights) else 1.0) for i, r in enumerate(rankings)]
    return {key: sum(w / (k + r[key]) for r, w in ranks if key in r) for key in keys}


def fuse(
    prior: Sequence[str], rankings: Sequence[Ranking], weights: Sequence[float] = (), *, k: int = RecallTuning().rrf_k
) -> list[str]:
    """Keys of `prior` ordered by reciprocal rank fusion of `rankings` (each a best-first list of keys or each
    key's rank, each counted with its weight, 1 when `weights` does not say) with constant `k`; keys no ranking
    holds keep their prior order after the rest, and ties keep it too."""
    score = fused_scores(prior, rankings, weights, k=k)
    position: dict[str, int] = {}
    for i, key in enumerate(prior):
        position.setdefault(key, i)
    return sorted(dict.fromkeys(prior), key=lambda k: (-score[k], position[k]))


def lexical_scores(
    query: str, documents: Sequence[str], who: frozenset[str] = frozenset(), tuning: RecallTuning = RecallTuning()
) -> list[tuple[float, int]]:
    """Each document's (BM25 of the question's words, how many of the members it names the document names), to sort
    by: with `who` (words of members' names), the names count only to break ties between documents the question's
    other words score alike (`what_words`), so a turn that says what was asked ranks above one that only names who
    was asked about, whoever said it; the score counts every word when the question holds only names."""
    return _lexical(query, _terms(documents, tuning), who, tuning)


def _lexical(query: str, documents: Sequence[Terms], who: frozenset[str], tuning: RecallTuning) -> list[tuple[float, int]]:
    """`lexical_scores` over the documents' terms."""
    asked = what_words(query, who)
    scores = _bm25(asked, documents, tuning)
    if asked == query:
        return [(s, 0) for s in scores]
    named = set(_stems([w for w in keywords(query) if w in who], tuning))
    held = [len(named.intersection(d)) for d in documents]
    return list(zip(scores, held))


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
    when the message names a `period`, with the order of the facts of that period (best matches first). With
    `tuning.speaker_blind`, the words naming the candidates' reporters count only when the question holds no other
    (`what_words`): "what did Melanie paint?" finds the painting Caroline spoke of too."""
    facts = list({f.uuid: f for f in candidates}.values())
    who = member_words([name for f in facts for _, name, _ in f.reporters]) if tuning.speaker_blind else frozenset()
    scores = _lexical(query, [fact_terms(f, tuning) for f in facts], who, tuning)
    pairs = sorted(zip(scores, facts), key=lambda t: (-t[0][0], -t[0][1]))
    lexical = tied_ranks([(f.uuid, s) for s, f in pairs if s > (0.0, 0)])
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
    the order of the messages sent then. With `tuning.speaker_blind`, the words naming the messages' authors count
    only when the question holds no other (`what_words`), as for facts."""
    found = list({m.id: m for m in messages}.values())
    who = member_words([m.author_name for m in found]) if tuning.speaker_blind else frozenset()
    scores = lexical_scores(query, [f"{m.author_name} {m.content}" for m in found], who, tuning)
    pairs = sorted(zip(scores, found), key=lambda t: (-t[0][0], -t[0][1]))
    lexical = [m.id for s, m in pairs if s > (0.0, 0)]
    timely = timely_messages([m for _, m in pairs], period) if tuning.time_aware else []
    order = fuse([m.id for m in found], [lexical, *([timely] if timely else []), [m.id for m in found]], k=tuning.rrf_k)
    by_id = {m.id: m for m in found}
    return [by_id[i] for i in order]


def member_words(names: Sequence[str]) -> frozenset[str]:
    """The words of members' names, as a question holds them ("Melanie", "Caroline")."""
    return frozenset(w for name in set(names) for w in keywords(name))


def what_words(query: str, who: frozenset[str]) -> str:
    """The question without the members it names, when it holds another word: what it asks about, whoever said it.
    "What did Melanie paint?" asks about painting, and is answered by the turn that says it, even when Caroline
    said it (the context says who did)."""
    words = keywords(query)
    kept = [w for w in words if w not in who]
    return " ".join(kept) if kept and len(kept) < len(words) else query


_WH = frozenset("what which who whom where when how".split())
_AUX = frozenset("is are was were do does did has have had can could will would should".split())
_ACCRUED = frozenset({"has", "have"})


def asks_for_several(query: str, who: frozenset[str] = frozenset()) -> bool:
    """Whether the question asks for several things by its form: "how many", "both", "all", "each", "every"; two
    members joined ("Jon and Gina"); a plural in what it asks for (the words between its question word and its
    verb: "What books has ...", "Which European cities did ...", "What are Joanna's hobbies?"); or what has
    accrued over time ("Where has Maria made friends?"): answered by several facts said at different times."""
    words = [w.casefold() for w in re.findall(r"[\w'’]+", query)]
    if any(w in ("both", "all", "each", "every") for w in words) or "how many" in " ".join(words):
        return True
    for i in range(1, len(words) - 1):
        if words[i] == "and" and words[i - 1] in who and words[i + 1] in who:
            return True
    for start, word in enumerate(words):
        if word not in _WH:
            continue
        head: list[str] = []
        copula = False  # "What are Joanna's hobbies?": what it asks for comes after the verb
        verb = False
        for w in words[start + 1 : start + 6]:
            if w in _AUX:
                if w in _ACCRUED:
                    return True
                if w in ("are", "were") and word in ("what", "which") and not head and not copula:
                    copula = True
                    continue
                verb = True
                break
            head.append(w)
        if not verb and not copula:
            head = []  # no verb where one was expected: "what makes Jon ..." asks for no noun
        if any(_plural(w) for w in head if w not in who and not w.endswith(("'s", "’s"))):
            return True
        break
    return False


def _plural(word: str) -> bool:
    return word.endswith("s") and not word.endswith(("ss", "us", "is")) and len(word) > 3


def passages(messages: Sequence[MessageView], anchors: Mapping[str, str]) -> dict[str, str]:
    """Each message's passage: its text with that of the messages the reads brought beside it (`anchors`: message
    id -> the match or the fact it came with), oldest first, as a chunk retriever reads a turn with the turns next
    to it. A match and its neighbours are each other's passage; the turns that came with one fact (its source turn
    and the turns around it) are one passage. A message nothing came beside is its own passage."""
    by_id = {m.id: m for m in messages}
    linked: dict[str, set[str]] = {m.id: set() for m in messages}
    with_fact: dict[str, list[str]] = {}
    for message_id, anchor in anchors.items():
        if message_id not in by_id:
            continue
        if anchor in by_id:
            linked[message_id].add(anchor)
            linked[anchor].add(message_id)
        else:
            with_fact.setdefault(anchor, []).append(message_id)
    for group in with_fact.values():
        for message_id in group:
            linked[message_id].update(group)
    out = {}
    for m in messages:
        window = sorted({m.id, *linked[m.id]}, key=lambda i: (by_id[i].created_at, i))
        out[m.id] = " ".join(by_id[i].content for i in window)
    return out


def shared_relevance(
    query: str,
    facts: Sequence[FactView],
    messages: Sequence[MessageView],
    who: frozenset[str] = frozenset(),
    tuning: RecallTuning = RecallTuning(),
    period: Period | None = None,
    texts: Mapping[str, str] | None = None,
) -> dict[str, float]:
    """One relevance for the related facts and the recalled messages (each list best first, as ranked on its own), so
    the tokens they share go to whichever the question points to, a fact or the turn itself: BM25 of the question's
    words over facts and messages together (one index, so a fact and a message holding the same words score alike),
    fused by reciprocal rank with each list's own order (the facts': words, vectors, the time named; the messages':
    the recalled search, then the neighbours and source turns that came with the matches). Names of members (`who`)
    break ties only when the question holds other words (`lexical_scores`). When the question names a `period`, what was
    said or became true then ranks first too, fact or message, the best matches first. Keys: fact uuids and message
    ids. With `texts` (message id -> its passage, `passages`), the messages' own order is fused with the order of
    their passages' BM25: a turn ranks by the turns next to it as well, while the one index compares each turn's own
    words with the facts'."""
    keys = [f.uuid for f in facts] + [m.id for m in messages]
    documents = [fact_terms(f, tuning, whole=False) for f in facts] + _terms([m.content for m in messages], tuning)
    scores = _lexical(query, documents, who, tuning)
    ordered = sorted(((key, s) for key, s in zip(keys, scores) if s > (0.0, 0)), key=lambda ks: (-ks[1][0], -ks[1][1]))
    lexical = tied_ranks(ordered)
    own = [[f.uuid for f in facts], [m.id for m in messages]]
    if texts is not None:  # the turns in the order their passages rank, beside the order they came in
        own[1] = fuse(own[1], [own[1], _passage_order(query, messages, texts, who, tuning)], k=tuning.rrf_k)
    timely: list[str] = []
    if period is not None and tuning.time_aware:
        by_key = {f.uuid: fact_time(f) for f in facts} | {m.id: m.created_at for m in messages}
        timely = time_ordered([(key, by_key[key]) for key in sorted(lexical, key=lexical.__getitem__)], period)
    return fused_scores(list(dict.fromkeys(keys)), [lexical, *own, *([timely] if timely else [])], k=tuning.rrf_k)


def _passage_order(
    query: str, messages: Sequence[MessageView], texts: Mapping[str, str], who: frozenset[str], tuning: RecallTuning
) -> list[str]:
    """Message ids best first by the BM25 of their passages' words (`lexical_scores`), ties in the order they came in."""
    scores = lexical_scores(query, [texts.get(m.id, m.content) for m in messages], who, tuning)
    ranked = sorted(range(len(messages)), key=lambda i: (-scores[i][0], i))
    return [messages[i].id for i in ranked]


def passage_turns_order(
    query: str,
    matches: Sequence[MessageView],
    around: Mapping[str, Sequence[tuple[int, MessageView]]],
    who: frozenset[str] = frozenset(),
    tuning: RecallTuning = RecallTuning(),
) -> list[tuple[MessageView, str]]:
    """The turns of the matches' passages in the order a reply spends its recalled tokens on them, each once, with
    its match's id: as a chunk retriever ranks chunks. Each match's passage is read at every width, the match alone
    and then one more turn each side at a time (`around`: match id -> (signed distance, turn), nearest first), and
    every width of every passage is scored by BM25 over them all (`lexical_scores`, one index): a wider passage
    scores more only when its new turns hold the question's words, and its length counts against it otherwise, so
    a strong match's passage extends while it still outranks the next match's, and a weak one's not at all.
    The passages are taken best first, each bringing the turns it adds (the match first, then the turns after it,
    then before it), a width with the narrower ones it holds."""
    widths: list[tuple[int, int, MessageView, list[MessageView]]] = []  # (match rank, width, match, turns added)
    for rank, match in enumerate(matches):
        turns = list(around.get(match.id, ()))
        widths.append((rank, 0, match, [match]))
        for width in range(1, max((abs(d) for d, _ in turns), default=0) + 1):
            added = sorted(
                (m for d, m in turns if abs(d) == width), key=lambda m: (m.created_at < match.created_at, m.created_at)
            )
            widths.append((rank, width, match, added))
    # each width's text is its turns' joined by a space, whose terms are the turns' in turn (`document_terms`): made
    # from each turn's, which the next width and the next reply read again, not from a text made once
    documents: list[Terms] = []
    for _, width, match, _ in widths:
        held = [match, *(m for d, m in around.get(match.id, ()) if abs(d) <= width)]
        parts = [_own_terms(m.content, tuning) for m in sorted(held, key=lambda m: (m.created_at, m.id))]
        documents.append(tuple(t for terms in parts for t in terms) or ("\0",))
    scores = _lexical(query, documents, who, tuning)
    order = sorted(range(len(widths)), key=lambda i: (-scores[i][0], -scores[i][1], widths[i][0], widths[i][1]))
    out: list[tuple[MessageView, str]] = []
    seen: set[str] = set()
    at = {(rank, width): i for i, (rank, width, _, _) in enumerate(widths)}
    reached = {rank: -1 for rank, _, _, _ in widths}
    for i in order:
        rank, width, match, _ = widths[i]
        # a wide passage that outranks brings its narrower widths with it, nearest turns first
        for step in range(reached[rank] + 1, width + 1):
            for m in widths[at[(rank, step)]][3]:
                if m.id not in seen:
                    seen.add(m.id)
                    out.append((m, match.id))
        reached[rank] = max(reached[rank], width)
    return out
