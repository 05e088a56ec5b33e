"""bench.scale's generated guild: 100*s users, 1,000*s entities, 10,000*s facts and 10 messages per user at scale s,
with names, episodes, relations and supersessions drawn from one seed; and its load through the bench-only Cypher
files (bench/queries/), in UNWIND batches."""

from __future__ import annotations

import itertools
import random
import time
import uuid
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import Any

from bench.queries import bench_write
from common.text import name_key
from graph.models import iso
from graph.store import GraphStore

GUILD = "900000000000000001"
NOW = datetime(2026, 6, 1, 12, 0, tzinfo=UTC)
BATCH = 5000
EPISODE_MESSAGES = 25
_ONSETS = "b c d f g h j k l m n p r s t v z br dr gr kr pl st tr sh ch th".split()
_VOWELS = "a e i o u ai ea io ou".split()
_CODAS = ["", "", "n", "r", "l", "s", "th", "x", "m"]
WORDS = (
    "game weekend movie dinner trip plan music book work class match build raid server update patch stream "
    "coffee concert beach hike garden recipe guitar drawing code project deadline exam party"
).split()
KINDS = {  # entity kind -> fact templates ({s} subject, {e} entity)
    "place": ["{s} lives in {e}", "{s} is moving to {e}", "{s} visited {e} last summer", "{s} grew up in {e}"],
    "organization": ["{s} works at {e}", "{s} studies at {e}", "{s} volunteers at {e}", "{s} left {e}"],
    "pet": ["{s} has a cat named {e}", "{s} adopted a dog called {e}", "{s} walks {e} every morning"],
    "work": ["{s} is reading {e}", "{s} loves the series {e}", "{s} finished {e}", "{s} recommends {e}"],
    "object": ["{s} bought a {e}", "{s} is selling their {e}", "{s} repaired the {e}"],
    "event": ["{s} is going to {e}", "{s} organised {e}", "{s} missed {e}"],
}
PLAIN = [
    "{s} prefers tea over coffee",
    "{s} is learning Spanish",
    "{s} runs every weekend",
    "{s} is vegetarian",
    "{s} plays the piano",
    "{s} has two sisters",
    "{s} is a night owl",
    "{s} is training for a marathon",
    "{s} dislikes horror movies",
    "{s} collects vinyl records",
]
CATEGORIES = [
    "identity",
    "relationship",
    "location",
    "work",
    "education",
    "preference",
    "plan",
    "event",
    "possession",
    "health",
    "hobby",
    "other",
]


def _name(rng: random.Random, used: set[str]) -> str:
    while True:
        parts = [rng.choice(_ONSETS) + rng.choice(_VOWELS) for _ in range(rng.choice((2, 2, 3)))]
        word = ("".join(parts) + rng.choice(_CODAS)).capitalize()
        if word.casefold() not in used and len(word) >= 4:
            used.add(word.casefold())
            return word


@dataclass
class Guild:
    """A generated guild: rows for the bench Cypher files, and what the measurements pick from."""

    scale: float
    users: list[dict[str, Any]] = field(default_factory=list)
    channels: list[dict[str, Any]] = field(default_factory=list)
    messages: list[dict[str, Any]] = field(default_factory=list)
    episodes: list[dict[str, Any]] = field(default_factory=list)
    entities: list[dict[str, Any]] = field(default_factory=list)
    relations: list[dict[str, Any]] = field(default_factory=list)
    facts: list[dict[str, Any]] = field(default_factory=list)
    about_users: list[dict[str, Any]] = field(default_factory=list)
    about_entities: list[dict[str, Any]] = field(default_factory=list)
    mentions: list[dict[str, Any]] = field(default_factory=list)
    supersessions: list[dict[str, Any]] = field(default_factory=list)
    facts_of_user: dict[str, list[str]] = field(default_factory=dict)  # user id -> uuids of valid facts about them
    forget_id: str = ""

    @property
    def edges(self) -> int:
        return (
            len(self.about_users)
            + len(self.about_entities)
            + len(self.mentions)
            + 3 * len(self.facts)
            + len(self.relations)
            + len(self.supersessions)
            + 2 * len(self.messages)
            + sum(1 for m in self.messages if m["reply_to_id"])
        )


def generate(scale: float, seed: int = 7) -> Guild:  # noqa: C901 - one seeded stream: the order of draws is the guild
    rng = random.Random(seed)
    g = Guild(scale)
    used: set[str] = set()
    n_users, n_entities, n_facts = int(100 * scale), int(1000 * scale), int(10_000 * scale)
    n_channels = max(2, int(2 * scale))
    for i in range(n_users):
        name = _name(rng, used)
        g.users.append({"id": str(700_000_000_000_000_000 + i), "name": name.casefold(), "display_name": name})
    g.channels = [{"id": str(800_000_000_000_000_000 + c), "name": f"channel-{c}"} for c in range(n_channels)]
    for _ in range(n_entities):
        kind = rng.choice(list(KINDS))
        name = _name(rng, used) + (" " + _name(rng, used) if kind in ("organization", "event", "work") else "")
        aliases = [name.split()[0]] if " " in name else []
        g.entities.append(
            {
                "uuid": uuid.UUID(int=rng.getrandbits(128)).hex,
                "name": name,
                "name_key": name_key(name),
                "kind": kind,
                "aliases": aliases,
                "alias_text": " ".join(aliases),
            }
        )
    for e in g.entities:
        if e["kind"] in ("pet", "object") or rng.random() < 0.1:
            g.relations.append(
                {
                    "entity_uuid": e["uuid"],
                    "user_id": rng.choice(g.users)["id"],
                    "kind": {"pet": "pet", "object": "possession"}.get(e["kind"], "related"),
                }
            )
    # messages: 10 per user on average, every user at least one; channels' timelines over 60 days
    n_messages = 10 * n_users
    authors = [u["id"] for u in g.users] + [rng.choice(g.users)["id"] for _ in range(n_messages - n_users)]
    rng.shuffle(authors)
    start = NOW - timedelta(days=60)
    step = timedelta(days=60) / n_messages
    last_in: dict[str, str] = {}
    by_author: dict[str, list[dict[str, Any]]] = {}
    for i, author in enumerate(authors):
        channel = g.channels[rng.randrange(n_channels)]["id"]
        words = rng.sample(WORDS, 6)
        if rng.random() < 0.2:
            words.insert(2, rng.choice(g.entities)["name"])
        if rng.random() < 0.1:
            words.insert(0, rng.choice(g.users)["display_name"])
        reply = last_in.get(channel) if rng.random() < 0.3 else None
        msg = {
            "id": str(9_000_000_000_000_000_000 + i),
            "channel_id": channel,
            "author_id": author,
            "content": " ".join(words),
            "created_at": iso(start + i * step),
            "reply_to_id": reply,
        }
        g.messages.append(msg)
        by_author.setdefault(author, []).append(msg)
        last_in[channel] = msg["id"]
    per_channel: dict[str, list[dict[str, Any]]] = {}
    for m in g.messages:
        per_channel.setdefault(m["channel_id"], []).append(m)
    episode_of: dict[str, str] = {}
    for channel, msgs in per_channel.items():
        for k in range(0, len(msgs), EPISODE_MESSAGES):
            chunk = msgs[k : k + EPISODE_MESSAGES]
            key = f"{channel}:{chunk[0]['id']}:{chunk[-1]['id']}"
            participants = list(dict.fromkeys(m["author_id"] for m in chunk))
            g.episodes.append(
                {
                    "key": key,
                    "uuid": uuid.UUID(int=rng.getrandbits(128)).hex,
                    "channel_id": channel,
                    "started_at": chunk[0]["created_at"],
                    "ended_at": chunk[-1]["created_at"],
                    "message_ids": [m["id"] for m in chunk],
                    "participant_ids": participants,
                    "summary": f"{len(participants)} members talked about " + ", ".join(rng.sample(WORDS, 3)),
                    "fact_count": 0,
                }
            )
            episode_of.update(dict.fromkeys((m["id"] for m in chunk), key))
    # facts: the forgotten user gets min(1000, 100*s); the rest spread with a long tail
    g.forget_id = g.users[0]["id"]
    forget_facts = min(1000, int(100 * scale))
    weights = [1.0 / (r + 1) ** 0.6 for r in range(n_users)]
    rng.shuffle(weights)
    weights[0] = 0.0
    cum_weights = list(itertools.accumulate(weights))  # given once: `choices` would sum the weights at every call
    others = g.users[1:]
    names = {u["id"]: u["display_name"] for u in g.users}
    for i in range(n_facts):
        fid = uuid.UUID(int=rng.getrandbits(128)).hex
        if i < forget_facts:
            subject = g.forget_id
        elif rng.random() < 0.7:
            subject = rng.choices(g.users, cum_weights=cum_weights)[0]["id"]
        else:
            subject = None
        entity = rng.choice(g.entities)
        if subject is not None:
            if rng.random() < 0.6:
                text = rng.choice(KINDS[entity["kind"]]).format(s=names[subject], e=entity["name"])
                g.mentions.append({"fact_uuid": fid, "target_id": entity["uuid"]})
            else:
                text = rng.choice(PLAIN).format(s=names[subject])
            g.about_users.append({"fact_uuid": fid, "target_id": subject})
            g.facts_of_user.setdefault(subject, []).append(fid)
            reporter = subject if rng.random() < 0.6 or subject == g.forget_id else rng.choice(others)["id"]
        else:
            text = f"{entity['name']} is {rng.choice(['closed on Mondays', 'very popular', 'getting a sequel', 'on sale', 'recommended by many'])}"
            g.about_entities.append({"fact_uuid": fid, "target_id": entity["uuid"]})
            reporter = rng.choice(others)["id"]
        msg = rng.choice(by_author[reporter])
        valid = datetime.fromisoformat(msg["created_at"])
        expires = valid + timedelta(days=rng.choice((7, 30))) if rng.random() < 0.1 else None
        g.facts.append(
            {
                "uuid": fid,
                "text": text,
                "category": rng.choice(CATEGORIES),
                "importance": rng.randint(1, 10),
                "confidence": round(rng.uniform(0.5, 1.0), 2),
                "valid_at": msg["created_at"],
                "expires_at": iso(expires),
                "reporter_id": reporter,
                "message_id": msg["id"],
                "episode_key": episode_of[msg["id"]],
            }
        )
    # a few facts superseded by newer ones about the same person
    for subject, uuids in g.facts_of_user.items():
        if len(uuids) >= 4 and subject != g.forget_id:
            for old, new in zip(uuids[: len(uuids) // 20 + 1], uuids[-(len(uuids) // 20 + 1) :]):
                if old != new:
                    g.supersessions.append({"old_uuid": old, "new_uuid": new})
    closed = {s["old_uuid"] for s in g.supersessions}
    g.facts_of_user = {u: [f for f in fs if f not in closed] for u, fs in g.facts_of_user.items()}
    return g


# --- loading ------------------------------------------------------------------------------------------------
async def _batches(store: GraphStore, name: str, rows: list[dict[str, Any]], **params: Any) -> None:
    for k in range(0, len(rows), BATCH):
        await bench_write(store, name, rows=rows[k : k + BATCH], guild_id=GUILD, now=iso(NOW), **params)


async def load(store: GraphStore, g: Guild) -> list[tuple[str, int, float]]:
    """Load the guild; (what, rows, seconds) per step."""
    steps: list[tuple[str, int, float]] = []

    async def step(what: str, name: str, rows: list[dict[str, Any]], *more: tuple[str, list[dict[str, Any]]]) -> None:
        started = time.perf_counter()
        for name_, rows_ in ((name, rows), *more):
            await _batches(store, name_, rows_)
        steps.append((what, len(rows) + sum(len(r) for _, r in more), time.perf_counter() - started))

    started = time.perf_counter()
    await bench_write(store, "load_guild", guild_id=GUILD, name="generated guild", channels=g.channels)
    steps.append(("guild and channels", len(g.channels), time.perf_counter() - started))
    await step("users", "load_users", g.users)
    await step("messages (SENT)", "load_messages", g.messages)
    await step("replies (REPLIES_TO)", "load_replies", [m for m in g.messages if m["reply_to_id"]])
    await step("episodes (IN_EPISODE, TOOK_PART_IN)", "load_episodes", g.episodes)
    await step("entities", "load_entities", g.entities)
    await step("entity owners (RELATED_TO)", "load_relations", g.relations)
    # A superseded fact is created closed (label Closed, invalid_at and expired_at = its successor's valid_at)
    # rather than relabelled afterwards: ArcadeDB moves a relabelled vertex and rewrites every edge of it.
    closed_at = {s["old_uuid"]: s["new_uuid"] for s in g.supersessions}
    successors = set(closed_at.values())
    valid_at = {f["uuid"]: f["valid_at"] for f in g.facts if f["uuid"] in successors}
    open_facts = [f for f in g.facts if f["uuid"] not in closed_at]
    closed = [{**f, "invalid_at": valid_at[closed_at[f["uuid"]]]} for f in g.facts if f["uuid"] in closed_at]
    await step("facts (REPORTED_BY, FROM, EXTRACTED_FROM)", "load_facts", open_facts, ("load_closed_facts", closed))
    await step("facts about users (ABOUT)", "load_about_users", g.about_users)
    await step("facts about entities (ABOUT)", "load_about_entities", g.about_entities)
    await step("mentions (MENTIONS)", "load_mentions", g.mentions)
    await step("supersessions (SUPERSEDES)", "load_supersessions", g.supersessions)
    return steps
