"""Scripted extraction answers, and what tests need around them: a clock, the prompt of a recorded
request parsed back into its refs, a responder that answers each request from its own prompt, a
guild driven through the live window buffer, and raw reads of the graph.

The answers are what a good model would reply to one prompt, written with that prompt's refs
(U1.., m1.., F1.., K1.., new entities E1..). Every builder validates against the real response model,
so a typo in a test fails here rather than as a confusing re-ask:

    answer("Alice is moving to Austin.",
           entities=[entity("E1", "Austin", "place")],
           facts=[fact("Alice is moving to Austin", about=["U2"], reported_by=["U2"], source=["m2", "m3"],
                       mentions=["E1"], valid_at="2024-07-03")])
"""

from __future__ import annotations

import enum
import itertools
from collections import deque
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import Any

from pydantic import BaseModel

from common.settings import ExtractionSettings, LLMSettings, WindowSettings
from graph.models import Channel, Guild, Message, User
from graph.privacy.guards.consent import Consent
from graph.rows import as_datetime
from graph.store import GraphStore
from graph.writes.discord_records import upsert_channel, upsert_guild
from ingest.extraction.window_prompt import ExtractedEntity, ExtractedFact, Extraction
from ingest.ingestor import Ingestor
from ingest.live import LiveWindows
from llm.client import OpenAILLM, StructuredLLM
from llm.meter import UsageMeter
from tests.support.prompt_reader import Prompt, batch_parts
from tests.support.scripted_llm import Fault, Reply, ScriptedLLMServer


def fact(
    text: str,
    *,
    about: Sequence[str],
    reported_by: Sequence[str] = (),
    source: Sequence[str] = (),
    mentions: Sequence[str] = (),
    valid_at: str = "",
    category: str = "other",
    importance: int = 5,
    confidence: float = 0.9,
    expiry: str = "permanent",
    supersedes: Sequence[str] = (),
    corroborates: str | None = None,
) -> dict[str, Any]:
    """One fact of an answer, as the JSON a model sends."""
    value = {
        "text": text, "about": list(about), "mentions": list(mentions), "reported_by": list(reported_by),
        "source_messages": list(source), "category": category, "importance": importance,
        "confidence": confidence, "valid_at": valid_at, "expiry": expiry, "supersedes": list(supersedes),
        "corroborates": corroborates,
    }  # fmt: skip
    ExtractedFact.model_validate(value)
    return value


def entity(
    ref: str,
    name: str,
    kind: str = "other",
    *,
    owner: str | None = None,
    relation: str | None = None,
    aliases: Sequence[str] = (),
) -> dict[str, Any]:
    """One new (E) or known (K) entity of an answer."""
    value = {"ref": ref, "name": name, "kind": kind, "aliases": list(aliases), "owner": owner, "relation": relation}
    ExtractedEntity.model_validate(value)
    return value


def answer(summary: str, *, facts: Sequence[dict[str, Any]] = (), entities: Sequence[dict[str, Any]] = ()) -> dict[str, Any]:
    """A whole extraction answer (push it to a ScriptedLLMServer)."""
    value = {"summary": summary, "entities": list(entities), "facts": list(facts)}
    Extraction.model_validate(value)
    return value


def batch_aware(per_window: Callable[[dict[str, Any]], Reply]) -> Callable[[dict[str, Any]], Reply]:
    """A responder that answers a batch request (`### W1`, `### W2`... sections) the way a model does:
    one entry per window section, each the answer `per_window` gives that window's prompt alone. A
    single-window request gets `per_window`'s answer as it is; a window answered with a fault (not an
    answer) fails the whole call, as one broken reply does."""

    def respond(request: dict[str, Any]) -> Reply:
        parts = batch_parts(request)
        if not parts:
            return per_window(request)
        windows = []
        for head, part in parts:
            reply = per_window(part)
            if isinstance(reply, BaseModel):
                reply = reply.model_dump(mode="json")
            if not isinstance(reply, dict):
                return reply
            windows.append({"window": head, **reply})
        return {"windows": windows}

    return respond


def llm_settings(base_url: str, **overrides: object) -> LLMSettings:
    """A client for the scripted server: short timeout, two attempts per request."""
    values: dict[str, object] = dict(
        base_url=base_url, api_key="test-key", model="extract-model", timeout=2.0, max_attempts=2, reply_model=None
    )
    return LLMSettings(**(values | overrides))


# --- a clock the test moves ----------------------------------------------------------------------
@dataclass
class Clock:
    now: datetime

    def __call__(self) -> datetime:
        return self.now

    def set(self, at: datetime) -> datetime:
        self.now = at
        return at

    def advance(self, seconds: float) -> datetime:
        self.now += timedelta(seconds=seconds)
        return self.now


# --- the prompt of a recorded request --------------------------------------------------------------
Step = Callable[[Prompt], Reply] | Reply


class Script:
    """The server's responder: answers extraction requests in order, each step given the parsed
    prompt of the request it answers (so it can use that prompt's refs). Faults pushed on the
    server go first; a request with no step left gets a 400, which the client does not retry."""

    def __init__(self, srv: ScriptedLLMServer) -> None:
        self.srv = srv
        self.steps: deque[Step] = deque()
        self.prompts: list[Prompt] = []  # every request the responder answered, in order
        srv.responder = self

    def then(self, *steps: Step) -> Script:
        self.steps.extend(steps)
        return self

    def __call__(self, request: dict[str, Any]) -> Reply:
        prompt = Prompt(request)
        self.prompts.append(prompt)
        if not self.steps:
            return Fault.status(400, "ScriptedLLMServer: unscripted extraction request")
        step = self.steps.popleft()
        return step(prompt) if callable(step) else step


# --- raw reads of the graph ----------------------------------------------------------------------
async def cypher(store: GraphStore, text: str, /, **params: Any) -> list[dict[str, Any]]:
    """Rows of an ad-hoc read query on the test's database."""

    async def work(tx: Any) -> list[dict[str, Any]]:
        result = await tx.run(text, params)
        return [record.data() async for record in result]

    return await store.runner.read_tx(work)


_FACTS = """
MATCH (f:Fact)
WHERE f.guild_id = $guild_id
CALL (f) {
  RETURN COLLECT { MATCH (f)-[:ABOUT]->(s) RETURN coalesce('user:' + s.id, 'entity:' + s.name) } AS about,
         COLLECT { MATCH (f)-[:MENTIONS]->(s) RETURN coalesce('user:' + s.id, 'entity:' + s.name) } AS mentions,
         COLLECT { MATCH (f)-[:REPORTED_BY]->(u:User) RETURN u.id } AS reporters,
         COLLECT { MATCH (f)-[:FROM]->(m:Message) RETURN m.id } AS sources,
         COLLECT { MATCH (f)-[:SUPERSEDES]->(o:Fact) RETURN o.uuid } AS supersedes,
         COLLECT { MATCH (f)-[:EXTRACTED_FROM]->(e:Episode) RETURN e.key } AS episodes
}
RETURN f.uuid AS uuid, f.text AS text, f.category AS category, f.importance AS importance,
       f.valid_at AS valid_at, f.invalid_at AS invalid_at, f.expired_at AS expired_at,
       f.expires_at AS expires_at, about, mentions, reporters, sources, supersedes, episodes
ORDER BY f.text
"""


@dataclass(frozen=True)
class GraphFact:
    uuid: str
    text: str
    category: str
    importance: int
    valid_at: datetime | None
    invalid_at: datetime | None
    expired_at: datetime | None
    expires_at: datetime | None
    about: frozenset[str]  # "user:<discord id>" or "entity:<name>"
    mentions: frozenset[str]
    reporters: frozenset[str]  # discord ids
    sources: frozenset[str]  # message ids
    supersedes: frozenset[str]  # fact uuids
    episodes: frozenset[str]


async def graph_facts(store: GraphStore, guild_id: str) -> list[GraphFact]:
    """Every Fact node of a guild (history included), with its edges, ordered by text."""
    found = []
    for row in await cypher(store, _FACTS, guild_id=guild_id):
        found.append(GraphFact(
            uuid=row["uuid"], text=row["text"], category=row["category"], importance=row["importance"],
            valid_at=as_datetime(row["valid_at"]), invalid_at=as_datetime(row["invalid_at"]), expired_at=as_datetime(row["expired_at"]),
            expires_at=as_datetime(row["expires_at"]), about=frozenset(row["about"]), mentions=frozenset(row["mentions"]),
            reporters=frozenset(row["reporters"]), sources=frozenset(row["sources"]),
            supersedes=frozenset(row["supersedes"]), episodes=frozenset(row["episodes"]),
        ))  # fmt: skip
    return found


async def relations(store: GraphStore, guild_id: str) -> set[tuple[str, str, str, str]]:
    """RELATED_TO edges of a guild's entities: (entity name, entity kind, relation kind, "user:<id>"/"entity:<name>")."""
    rows = await cypher(store, """
        MATCH (e:Entity)-[r:RELATED_TO]->(t)
        WHERE e.guild_id = $guild_id
        RETURN e.name AS name, e.kind AS kind, r.kind AS relation, coalesce('user:' + t.id, 'entity:' + t.name) AS target
    """, guild_id=guild_id)  # fmt: skip
    return {(r["name"], r["kind"], r["relation"], r["target"]) for r in rows}


async def entity_names(store: GraphStore, guild_id: str) -> set[str]:
    rows = await cypher(store, "MATCH (e:Entity) WHERE e.guild_id = $guild_id RETURN e.name AS name", guild_id=guild_id)
    return {r["name"] for r in rows}


async def count(store: GraphStore, text: str, /, **params: Any) -> int:
    """A query that returns one row with `n`."""
    rows = await cypher(store, text, **params)
    return int(rows[0]["n"]) if rows else 0


# --- a guild the bot watches -----------------------------------------------------------------------
T0 = datetime(2024, 5, 3, 18, 0, tzinfo=UTC)
GUILD = "100000000000000001"
GENERAL, RANDOM = "110000000000000001", "110000000000000002"


def person(name: str, number: int) -> User:
    return User(id=f"3000000000000000{number:02d}", name=name.lower(), display_name=name)


ALICE, BOB, CHARLIE, DAVE = person("Alice", 1), person("Bob", 2), person("Charlie", 3), person("Dave", 4)
EVE, FRANK, MALLORY, OSCAR = person("Eve", 5), person("Frank", 6), person("Mallory", 7), person("Oscar", 8)

WINDOWS = dict(quiet_seconds=180.0, max_messages=30, max_age_seconds=1800.0, buffer_max_messages=2000, context_messages=10)


def openai_llm(srv: ScriptedLLMServer, *, max_attempts: int = 3, timeout: float = 5.0) -> OpenAILLM:
    """The real client against the scripted server, with retries that wait milliseconds."""
    settings = LLMSettings(
        base_url=srv.base_url,
        api_key="test-key",
        model="extract-model",
        timeout=timeout,
        max_attempts=max_attempts,
        reply_model=None,
    )
    return OpenAILLM(settings, UsageMeter(), min_wait=0.001, max_wait=0.01)


_IDS = itertools.count(1)


class _Keep(enum.Enum):
    """`restart`'s default: the LLM client stays as it is."""

    LLM = 0


@dataclass
class Room:
    """One guild (channels #general and #random) as the bot sees it: messages go through
    `LiveWindows.on_message` on a clock the test moves, windows close on `tick()`, and the real
    `Ingestor` extracts them. `restart()` builds a new LiveWindows on the same store, as after a crash."""

    store: GraphStore
    llm: StructuredLLM | None
    clock: Clock = field(default_factory=lambda: Clock(T0))
    windows: WindowSettings = field(default_factory=WindowSettings)
    extraction: ExtractionSettings = field(
        default_factory=lambda: ExtractionSettings(batch_messages=1)
    )  # each window as it closes
    rng: Callable[[], float] = lambda: 0.0
    consent: Consent = field(init=False)
    ingestor: Ingestor = field(init=False)
    live: LiveWindows = field(init=False)

    def __post_init__(self) -> None:
        self.consent = Consent(self.store)
        consent = self.consent
        self.ingestor = Ingestor(
            self.store, self.llm, self.extraction, self.windows, rng=self.rng, hidden=lambda uid: not consent.allowed(uid)
        )
        self.live = LiveWindows(self.store, self.ingestor, self.consent, self.windows, clock=self.clock)

    async def open(self) -> Room:
        await upsert_guild(self.store, Guild(id=GUILD, name="Test Guild"))
        await upsert_channel(self.store, Channel(id=GENERAL, guild_id=GUILD, name="general"))
        await upsert_channel(self.store, Channel(id=RANDOM, guild_id=GUILD, name="random"))
        await self.consent.load()
        await self.live.start()
        return self

    async def restart(self, *, llm: StructuredLLM | None | _Keep = _Keep.LLM) -> int:
        """A new process: new consent, ingestor and live windows on the same store (the old ones are
        dropped as they are, never stopped). Returns how many buffered messages were restored."""
        if not isinstance(llm, _Keep):
            self.llm = llm
        if self.live._loop is not None:  # the old process is gone: its timer dies with it
            self.live._loop.cancel()
        self.__post_init__()
        await self.consent.load()
        return await self.live.start()

    async def say(
        self, who: User, text: str, *, after: float = 20.0, channel: str = GENERAL, reply_to: Message | None = None
    ) -> Message:
        """`who` posts `text` `after` seconds after the clock's current time."""
        at = self.clock.advance(after)
        message = Message(id=f"7{next(_IDS):017d}", guild_id=GUILD, channel_id=channel, author_id=who.id,
                          content=text, created_at=at, reply_to_id=reply_to.id if reply_to else None)  # fmt: skip
        await self.live.on_message(message, who)
        return message

    async def close(self) -> None:
        """Let the quiet time pass, close what is due, wait for every extraction to finish."""
        self.clock.advance(self.windows.quiet_seconds + 1)
        await self.live.tick()
        await self.live.drain()

    async def stop(self) -> None:
        await self.live.stop()
