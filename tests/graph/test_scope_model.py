"""Channel scope as an invariant over any sequence of events, on the real store (embedded ArcadeDB): Hypothesis
runs rules in two guilds that share members, each with shared and private channels and a thread, and every
member's DM space: posting, replies to any message (another channel's, another guild's, a DM's), mentions, a
scripted extraction (facts drawn from one channel or from two, superseding an earlier fact), edits, deletes,
retention, a moderator's memory mode, a channel @everyone may now or no longer view, a channel switched off,
opt-out and forget-me. After every step every read that shows a member something is run for every channel, and
the MCP server's tools for each guild, and compared with a plain model of who may see what:

- a fact may be shown in channel X only when it is of X's guild and one of the channels it was told in (the
  channels of its source messages that no member deleted or edited; retention and forgets remove messages, not
  what was told) is shared now, is X, or is X's parent; a message only when it is of X's guild and its channel
  is so; the other side of a supersession likewise;
- nothing about, mentioning, reported by or said by a forgotten member; no opted-out member in who-knows, among
  a timeline's reporters or in a row of an MCP operator query;
- the MCP server (scope '': the shared channels alone) shows a fact only when one of those channels is shared now.

The model decides from the events alone (which channel each message was said in, which message each fact came
from, the modes a moderator set and what @everyone may view), never from the graph. The machine counts that the
shapes that matter occurred (`SHAPES`, printed with `pytest -s`).

Profiles (GRAPEVINE_HYPOTHESIS_PROFILE): `ci` (the default: derandomized, well under a minute of engine work) and `long`:

    GRAPEVINE_HYPOTHESIS_PROFILE=long .venv/bin/python -m pytest -q -s tests/graph/test_scope_model.py
"""

from __future__ import annotations

import asyncio
import os
import tempfile
import time
import uuid
from collections import Counter
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, initialize, invariant, rule, run_state_machine_as_test

from common.settings import RecallTuning
from grapevine.mcp_server import Reader, build
from graph import channels
from graph.engines.arcadedb import ArcadeDBEngine
from graph.models import (
    Channel,
    ChannelKind,
    EpisodeClose,
    EpisodeWrite,
    FactView,
    FactWrite,
    Guild,
    Message,
    MessageView,
    NodeRef,
    Report,
    User,
)
from graph.privacy.consent import keyed, opt_out
from graph.privacy.erasure import apply_edit, erase_channel, erase_messages
from graph.privacy.forget import run_request, with_scope
from graph.privacy.requests import Request, Requests
from graph.privacy.retention import apply_retention
from graph.reads import context as context_reads
from graph.reads import topics
from graph.reads.facts import facts_about
from graph.schema import setup_schema
from graph.store import GraphStore
from graph.writes.discord_records import upsert_channel, upsert_guild
from graph.writes.episodes import close_episode, write_command_facts, write_episode
from graph.writes.messages import record_batch

settings.register_profile(  # derandomized: every CI run searches the same sequences, so a red CI is reproducible
    "ci",
    max_examples=3,
    stateful_step_count=10,
    deadline=None,
    suppress_health_check=list(HealthCheck),
    print_blob=True,
    derandomize=True,
    database=None,
)
settings.register_profile(
    "long", max_examples=15, stateful_step_count=30, deadline=None, suppress_health_check=list(HealthCheck), print_blob=True
)
PROFILE = os.environ.get("GRAPEVINE_HYPOTHESIS_PROFILE", "ci")

G1, G2 = "810000000000000001", "820000000000000002"
GENERAL, STAFF, STAFF_THREAD, RANDOM, RANDOM_THREAD = (f"81100000000000000{i}" for i in range(1, 6))
PUBLIC2, PRIVATE2 = "821000000000000001", "821000000000000002"
CHANNELS: dict[str, tuple[str, str | None, channels.Visibility, ChannelKind]] = {
    GENERAL: (G1, None, "public", ChannelKind.TEXT),
    STAFF: (G1, None, "restricted", ChannelKind.TEXT),
    STAFF_THREAD: (G1, STAFF, "restricted", ChannelKind.THREAD),
    RANDOM: (G1, None, "public", ChannelKind.TEXT),
    RANDOM_THREAD: (G1, RANDOM, "public", ChannelKind.THREAD),
    PUBLIC2: (G2, None, "public", ChannelKind.TEXT),
    PRIVATE2: (G2, None, "restricted", ChannelKind.TEXT),
}
TOP = [c for c, (_, parent, _, _) in CHANNELS.items() if parent is None]
MEMBERS = [str(830000000000000001 + i) for i in range(4)]
NAMES = ["ann", "ben", "cyd", "dee"]
WORDS = ["kernel", "vault", "merger", "tea", "hello", "code"]
DIMENSION = 16
T0 = datetime(2025, 1, 1, tzinfo=UTC)
SHAPES: Counter[str] = Counter()  # the shapes the reads met, over a whole run


def dm_channel(user_id: str) -> str:
    return "9" + user_id[1:]


def dm_guild(user_id: str) -> str:
    return f"dm:{user_id}"


def unit(hot: int) -> list[float]:
    return [1.0 if i == hot % DIMENSION else 0.0 for i in range(DIMENSION)]


@dataclass
class Said:
    id: str
    guild: str
    channel: str
    author: str
    at: datetime
    deleted: bool = False  # by its author (or an edit, or a channel switched off): what it told is withdrawn
    gone: bool = False  # removed without withdrawing what it told (retention, a forget)
    episode: bool = False
    text: str = ""


@dataclass
class Told:
    uuid: str
    guild: str
    text: str
    about: set[str]
    mentions: set[str]
    reporters: set[str]
    evidence: dict[str, str] = field(default_factory=dict)  # message id -> its channel, while not withdrawn


@asynccontextmanager
async def embedded_store(server: ArcadeDBEngine) -> AsyncIterator[GraphStore]:
    """A fresh database set up with embeddings, so the nearest-facts read runs too."""
    engine = server.for_database(f"s{uuid.uuid4().hex[:12]}")
    await engine.create_database()
    driver = engine.driver()
    try:
        store = GraphStore(driver, engine)
        await setup_schema(store, "all-minilm-l6-v2", DIMENSION)
        yield store
    finally:
        await driver.close()
        await engine.drop_database()


class ScopeMachine(RuleBasedStateMachine):
    server: ArcadeDBEngine
    runs = 0
    steps = 0
    reading = 0.0  # seconds spent in the invariant's reads, of the whole run

    def __init__(self) -> None:
        super().__init__()
        ScopeMachine.runs += 1
        self.loop = asyncio.new_event_loop()
        self._store_cm = embedded_store(self.server)
        self.store: GraphStore = self.loop.run_until_complete(self._store_cm.__aenter__())
        self.now = T0
        self.next_id = 840000000000000000
        self.said: dict[str, Said] = {}
        self.told: dict[str, Told] = {}
        self.closed: set[str] = set()  # facts superseded
        self.mode: dict[str, str] = {}
        self.mode_set: dict[str, bool] = dict.fromkeys(CHANNELS, False)
        self.view: dict[str, str | None] = dict.fromkeys(CHANNELS, None)
        self.opted_out: set[str] = set()
        self.forgotten: set[str] = set()
        self._visible: dict[str, set[str]] = {}  # per checked state (modes change between steps)
        self._folder = tempfile.TemporaryDirectory(prefix="scope-model-")
        self.requests = Requests(Path(self._folder.name))
        db = self.store.engine.database
        self.reader = Reader(self.store.driver, db, G1, topics.opted_out_reader(self.store.driver, db, keyed(self.store)))
        self.mcp = build(self.reader)
        self.run(self._setup())

    def run(self, work: Any) -> Any:
        return self.loop.run_until_complete(work)

    async def _setup(self) -> None:
        for guild in (G1, G2, *(dm_guild(i) for i in MEMBERS)):
            await upsert_guild(self.store, Guild(id=guild, name=guild))
        for channel, (guild, parent, visibility, kind) in CHANNELS.items():
            await upsert_channel(self.store, Channel(id=channel, guild_id=guild, name=channel, kind=kind, parent_id=parent))
            await channels.set_visibility(self.store, guild, channel, visibility)
            self._seen(channel, visibility)
        for i in MEMBERS:
            await upsert_channel(self.store, Channel(id=dm_channel(i), guild_id=dm_guild(i), name="dm", kind=ChannelKind.DM))

    def teardown(self) -> None:
        self.run(self._store_cm.__aexit__(None, None, None))
        self.loop.close()
        self._folder.cleanup()

    # --- the model of channel modes (graph/channels.py, as a moderator and Discord's permissions set them) ----
    def _seen(self, channel: str, visibility: str) -> None:
        """What @everyone may view, as the live bot reads it: a mode no one set follows it when first seen, and
        later only narrows (a channel made public keeps what it had until a moderator widens it)."""
        parent = CHANNELS[channel][1]
        first = self.view[channel] is None
        self.view[channel] = visibility
        if self.mode_set[channel]:
            return
        if parent is not None and self.mode.get(parent) == "off":
            self.mode[channel] = "off"
            return
        by_view = self.mode[parent] if parent and visibility == "public" else ("shared" if visibility == "public" else "private")
        if first or by_view != "shared":
            self.mode[channel] = by_view

    def _set_mode(self, channel: str, mode: str) -> None:
        self.mode[channel], self.mode_set[channel] = mode, True
        for thread, (_, parent, _, _) in CHANNELS.items():
            if parent == channel and not self.mode_set[thread] and (mode == "off" or self.view[thread] == "public"):
                self.mode[thread] = mode

    def guild_of(self, channel: str) -> str:
        return CHANNELS[channel][0] if channel in CHANNELS else dm_guild("8" + channel[1:])

    def visible(self, channel: str) -> set[str]:
        """The channels what is told may come from to be shown in `channel` ('' : the shared ones alone)."""
        if channel not in self._visible:
            self._visible[channel] = self._visible_now(channel)
        return self._visible[channel]

    def _visible_now(self, channel: str) -> set[str]:
        guild = G1 if channel == "" else self.guild_of(channel)
        shared = {c for c, (g, _, _, _) in CHANNELS.items() if g == guild and self.mode.get(c) == "shared"}
        here = {channel, CHANNELS[channel][1]} if channel in CHANNELS else {channel}
        return shared | {c for c in here if c}

    def may_show_fact(self, uuid_: str, channel: str, guild: str) -> bool:
        told = self.told.get(uuid_)
        if told is None or told.guild != guild:
            return False
        if (told.about | told.mentions) & self.forgotten:
            return False
        return bool(set(told.evidence.values()) & self.visible(channel))

    def may_show_message(self, message: MessageView, channel: str, guild: str) -> bool:
        said = self.said.get(message.id)
        return (
            said is not None
            and not said.deleted
            and said.guild == guild
            and said.author not in self.forgotten
            and said.channel in self.visible(channel)
        )

    # --- rules ------------------------------------------------------------------------------
    @initialize(first=st.sampled_from(MEMBERS), second=st.sampled_from(MEMBERS), other=st.integers(0, 10_000))
    def seed(self, first: str, second: str, other: int) -> None:
        """Talk in every channel and two DMs, extracted: facts of one channel and of two in each, private and
        shared; then a second round whose facts supersede the first's."""
        where = [*CHANNELS, dm_channel(first), dm_channel(second)]
        for round_ in range(2):
            for channel in where:
                for who in (first, second):
                    author = who if channel in CHANNELS else "8" + channel[1:]  # a DM's owner
                    self.say(author, channel if channel in CHANNELS else "dm", ["kernel", WORDS[round_]], None, None, 1)
            for n, channel in enumerate(where):
                self.extract(channel if channel in CHANNELS else "dm", other + n, round_ == 1, "8" + channel[1:])
        # facts given by a slash command in private channels: no stored message, so only their stored audience
        # keeps them where they were told (a read that asks the reporting message instead lets them through)
        self.remember(first, STAFF)
        self.remember(second, PRIVATE2)
        # @everyone may now view a private channel: its past stays private until a moderator widens the mode
        self.everyone_may_view(PRIVATE2, "public")

    @rule(
        who=st.sampled_from(MEMBERS),
        where=st.sampled_from([*CHANNELS, "dm"]),
        words=st.lists(st.sampled_from(WORDS), min_size=1, max_size=3),
        mention=st.one_of(st.none(), st.sampled_from(MEMBERS)),
        reply=st.one_of(st.none(), st.integers(0, 10_000)),
        later=st.sampled_from([1, 60, 3 * 24 * 60, 20 * 24 * 60]),
    )
    def say(self, who: str, where: str, words: list[str], mention: str | None, reply: int | None, later: int) -> None:
        """A message in a shared or private channel, a thread or the author's DMs, maybe replying to any message
        recorded so far (of any channel or guild) and mentioning anyone."""
        if who in self.opted_out:
            return
        channel = dm_channel(who) if where == "dm" else where
        guild = self.guild_of(channel)
        self.now += timedelta(minutes=later)
        self.next_id += 1
        message_id = str(self.next_id)
        ids = sorted(self.said)
        parent = ids[reply % len(ids)] if reply is not None and ids else None
        text = " ".join([*words, *([f"<@{mention}>"] if mention else [])])
        msg = Message(id=message_id, guild_id=guild, channel_id=channel, author_id=who, content=text, created_at=self.now,
                      reply_to_id=parent)  # fmt: skip
        user = User(id=who, name=NAMES[MEMBERS.index(who)], display_name=NAMES[MEMBERS.index(who)])
        self.run(record_batch(self.store, [msg], {who: user}, {guild: [user]}))
        self.said[message_id] = Said(message_id, guild, channel, who, self.now, text=text)

    @rule(channel=st.sampled_from([*CHANNELS, "dm"]), other=st.integers(0, 10_000), supersede=st.booleans(),
          who=st.sampled_from(MEMBERS))  # fmt: skip
    def extract(self, channel: str, other: int, supersede: bool, who: str) -> None:
        """Close the channel's waiting messages as one episode with a scripted extraction: a fact about the first
        author from the first message (maybe superseding an open fact about them in the guild), and a fact about
        the last author drawn from the last message and from a message of another channel of the guild."""
        channel = dm_channel(who) if channel == "dm" else channel
        waiting = sorted((m for m in self.said.values() if m.channel == channel and not m.episode and not m.deleted and not m.gone),
                         key=lambda m: (m.at, m.id))  # fmt: skip
        if not waiting:
            return
        guild = waiting[0].guild
        key = f"{channel}:{waiting[0].id}:{len(self.told)}"
        people = sorted({m.author for m in waiting})
        close = EpisodeClose(key=key, uuid=uuid.uuid4().hex, guild_id=guild, channel_id=channel, started_at=waiting[0].at,
                             ended_at=waiting[-1].at, message_ids=tuple(m.id for m in waiting), participant_ids=tuple(people))  # fmt: skip
        self.run(close_episode(self.store, close))
        for m in waiting:
            m.episode = True
        first, last = waiting[0], waiting[-1]
        elsewhere = sorted(m.id for m in self.said.values()
                           if m.guild == guild and m.channel != channel and not m.deleted and not m.gone)  # fmt: skip
        plan: list[tuple[str, list[Said]]] = [(first.author, [first])]
        if elsewhere:
            plan.append((last.author, [last, self.said[elsewhere[other % len(elsewhere)]]]))
        facts: list[FactWrite] = []
        for about, sources in plan:
            if about in self.opted_out or any(s.author in self.opted_out for s in sources):
                continue
            n = len(self.told) + 1
            open_ones = sorted(u for u, t in self.told.items() if t.guild == guild and about in t.about and u not in self.closed)
            old = open_ones[-1:] if supersede and not facts else []
            text = f"F{n} {WORDS[n % len(WORDS)]} kernel"
            fact = FactWrite(uuid=uuid.uuid4().hex, text=text, importance=5, valid_at=sources[0].at,
                             about=(NodeRef(kind="user", id=about),),
                             reports=tuple(Report(user_id=s.author, message_id=s.id, at=s.at) for s in sources),
                             source_message_ids=tuple(s.id for s in sources), supersedes=tuple(old),
                             embedding=tuple(unit(n)))  # fmt: skip
            facts.append(fact)
            self.told[fact.uuid] = Told(fact.uuid, guild, text, {about}, set(), {s.author for s in sources},
                                        {s.id: s.channel for s in sources})  # fmt: skip
            self.closed |= set(old)
            if old and len({c for u in [*old, fact.uuid] for c in self.told[u].evidence.values()}) > 1:
                SHAPES["supersession across channels"] += 1
        write = EpisodeWrite(key=key, guild_id=guild, summary="they talked", facts=tuple(facts), people=tuple(people))
        self.run(write_episode(self.store, write, now=self.now))

    @rule(who=st.sampled_from(MEMBERS), channel=st.sampled_from([*CHANNELS, "dm"]))
    def remember(self, who: str, channel: str) -> None:
        """ "remember that ..." by a slash command: no stored message, told in the channel it was given in."""
        if who in self.opted_out or not any(m.author == who for m in self.said.values()):
            return  # as the bot: a command's author is stored first
        channel = dm_channel(who) if channel == "dm" else channel
        guild, n = self.guild_of(channel), len(self.told) + 1
        text = f"F{n} remembered kernel"
        fact = FactWrite(uuid=uuid.uuid4().hex, text=text, valid_at=self.now, about=(NodeRef(kind="user", id=who),),
                         reports=(Report(user_id=who, message_id=None, at=self.now),), channel_id=channel,
                         source="command", embedding=tuple(unit(n)))  # fmt: skip
        self.run(write_command_facts(self.store, guild, [fact]))
        self.told[fact.uuid] = Told(fact.uuid, guild, text, {who}, set(), {who}, {f"command:{fact.uuid}": channel})
        SHAPES["a fact remembered by a command"] += 1

    def _withdraw(self, ids: set[str]) -> None:
        for i in ids:
            if i in self.said:
                self.said[i].deleted = True
        for told in self.told.values():
            before = set(told.evidence.values())
            told.evidence = {m: c for m, c in told.evidence.items() if m not in ids}
            if len(before) > 1 and set(told.evidence.values()) and set(told.evidence.values()) != before:
                SHAPES["audience narrowed by a delete"] += 1

    @rule(pick=st.integers(0, 10_000), words=st.lists(st.sampled_from(WORDS), min_size=1, max_size=2))
    def edit(self, pick: int, words: list[str]) -> None:
        stored = sorted(i for i, m in self.said.items() if not m.deleted and not m.gone)
        if not stored:
            return
        message_id = stored[pick % len(stored)]
        self.now += timedelta(seconds=1)
        text = " ".join(words)
        self.run(apply_edit(self.store, message_id, text, self.now))
        if text == self.said[message_id].text:
            return  # Discord reports an edit that changed no word (an embed, a pin): what it told stands
        self._withdraw({message_id})
        self.said[message_id].deleted = False  # the message stays, with new words; what it told is withdrawn
        self.said[message_id].text = text

    @rule(pick=st.integers(0, 10_000))
    def delete(self, pick: int) -> None:
        stored = sorted(i for i, m in self.said.items() if not m.deleted and not m.gone)
        if not stored:
            return
        message_id = stored[pick % len(stored)]
        self.run(erase_messages(self.store, [message_id]))
        self._withdraw({message_id})

    @rule(days=st.sampled_from([1, 30]))
    def retention(self, days: int) -> None:
        self.run(apply_retention(self.store, messages_days=days, closed_facts_days=0, now=self.now))
        cutoff = self.now - timedelta(days=days)
        for m in self.said.values():
            if m.at < cutoff:
                m.gone = True

    @rule(channel=st.sampled_from(list(CHANNELS)), mode=st.sampled_from(["private", "shared"]))
    def moderator_sets_mode(self, channel: str, mode: str) -> None:
        if self.mode.get(channel) == "shared" and mode == "private":
            SHAPES["a shared channel made private"] += 1
        assert self.run(channels.set_mode(self.store, CHANNELS[channel][0], channel, mode))  # type: ignore[arg-type]
        self._set_mode(channel, mode)

    @rule(channel=st.sampled_from(list(CHANNELS)), visibility=st.sampled_from(["public", "restricted"]))
    def everyone_may_view(self, channel: str, visibility: str) -> None:
        if self.view[channel] == "restricted" and visibility == "public" and not self.mode_set[channel]:
            SHAPES["a private channel made public on Discord"] += 1
        self.run(channels.set_visibility(self.store, CHANNELS[channel][0], channel, visibility))  # type: ignore[arg-type]
        self._seen(channel, visibility)

    @rule(channel=st.sampled_from(TOP))
    def channel_off(self, channel: str) -> None:
        guild = CHANNELS[channel][0]
        assert self.run(channels.set_mode(self.store, guild, channel, "off"))
        self._set_mode(channel, "off")
        erased = self.run(erase_channel(self.store, guild, channel))
        assert erased.residue == []
        threads = {c for c, (_, parent, _, _) in CHANNELS.items() if parent == channel}
        self._withdraw({i for i, m in self.said.items() if m.channel in {channel, *threads}})

    @rule(who=st.sampled_from(MEMBERS))
    def opt_out(self, who: str) -> None:
        self.run(opt_out(self.store, who))
        self.opted_out.add(who)

    @rule(who=st.sampled_from(MEMBERS))
    def forget_me(self, who: str) -> None:
        if who in self.forgotten:
            return
        request = self.requests.record(self.run(with_scope(self.store, Request(who, None))))
        self.run(opt_out(self.store, who))
        report = self.run(run_request(self.store, request))
        assert report.clean, report.residue
        self.requests.done(request)
        self.forgotten.add(who)
        self.opted_out.add(who)
        for m in self.said.values():
            if m.author == who or m.guild == dm_guild(who):
                m.gone = True

    # --- the invariant ----------------------------------------------------------------------
    def _check_facts(self, read: str, facts: list[FactView], channel: str, guild: str) -> None:
        for f in facts:
            assert self.may_show_fact(f.uuid, channel, guild), (read, channel, f.text, self.told.get(f.uuid), self.mode)
            assert not set(f.about_ids) & self.forgotten, (read, f)
            assert not {r[0] for r in f.reporters} & self.forgotten, (read, f)
            assert all(c in self.visible(channel) for _, c in f.shown), (read, channel, f.shown)
            if f.superseded_by:
                assert self.may_show_fact(f.superseded_by, channel, guild), (read, "superseded by", f)

    def _count(self, channel: str, guild: str, shown: set[str]) -> None:
        for told in self.told.values():
            if told.guild != guild or not told.evidence or told.uuid in shown:
                continue
            retained = all(m in self.said and self.said[m].gone for m in told.evidence)
            if not self.may_show_fact(told.uuid, channel, guild) and channel in CHANNELS and self.mode.get(channel) == "shared":
                SHAPES["a private fact kept from a shared channel" + (" after retention" if retained else "")] += 1

    def _check_messages(self, read: str, messages: list[MessageView], channel: str, guild: str) -> None:
        for m in messages:
            assert self.may_show_message(m, channel, guild), (read, channel, m, self.said.get(m.id), self.mode)

    async def _reads(self, channel: str) -> None:
        """Every read a member's request makes in `channel`, run together, then held to the model."""
        guild = self.guild_of(channel)
        driver, db = self.store.driver, self.store.engine.database
        author = MEMBERS[len(self.said) % len(MEMBERS)]
        last = max(self.said, default=None)
        who_knows = {"guild_id": guild, "topic": "kernel", "channel_id": channel, "hits": 200}
        found, nearest, rounds, talk, about, knowing, *lines = await asyncio.gather(
            context_reads.reply_facts(
                self.store, guild, author_id=author, mentioned_ids=MEMBERS, names=NAMES, entity_keys=[],
                text="kernel vault code", skip_ids=[], now=self.now, channel_id=channel,
            ),
            context_reads.nearest_facts(self.store, guild, unit(1), now=self.now, limit=50, channel_id=channel),
            context_reads.second_round(self.store, guild, channel, uuids=sorted(self.told), message_ids=sorted(self.said), at=self.now),
            context_reads.conversation(
                self.store, guild, channel, author_id=author, at=self.now + timedelta(seconds=1), reply_to_id=last,
                text="kernel vault merger code", recall=10, older_episodes=3, tuning=RecallTuning(),
            ),
            facts_about(self.store, guild, user_ids=MEMBERS, now=self.now, limit=100, channel_id=channel),
            topics._read_parts(driver, db, "operator/who_knows", who_knows, (0, 2)),  # no entities here: no part 1
            *(topics.timeline(driver, db, guild, user_id=who, channel_id=channel, opted_out=self.reader.opted_out)
              for who in sorted({a for t in self.told.values() if t.guild == guild for a in t.about})),
        )  # fmt: skip
        shown = [f for facts in found.values() for f in facts]
        self._check_facts("context facts", shown, channel, guild)
        self._count(channel, guild, {f.uuid for f in shown})
        self._check_facts("nearest facts", nearest, channel, guild)
        self._check_facts("second round", rounds.matched, channel, guild)
        self._check_messages("second round evidence", [m for _, _, m in rounds.evidence], channel, guild)
        if last and self.said[last].guild != guild:
            SHAPES["a reply to another guild's message"] += 1
        for part, messages in (("recent", talk.recent), ("chain", talk.chain), ("recalled", talk.recalled),
                               ("around", [m for _, m in talk.around]), ("older", talk.older.matches)):  # fmt: skip
            self._check_messages(f"conversation {part}", list(messages), channel, guild)
        self._check_facts("memory about", about, channel, guild)
        for line in lines:
            self._check_timeline("timeline", line, channel, guild)
        self._check_knowing("who knows", knowing, channel, guild, opted_out_too=False)
        out = await self.reader.opted_out({str(r["user_id"]) for r in knowing})
        knowers = topics.rank_knowers(knowing, self.now, out)  # as topics.who_knows ranks the same rows
        assert not {k.user_id for k in knowers} & self.opted_out, ("who knows", knowers)

    def _check_timeline(self, read: str, line: list[topics.TimelineFact], channel: str, guild: str) -> None:
        by_text = {t.text: u for u, t in self.told.items()}
        for f in line:
            assert self.may_show_fact(f.uuid, channel, guild), (read, channel, f.text, self.told.get(f.uuid), self.mode)
            for other in (*f.supersedes, *f.superseded_by):
                assert self.may_show_fact(by_text.get(other.text, other.uuid), channel, guild), (
                    read,
                    "the other side",
                    channel,
                    other,
                )
                SHAPES["a supersession shown where both sides may be seen"] += 1
            assert not {r.user_id for r in f.reporters} & self.opted_out, (read, "an opted-out reporter", f.reporters)
            assert all(s.channel_id in self.visible(channel) for s in f.sources), (read, channel, f.sources)
        for u in self.closed:
            told = self.told[u]
            if told.guild == guild and not self.may_show_fact(u, channel, guild):
                SHAPES["a superseded fact kept from a timeline"] += 1

    def _check_knowing(self, read: str, rows: list[dict[str, Any]], channel: str, guild: str, *, opted_out_too: bool) -> None:
        for r in rows:
            user = str(r["user_id"])
            assert user not in self.forgotten, (read, r)
            assert not (opted_out_too and user in self.opted_out), (read, "an opted-out member", r)
            if r["kind"] == "fact":
                assert self.may_show_fact(str(r["ref"]), channel, guild), (read, channel, r, self.mode)
            else:
                said = self.said.get(str(r["ref"]))
                assert said is not None and said.channel in self.visible(channel) and said.guild == guild, (read, r)
            if r.get("channel_id"):
                assert r["channel_id"] in self.visible(channel), (read, channel, r)
        if any(str(r["user_id"]) in self.opted_out for r in rows):
            SHAPES["an opted-out member among the raw who-knows rows"] += 1

    async def _mcp(self) -> None:
        server = self.mcp

        async def tool(name: str, arguments: dict[str, Any]) -> Any:
            try:
                called = await server.call_tool(name, arguments)
            except Exception as exc:  # the SDK wraps what the tool raised: show that
                raise (exc.__cause__ or exc) from exc
            assert not getattr(called, "is_error", False), (name, called)
            data = getattr(called, "structured_content", None)
            return data["result"] if isinstance(data, dict) and set(data) == {"result"} else data

        by_text = {t.text: u for u, t in self.told.items()}
        for who in MEMBERS[:2]:
            for name in ("facts", "timeline"):
                for row in await tool(name, {"subject": who}):
                    assert self.may_show_fact(row["uuid"], "", G1), ("mcp " + name, row, self.mode)
                    for text in [*row["supersedes"], *row["superseded_by"]]:
                        assert self.may_show_fact(by_text.get(text, ""), "", G1), ("mcp " + name, "the other side", text)
                    assert not {r["user_id"] for r in row["reported_by"]} & self.opted_out, ("mcp " + name, row)
            rows = await tool("run_query", {"name": "topic_timeline", "params": {"user_id": who}})
            for row in rows:
                assert self.may_show_fact(row["uuid"], "", G1), ("mcp run_query topic_timeline", row)
                for other in [*row["supersedes"], *row["superseded_by"]]:
                    assert self.may_show_fact(other["uuid"], "", G1), ("mcp run_query topic_timeline", "the other side", row)
                assert not {str(r["id"]) for r in row["reporters"]} & self.opted_out, ("mcp run_query topic_timeline", row)
        knowers = await tool("who_knows", {"topic": "kernel"})
        assert not {k["user_id"] for k in knowers} & self.opted_out, ("mcp who_knows", knowers)
        rows = await tool("run_query", {"name": "who_knows", "params": {"topic": "kernel"}})
        self._check_knowing("mcp run_query who_knows", rows, "", G1, opted_out_too=True)

    @invariant()
    def nothing_shown_beyond_its_audience(self) -> None:
        ScopeMachine.steps += 1
        self._visible.clear()
        talked = {m.channel for m in self.said.values()}  # a DM space nobody talked in is another empty guild
        where = [*CHANNELS, *(dm_channel(i) for i in MEMBERS if i not in self.forgotten and dm_channel(i) in talked)]

        async def every_read() -> None:
            await asyncio.gather(*(self._reads(channel) for channel in where), self._mcp())

        started = time.monotonic()
        self.run(every_read())
        ScopeMachine.reading += time.monotonic() - started


@pytest.mark.slow
def test_scope_holds_over_any_sequence_of_events(arcadedb_server: ArcadeDBEngine) -> None:
    ScopeMachine.server = arcadedb_server
    ScopeMachine.runs = ScopeMachine.steps = 0
    ScopeMachine.reading = 0.0
    SHAPES.clear()
    started = time.monotonic()
    run_state_machine_as_test(ScopeMachine, settings=settings.get_profile(PROFILE))
    print(
        f"scope model ({PROFILE}): {ScopeMachine.runs} examples, {ScopeMachine.steps} checked states "
        f"in {time.monotonic() - started:.0f} s ({ScopeMachine.reading:.0f} s reading); shapes met: {dict(sorted(SHAPES.items()))}"
    )
    assert SHAPES["a fact remembered by a command"] > 0, SHAPES
    if PROFILE == "long":  # a hunt that never met the shapes that matter proved nothing
        assert SHAPES["a private fact kept from a shared channel after retention"] > 0, SHAPES
        assert SHAPES["a supersession shown where both sides may be seen"] > 0, SHAPES
