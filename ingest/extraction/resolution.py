"""Deterministic code after the extraction call: `resolve` turns an `Extraction` into an `EpisodeWrite`.

The model is trusted for wording and judgement only: every ref is looked up in the prompt's
`RefTable`, a fact's reporter is the author of the window messages it cites, known facts are named
only by the F refs shown, and the caps hold whatever it answered. What is set aside is listed in
`Resolution.dropped` by ref and reason, never with chat text, so the list can be logged as it is.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from uuid import NAMESPACE_URL, uuid4, uuid5

from common.text import name_key, names_word
from graph.models import (
    Corroboration,
    EntityView,
    EntityWrite,
    EpisodeWrite,
    FactView,
    FactWrite,
    NodeRef,
    RelationWrite,
    Report,
    fact_key,
)
from ingest.extraction.window_prompt import (
    SYSTEM,
    ExtractedEntity,
    ExtractedFact,
    Extraction,
    PromptInput,
    RefTable,
    flat,
)
from ingest.windows import WindowMessage

_DAYS = {"day": 1, "3days": 3, "week": 7, "month": 30}
EXPIRY: dict[str, timedelta | None] = {k: timedelta(days=v) for k, v in _DAYS.items()} | {"permanent": None}
MAX_FACT_CHARS, MAX_SUMMARY_CHARS, MAX_NAME_CHARS, MAX_ALIASES = 500, 1000, 200, 10
_RAW_ID = re.compile(r"\b\d{15,25}\b")  # a Discord snowflake

EntityMatcher = Callable[[str, list[EntityView]], EntityView | None]


@dataclass
class Resolution:
    write: EpisodeWrite
    dropped: list[str] = field(default_factory=list)  # "fact 3: ..." reasons, refs only, no chat text
    unusable: bool = False  # the answer had facts and none survived, some for refs that resolve to nothing


def _uuid() -> str:
    return uuid4().hex


def parse_when(value: str) -> datetime | None:
    """An ISO date (midnight UTC), year-month, or datetime (naive read as UTC); None if neither."""
    value = value.strip()
    if m := re.fullmatch(r"(\d{4})-(\d{2})", value):
        value = f"{m[1]}-{m[2]}-01"
    try:
        when = datetime.fromisoformat(value)
    except ValueError:
        return None
    return when.replace(tzinfo=UTC) if when.tzinfo is None else when.astimezone(UTC)


def _canon(ref: str) -> str:
    """U1/E2/K3/F4 upper-case, m5/c6 lower-case; anything else cut short (it only shows in reasons)."""
    ref = ref.strip()[:24]
    if m := re.fullmatch(r"([uekfUEKF])(\d+)", ref):
        return m[1].upper() + m[2]
    return ref.lower() if re.fullmatch(r"[mcMC]\d+", ref) else ref


def _compatible(a: str, b: str) -> bool:
    return a == b or "other" in (a, b)


@dataclass
class _Draft:
    index: int  # 1-based position in the answer: for reasons, and "earliest" when capping
    key: tuple[str, frozenset[str]]  # normalised text and subjects' ids: what makes two facts one (fact_key)
    fact: FactWrite  # uuid "" until it survives merging and the caps


class _Resolver:
    def __init__(self, refs: RefTable, inp: PromptInput, new_uuid: Callable[[], str], matcher: EntityMatcher | None) -> None:
        self.refs, self.inp, self.new_uuid, self.matcher = refs, inp, new_uuid, matcher
        self.dropped: list[str] = []
        self.entity_ids: dict[str, str] = {}  # E or K ref -> uuid
        self.new_entities: list[EntityWrite] = []
        self.new_keys: dict[str, EntityWrite] = {}  # normalised name or alias -> entity new in this answer
        self.relations: list[RelationWrite] = []
        self.corroborations: list[Corroboration] = []
        self.authors = {wm.author.id: wm for wm in inp.window.messages}  # author id -> last message
        self.unresolved = 0  # refs that name nothing shown to the model

    def drop(self, reason: str) -> None:
        self.dropped.append(reason)

    # -- entities ------------------------------------------------------------------------------
    def entities(self, declared: list[ExtractedEntity]) -> None:
        accepted: list[tuple[str, ExtractedEntity]] = []
        for ent in declared:
            ref = _canon(ent.ref)
            if ref in self.refs.entities:
                self.entity_ids[ref] = self.refs.entities[ref].uuid
            elif not re.fullmatch(r"E\d+", ref):
                self.drop(f"entity {ref!r}: neither a new (E) nor a known (K) entity ref")
                continue
            elif ref in self.entity_ids:
                self.drop(f"entity {ref}: declared twice; the first kept")
                continue
            elif not (uuid := self._new_entity(ref, ent)):
                continue
            else:
                self.entity_ids[ref] = uuid
            accepted.append((ref, ent))
        for ref, ent in accepted:
            self._relation(ref, ent)

    def _new_entity(self, ref: str, ent: ExtractedEntity) -> str | None:
        name = flat(ent.name, MAX_NAME_CHARS)
        if not name_key(name):
            self.drop(f"entity {ref}: empty name")
            return None
        aliases = list(dict.fromkeys(a for a in (flat(x, MAX_NAME_CHARS) for x in ent.aliases) if name_key(a)))
        aliases = [a for a in aliases if name_key(a) != name_key(name)][:MAX_ALIASES]
        keys = {name_key(n) for n in (name, *aliases)}
        if known := self._match_known(name, aliases, ent.kind):
            self.drop(f"entity {ref}: same as known entity {self.refs.entity_ref(known.uuid) or known.uuid}; reused")
            return known.uuid
        for key in keys:
            twin = self.new_keys.get(key)
            if twin is not None and _compatible(twin.kind, ent.kind):
                self.drop(f"entity {ref}: same as an entity declared before it in this answer; merged")
                return twin.uuid
        write = EntityWrite(uuid=self.new_uuid(), name=name, kind=ent.kind, aliases=tuple(aliases))
        self.new_entities.append(write)
        self.new_keys.update(dict.fromkeys(keys, write))
        return write.uuid

    def _match_known(self, name: str, aliases: list[str], kind: str) -> EntityView | None:
        pool = [e for e in self.inp.known_entities if _compatible(e.kind, kind)]
        if self.matcher is not None:
            uuids = {e.uuid for e in pool}
            for candidate in (name, *aliases):
                hit = self.matcher(candidate, pool)
                if hit is not None and hit.uuid in uuids:
                    return hit
            return None
        keys = {name_key(n) for n in (name, *aliases)}
        return next((e for e in pool if keys & {name_key(n) for n in (e.name, *e.aliases)}), None)

    def _relation(self, ref: str, ent: ExtractedEntity) -> None:
        kind = flat(ent.relation or "", 60).casefold()
        if not ent.owner or not kind:
            if ent.owner or kind:
                self.drop(f"entity {ref}: owner and relation must come together; no relation written")
            return
        target = self.node(ent.owner, f"entity {ref} owner")
        uuid = self.entity_ids[ref]
        if target is None or target == NodeRef(kind="entity", id=uuid):
            return
        relation = RelationWrite(entity_uuid=uuid, kind=kind, target=target)
        if relation not in self.relations:
            self.relations.append(relation)

    def node(self, ref: str, what: str, *, bots: bool = False) -> NodeRef | None:
        ref = _canon(ref)
        if (user := self.refs.users.get(ref)) is not None:
            if user.is_bot and not bots:
                self.drop(f"{what}: {ref} is a bot; nothing is kept about bots")
                return None
            return NodeRef(kind="user", id=user.id)
        if ref in self.entity_ids:
            return NodeRef(kind="entity", id=self.entity_ids[ref])
        if ref in self.refs.entities:
            return NodeRef(kind="entity", id=self.refs.entities[ref].uuid)
        self.unresolved += 1
        self.drop(f"{what}: unknown ref {ref!r}")
        return None

    # -- facts ---------------------------------------------------------------------------------
    def fact(self, index: int, fact: ExtractedFact) -> _Draft | None:
        label = f"fact {index}"
        text = flat(fact.text, MAX_FACT_CHARS)
        if not text:
            self.drop(f"{label}: empty text")
            return None
        about = list(dict.fromkeys(n for r in fact.about if (n := self.node(r, f"{label} about"))))
        if not about:
            self.drop(f"{label}: dropped, nobody valid left in `about`")
            return None
        mentions = [n for r in fact.mentions if (n := self.node(r, f"{label} mention", bots=True))]
        mentions = [n for n in dict.fromkeys(mentions) if n not in about]
        cited = self._sources(label, fact.source_messages)
        if not cited and any(_canon(r) in self.refs.context for r in fact.source_messages):
            self.drop(f"{label}: dropped, it comes from earlier (already processed) messages only")
            return None
        reports = self._reports(label, fact, cited)
        if not reports:
            self.drop(f"{label}: dropped, no reporter among the window's (human) authors")
            return None
        said_at = cited[0].message.created_at if cited else min(r.at for r in reports.values())
        valid_at = parse_when(fact.valid_at) or said_at
        delta = EXPIRY[fact.expiry]
        about_ids = {n.id for n in about}
        write = FactWrite(
            uuid="", text=text, category=fact.category, importance=max(1, min(10, int(fact.importance))),
            confidence=max(0.0, min(1.0, fact.confidence)) if math.isfinite(fact.confidence) else 0.5,
            valid_at=valid_at, expires_at=None if delta is None else max(valid_at, said_at) + delta,
            about=tuple(about), mentions=tuple(mentions), reports=tuple(reports.values()),
            source_message_ids=tuple(wm.message.id for wm in cited),
            supersedes=tuple(self._supersedes(label, fact.supersedes, about_ids)),
        )  # fmt: skip
        draft = _Draft(index, fact_key(text, (n.id for n in about)), write)
        known = self._corroborated(label, fact.corroborates, draft, about_ids)
        if known is None:
            return draft
        if write.supersedes:
            self.drop(f"{label}: restates a known fact, so its `supersedes` is ignored")
        self._corroborate(label, known, write.reports)
        return None

    def _sources(self, label: str, cited: list[str]) -> list[WindowMessage]:
        found: dict[str, WindowMessage] = {}
        for raw in cited:
            ref = _canon(raw)
            if ref in self.refs.messages:
                found.setdefault(ref, self.refs.messages[ref])
            elif ref in self.refs.context:
                self.drop(f"{label}: source {ref} is an earlier message (context only), not citable")
            else:
                self.unresolved += 1
                self.drop(f"{label}: unknown source message {ref!r}")
        return sorted(found.values(), key=lambda wm: wm.message.created_at)

    def _reports(self, label: str, fact: ExtractedFact, cited: list[WindowMessage]) -> dict[str, Report]:
        reports: dict[str, Report] = {}
        for wm in cited:
            if not wm.author.is_bot:
                reports.setdefault(wm.author.id, Report(user_id=wm.author.id, message_id=wm.message.id,
                                                        at=wm.message.created_at))  # fmt: skip
        claimed = {_canon(r) for r in fact.reported_by}
        if fact.source_messages and not cited:
            self.drop(f"{label}: cites no message of the window, so no reporter can be trusted")
            return {}
        if reports:
            if claimed and claimed != {self.refs.user_ref(uid) for uid in reports}:
                self.drop(f"{label}: reported_by {sorted(claimed)} ignored; reporters are the cited messages' authors")
            return reports
        for ref in sorted(claimed):
            user = self.refs.users.get(ref)
            if user is None or user.is_bot or user.id not in self.authors:
                self.drop(f"{label}: reporter {ref!r} is not a human author of the window")
                continue
            reports[user.id] = Report(user_id=user.id, message_id=None, at=self.authors[user.id].message.created_at)
        return reports

    def _supersedes(self, label: str, refs: list[str], about_ids: set[str]) -> list[str]:
        uuids: list[str] = []
        for raw in refs:
            known = self.refs.facts.get(_canon(raw))
            if known is None:
                self.drop(f"{label}: supersedes {_canon(raw)!r}, not a known fact shown to it")
            elif known.about_ids and not about_ids & set(known.about_ids):
                self.drop(f"{label}: supersedes {_canon(raw)}, a fact about someone else; ignored")
            elif known.uuid not in uuids:
                uuids.append(known.uuid)
        return uuids

    def _corroborated(self, label: str, ref: str | None, draft: _Draft, about_ids: set[str]) -> FactView | None:
        if ref:
            known = self.refs.facts.get(_canon(ref))
            if known is None:
                self.drop(f"{label}: corroborates {_canon(ref)!r}, not a known fact shown to it; kept as new")
            elif known.about_ids and not about_ids & set(known.about_ids):
                self.drop(f"{label}: corroborates {_canon(ref)}, a fact about someone else; kept as new")
            else:
                return known
        return next((k for k in self.refs.facts.values() if fact_key(k.text, k.about_ids) == draft.key), None)

    def _corroborate(self, label: str, known: FactView, reports: tuple[Report, ...]) -> None:
        earlier = {uid for uid, _name, _at in known.reporters}
        for report in reports:
            done = {(c.fact_uuid, c.report.user_id) for c in self.corroborations}
            if report.user_id in earlier or (known.uuid, report.user_id) in done:
                self.drop(f"{label}: {self.refs.user_ref(report.user_id)} already reported this known fact")
            else:
                self.corroborations.append(Corroboration(fact_uuid=known.uuid, report=report))

    def used(self, facts: list[FactWrite]) -> tuple[list[EntityWrite], list[RelationWrite]]:
        """New entities that a kept fact is about or mentions (and what they relate to), and the relations
        of entities that are kept or already known: an entity no fact uses is not written."""
        wanted = {n.id for f in facts for n in (*f.about, *f.mentions) if n.kind == "entity"}
        wanted |= {r.target.id for r in self.relations if r.entity_uuid in wanted and r.target.kind == "entity"}
        new = {e.uuid for e in self.new_entities}
        entities = [e for e in self.new_entities if e.uuid in wanted]
        for e in self.new_entities:
            if e.uuid not in wanted:
                self.drop(f"entity {self._ref_of(e.uuid)}: no kept fact uses it; not written")
        relations = [r for r in self.relations if r.entity_uuid not in new or r.entity_uuid in wanted]
        relations = [r for r in relations if r.target.kind != "entity" or r.target.id not in new or r.target.id in wanted]
        return entities, relations

    def _ref_of(self, uuid: str) -> str:
        return next((ref for ref, u in self.entity_ids.items() if u == uuid), "?")

    # -- merging and caps ----------------------------------------------------------------------
    def merge(self, drafts: list[_Draft]) -> list[_Draft]:
        by_key: dict[tuple[str, frozenset[str]], _Draft] = {}
        for d in drafts:
            first = by_key.setdefault(d.key, d)
            if first is d:
                continue
            self.drop(f"fact {d.index}: same as fact {first.index}; merged")
            a, b = first.fact, d.fact
            earliest = {r.user_id: r for r in sorted(a.reports + b.reports, key=lambda r: r.at, reverse=True)}
            first.fact = a.model_copy(update={
                "reports": tuple(sorted(earliest.values(), key=lambda r: r.at)),
                "source_message_ids": tuple(dict.fromkeys(a.source_message_ids + b.source_message_ids)),
                "mentions": tuple(dict.fromkeys(a.mentions + b.mentions)),
                "supersedes": tuple(dict.fromkeys(a.supersedes + b.supersedes)),
                "importance": max(a.importance, b.importance), "confidence": max(a.confidence, b.confidence),
            })  # fmt: skip
        return list(by_key.values())

    def cap(self, drafts: list[_Draft]) -> list[FactWrite]:
        per_person, per_window = self.inp.max_facts_per_person, self.inp.max_facts_per_window
        kept: list[_Draft] = []
        counts: Counter[NodeRef] = Counter()
        for d in sorted(drafts, key=lambda d: (-d.fact.importance, d.index)):
            if len(kept) >= per_window:
                self.drop(f"fact {d.index}: over the cap of {per_window} facts per window")
            elif any(counts[n] >= per_person for n in d.fact.about):
                self.drop(f"fact {d.index}: over the cap of {per_person} facts per person")
            else:
                kept.append(d)
                counts.update(d.fact.about)
        return [d.fact.model_copy(update={"uuid": self.new_uuid()}) for d in sorted(kept, key=lambda d: d.index)]


def checked_summary(summary: str, inp: PromptInput) -> tuple[str, str | None]:
    """The summary to store, or "" with why not: empty, copied from the instructions, carrying a raw
    Discord id (copied from the participants), or naming none of the window's authors."""
    text = " ".join(summary.split())[:MAX_SUMMARY_CHARS]
    if not text:
        return "", "empty"
    folded = text.casefold()
    if len(folded) >= 12 and folded.rstrip(".") in " ".join(SYSTEM.split()).casefold():
        return "", "copied from the instructions"
    if _RAW_ID.search(text):
        return "", "carries a raw Discord id"
    authors = {wm.author.id: wm.author for wm in inp.window.messages}.values()
    names = [n for u in authors for n in (u.display_name, u.name) if n]
    if names and not names_word(text, names):
        return "", "names none of the window's authors"
    return text, None


def resolve(
    extraction: Extraction,
    refs: RefTable,
    inp: PromptInput,
    *,
    episode_key: str,
    now: datetime,
    new_uuid: Callable[[], str] = _uuid,
    entity_matcher: EntityMatcher | None = None,
) -> Resolution:
    """The store write for one window's answer, and what was set aside (by ref, with a reason).

    Every date comes from the window's messages, so no current rule reads `now`; it is in the
    signature for rules that will (the caller always has it). `entity_matcher(name, known)` replaces
    the normalised name/alias match of new entities against the guild's known ones.
    """
    r = _Resolver(refs, inp, new_uuid, entity_matcher)
    r.entities(extraction.entities)
    drafts = [d for i, f in enumerate(extraction.facts, 1) if (d := r.fact(i, f)) is not None]
    facts = r.cap(r.merge(drafts))
    summary, problem = checked_summary(extraction.summary, inp)
    if problem:
        r.drop(f"summary: {problem}")
    entities, relations = r.used(facts)
    write = EpisodeWrite(
        key=episode_key, guild_id=inp.window.guild_id, summary=summary,
        entities=tuple(entities), relations=tuple(relations), facts=tuple(facts),
        corroborations=tuple(r.corroborations),
    )  # fmt: skip
    unusable = bool(extraction.facts) and not facts and not r.corroborations and r.unresolved > 0
    return Resolution(write=write, dropped=r.dropped, unusable=unusable)


def keyed_uuids(seed: str) -> Callable[[], str]:
    """Ids derived from `seed` (an episode key) in order, so a replayed answer writes the same nodes again."""
    counter = iter(range(1_000_000))
    return lambda: uuid5(NAMESPACE_URL, f"{seed}#{next(counter)}").hex
