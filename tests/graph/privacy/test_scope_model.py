"""Channel scope as an invariant over any sequence of Discord's events, on the real store (embedded ArcadeDB) and
the bot's own cogs (tests/support/bot_events.py): messages, edits and deletes by anyone (opted out or not) in two
guilds' channels, threads and DMs (the bot's DM answers too), replies to any message, mentions; channels and
threads created (public or private), @everyone's permission overwrites (a hidden channel made public as a rule
of its own: it stays private until a moderator widens it), threads archived, a restart's refresh; members
leaving a guild and joining again (as discord.py dispatches it: nothing in the bot listens, so what it holds of
them stays, and every read shows what it showed); a fact said again in another channel (its channel joins the
audience, so a fact's audience often holds several channels); a correction told in another channel than the fact it
supersedes (one side of the supersession often seen where the other is not);
a moderator's memory modes in any order (off deleting what the channel holds), opt-out, opt-in, forget-me, a
moderator's forget; retention; the migration that rebuilds facts' audiences; and a scripted extraction (the LLM
is the boundary: facts drawn from one channel or two, superseding an earlier one) and `remember` facts.

After every step, every channel's mode as `/memory status` lists it (mode, set or not, what @everyone may view) and
as the listener holds it is the model's (a widening shows there at once, whatever was said in the channel); and
for every channel and DM space, every read that shows a member something (the reply's context
reads, the read model's and the one-statement form of the reply's fact read, /memory about, who-knows and timeline
as the bot answers them, the store's reads behind them, the MCP server's tools, asked by id and by a member's name
written in another case or normal form: "STRASSE" for "Straße", "İLKAY" for "İlkay") is held to the plain model in
tests/graph/privacy/scope_model.py: nothing beyond what the model allows (reporters included), no skipped member
(the author, the bot) among a reply's members named, replies read again with nothing written between (answered by
the read models, a reply chain into another channel and every second round included), and the facts about
a member (/memory about, a reply's facts about its author, timelines) are exactly the model's. No example opens with a scene: every
rule is reachable from the first step.

Profiles (GRAPEVINE_HYPOTHESIS_PROFILE, or pytest's --hypothesis-profile): `ci` (the default: derandomized, many
short examples) and `long`:

    GRAPEVINE_HYPOTHESIS_PROFILE=long .venv/bin/python -m pytest -q -s tests/graph/privacy/test_scope_model.py
"""

from __future__ import annotations

import asyncio
import re
import tempfile
import time
import unicodedata
import uuid
from collections import Counter
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, initialize, invariant, rule, run_state_machine_as_test

from common.settings import RecallTuning
from grapevine.mcp_server import Reader, build
from graph.engines.arcadedb import ArcadeDBEngine
from graph.models import EpisodeClose, EpisodeWrite, FactView, FactWrite, NodeRef, Report, User
from graph.privacy.guards.consent import keyed
from graph.privacy.guards.scope import backfill_audience
from graph.privacy.opted_out import opted_out_reader
from graph.privacy.retention import apply_retention
from graph.reads import context as context_reads
from graph.reads import fact_model, topics
from graph.reads.context import FactRequest, RoundRequest
from graph.reads.facts import facts_about
from graph.store import GraphStore
from graph.writes.discord_records import upsert_users
from graph.writes.episodes import close_episode, write_command_facts, write_episode
from tests.graph.privacy.scope_model import (
    G1,
    G2,
    GENERAL,
    NEW_CHANNEL,
    NEW_STAFF_THREAD,
    NEW_THREAD,
    PRIVATE2,
    PUBLIC2,
    RANDOM,
    RANDOM_THREAD,
    STAFF,
    STAFF_THREAD,
    Said,
    Scope,
    Told,
)
from tests.support.bot_events import BOT_ID, DiscordBot, close, discord_bot
from tests.support.discord_doubles import MockInteraction, invoke, sent_texts
from tests.support.machine_profiles import PROFILE, profile
from tests.support.machine_store import emptied, machine_store

MEMBERS = [str(830000000000000001 + i) for i in range(4)]
NAMES = ["ann", "ben", "Straße", "İlkay"]  # names whose case and normal forms differ: ß folds to ss, İ to i̇
# how a person writes a name when they ask about someone: the case and normal form of what they type is theirs
FORMS: list[Callable[[str], str]] = [str.upper, str.title, str.casefold, lambda n: unicodedata.normalize("NFD", n.upper())]
WORDS = ["kernel", "vault", "merger", "tea", "hello", "code"]
BOT = str(BOT_ID)
T0 = datetime(2025, 1, 1, tzinfo=UTC)
LISTED = re.compile(r"^• #(\S+): (.+), \d+ messages in \d+ days$", re.MULTILINE)  # a channel of `/memory status`
FACT = re.compile(r"\bF(\d+)x\b")  # every fact's text carries its number: what a bot's answer shows is searched for it
SHAPES: Counter[str] = Counter()
DIMENSION = 16


def unit(hot: int) -> list[float]:
    return [1.0 if i == hot % DIMENSION else 0.0 for i in range(DIMENSION)]


WHERE = st.sampled_from([*(f"c{i}" for i in range(10)), "dm"])

ARGS: dict[str, dict[str, st.SearchStrategy[Any]]] = {  # every rule's arguments: a rule, and an event of the opening
    "say": dict(who=st.sampled_from(MEMBERS), where=WHERE, words=st.lists(st.sampled_from(WORDS), min_size=1, max_size=2), mention=st.one_of(st.none(), st.sampled_from(MEMBERS)), reply=st.one_of(st.none(), st.integers(0, 99)), later=st.sampled_from([1, 60, 3 * 24 * 60, 20 * 24 * 60]), told=st.booleans(), other=st.integers(0, 99)),
    "bot_answers_in_dm": dict(who=st.sampled_from(MEMBERS), words=st.lists(st.sampled_from(WORDS), min_size=1, max_size=2)),
    "edit": dict(pick=st.integers(0, 99), words=st.lists(st.sampled_from(WORDS), min_size=1, max_size=2)),
    "delete": dict(pick=st.integers(0, 99)),
    "bulk_delete": dict(pick=st.integers(0, 99), many=st.integers(2, 5)),
    "channel_deleted": dict(which=st.sampled_from([STAFF, STAFF_THREAD, RANDOM, RANDOM_THREAD, NEW_CHANNEL, NEW_THREAD, NEW_STAFF_THREAD, PRIVATE2])),
    "extract": dict(where=WHERE, other=st.integers(0, 99), supersede=st.booleans(), who=st.sampled_from(MEMBERS)),
    "remember": dict(who=st.sampled_from(MEMBERS), where=WHERE),
    "channel_created": dict(which=st.sampled_from([NEW_CHANNEL, NEW_THREAD, NEW_STAFF_THREAD]), visible=st.booleans()),
    "everyone_may_view": dict(which=st.sampled_from([GENERAL, STAFF, RANDOM, NEW_CHANNEL, PRIVATE2, PUBLIC2])),
    "thread_archived": dict(pick=st.integers(0, 99)),
    "restarted": dict(),
    "moderator_sets_mode": dict(where=st.sampled_from([f"c{i}" for i in range(10)]), mode=st.sampled_from(["private", "shared", "off"]), by=st.sampled_from(MEMBERS)),
    "retention": dict(days=st.sampled_from([1, 30])),
    "migration": dict(),
    "opt_out": dict(who=st.sampled_from(MEMBERS)),
    "opt_in": dict(who=st.sampled_from(MEMBERS)),
    "forget_me": dict(who=st.sampled_from(MEMBERS)),
    "restate": dict(pick=st.integers(0, 99), where=WHERE, who=st.sampled_from(MEMBERS)),
    "correct": dict(pick=st.integers(0, 99), who=st.sampled_from(MEMBERS)),
    "made_public": dict(pick=st.integers(0, 99)),
    "member_leaves": dict(who=st.sampled_from(MEMBERS), guild=st.sampled_from([G1, G2]), back=st.booleans()),
    "moderator_forgets": dict(who=st.sampled_from(MEMBERS), by=st.sampled_from(MEMBERS), guild=st.sampled_from([G1, G2])),
}  # fmt: skip


def rule_of(name: str) -> Callable[[Callable[..., None]], Callable[..., None]]:
    """The rule of that name, its arguments drawn as ARGS says (the same arguments as an event of the opening)."""
    make: Callable[..., Callable[[Callable[..., None]], Callable[..., None]]] = rule
    return make(**ARGS[name])


# the opening's events: any rule's, messages most often (each says or tells something the others act on), and
# corrections next (one needs an open fact and a channel it was not told in: many find none and do nothing)
OFTEN = [*[("say", ARGS["say"])] * 4, *[("correct", ARGS["correct"])] * 2]
EVENT = st.one_of(*(st.tuples(st.just(name), st.fixed_dictionaries(args)) for name, args in [*ARGS.items(), *OFTEN]))


def dm_channel(user_id: str) -> str:
    return "9" + user_id[1:]


class ScopeMachine(RuleBasedStateMachine):
    loop: asyncio.AbstractEventLoop
    shared_store: GraphStore
    runs = 0
    steps = 0
    talk_seconds = 0.0  # of the replies read again (a share of the run: printed at the end)

    def __init__(self) -> None:
        super().__init__()
        self.uuids = 0
        ScopeMachine.runs += 1
        self.store = self.run(emptied(self.shared_store))
        self._folder = tempfile.TemporaryDirectory(prefix="scope-model-")
        self.bot: DiscordBot = self.run(discord_bot(self.store, Path(self._folder.name)))
        self.m = Scope()
        self.now = T0
        self.next_id = 840000000000000000
        self.reader = Reader(self.store, G1, opted_out_reader(self.store, keyed(self.store)))
        self.mcp = build(self.reader)
        self.run(self._setup())

    def new_uuid(self) -> str:
        """The next uuid of this example: the same in every run (a random one would make the derandomized search
        meet other states each run, where the order of uuids decides which fact is superseded or read first)."""
        self.uuids += 1
        return uuid.UUID(int=self.uuids).hex

    def run(self, work: Any) -> Any:
        return self.loop.run_until_complete(work)

    async def _setup(self) -> None:
        for channel, place in self.m.channels.items():
            if place.exists:
                await self._create(channel)

    async def _create(self, channel: str) -> None:
        place = self.m.channels[channel]
        if place.thread:
            await self.bot.thread_created(self.bot.thread(channel, place.parent or "", private=not place.view))
        else:
            await self.bot.channel_created(self.bot.text_channel(channel, place.guild, place.view))
        place.exists = True
        self.m.seen(channel)

    def teardown(self) -> None:
        self.run(close(self.bot))
        self._folder.cleanup()

    def guild_of(self, channel: str) -> str:
        return self.m.channels[channel].guild if channel in self.m.channels else f"dm:8{channel[1:]}"

    def member(self, who: str, guild: str | None) -> Any:
        return self.bot.member(who, NAMES[MEMBERS.index(who)], None if guild is None or guild.startswith("dm:") else guild)

    def place(self, where: str, who: str) -> str | None:
        """A channel that exists (`c<n>`, the n-th of them) or the member's DMs."""
        if where == "dm":
            return dm_channel(who)
        existing = [c for c, p in self.m.channels.items() if p.exists]
        return existing[int(where[1:]) % len(existing)]

    def _discord_channel(self, channel: str, who: str) -> Any:
        return self.bot.channels[channel] if channel in self.m.channels else self.bot.dm(who, NAMES[MEMBERS.index(who)])

    # --- messages --------------------------------------------------------------------------------
    @initialize(history=st.lists(st.tuples(st.sampled_from(MEMBERS), WHERE, st.sampled_from(WORDS),
                                           st.one_of(st.none(), st.sampled_from(MEMBERS)),
                                           st.sampled_from(["said", "told", "remembered"])),
                                 min_size=1, max_size=4),
                events=st.lists(EVENT, max_size=12))  # fmt: skip
    def opening(self, history: list[tuple[str, str, str, str | None, str]], events: list[tuple[str, dict[str, Any]]]) -> None:
        """A few messages (or `remember` commands) drawn like any others (no scene), then a run of any events of the
        rules, checked once at its end: every rule has something to act on from the first step, facts with no
        stored message among them, and an example reaches sequences of events a few checked steps would not (a
        check of every read costs more than the events between them)."""
        for n, (who, where, word, mention, kind) in enumerate(history):
            if kind == "remembered":
                self.remember(who, where)
            else:
                self.say(who, where, [word], mention, n - 1 if n else None, 1, kind == "told", n)
        for name, args in events:
            getattr(self, name)(**args)

    @rule_of("say")
    def say(self, who: str, where: str, words: list[str], mention: str | None, reply: int | None, later: int,
            told: bool, other: int) -> None:  # fmt: skip
        """Anyone says something anywhere (opted out: the bot stores nothing), maybe replying to any message seen
        (another channel's, another guild's, a DM's); with `told`, the conversation is extracted at once."""
        channel = self.place(where, who)
        assert channel is not None
        self._post(who, channel, words, mention, reply, later)
        if told:
            self.extract(where, other, supersede=other % 2 == 0, who=who)

    def _post(self, who: str, channel: str, words: list[str], mention: str | None = None, reply: int | None = None,
              later: int = 1) -> Said | None:  # fmt: skip
        """A message of `who` in `channel` (or their DMs), as the bot hears it: what the model holds of it, if any."""
        guild = self.guild_of(channel)
        self.now += timedelta(minutes=later)
        self.next_id += 1
        message_id = str(self.next_id)
        ids = sorted(self.m.said)
        parent = ids[reply % len(ids)] if reply is not None and ids else None
        text = " ".join([*words, *([f"<@{mention}>"] if mention else [])])
        author = self.member(who, guild)
        target = self._discord_channel(channel, who)
        reply_channel = self.m.said[parent].channel if parent else None
        self.run(self.bot.say(message_id, author, target, text, self.now, parent, reply_channel))
        if who in self.m.opted_out or self.m.off(channel):
            return None
        self.m.said[message_id] = Said(message_id, guild, channel, who, self.now, text=text)
        if parent and self.m.said.get(parent) and self.m.said[parent].guild != guild:
            SHAPES["a reply to another guild's message"] += 1
        return self.m.said[message_id]

    @rule_of("bot_answers_in_dm")
    def bot_answers_in_dm(self, who: str, words: list[str]) -> None:
        """The bot's own answer in a member's DMs (stored in their DM space, unless they opted out)."""
        self.next_id += 1
        self.now += timedelta(minutes=1)
        message_id, text = str(self.next_id), " ".join(words)
        self.run(self.bot.say(message_id, self.bot.bot.user, self.bot.dm(who, NAMES[MEMBERS.index(who)]), text, self.now,
                              None, None))  # fmt: skip
        if who not in self.m.opted_out and who not in self.m.forgotten:
            self.m.said[message_id] = Said(message_id, f"dm:{who}", dm_channel(who), BOT, self.now, text=text)

    def _live(self) -> list[str]:
        return sorted(i for i, m in self.m.said.items() if not m.withdrawn and not m.gone)

    def _withdrawn(self, live: list[str], pick: int) -> str:
        """The message an edit or delete withdraws: every other time, one that is its channel's only source of a
        fact told elsewhere too (the fact stays, its audience narrows), one in a shared channel first (where the
        narrowing shows in every read); else any."""
        narrowing = [
            i for i in live for t in self.m.told.values()
            if i in t.evidence and len({c for c, _ in t.evidence.values()}) > 1
            and all(c != t.evidence[i][0] for m, (c, _) in t.evidence.items() if m != i)
        ]  # fmt: skip
        narrowing = [
            i for i in narrowing if self.m.said[i].channel in self.m.channels and self.m.shared(self.m.said[i].channel)
        ] or narrowing
        return narrowing[pick // 2 % len(narrowing)] if narrowing and pick % 2 == 0 else live[pick % len(live)]

    @rule_of("edit")
    def edit(self, pick: int, words: list[str]) -> None:
        """Its author edits a message (opted out since or not): what the old text told is withdrawn."""
        live = [i for i in self._live() if self.m.said[i].author != BOT]
        if not live:
            return
        said = self.m.said[self._withdrawn(live, pick)]
        self.now += timedelta(seconds=1)
        text = " ".join(words)
        author = self.member(said.author, said.guild)
        self.run(self.bot.edit(said.id, author, self._discord_channel(said.channel, said.author), text, self.now))
        if text == said.text:
            return  # an edit that changed no word (an embed, a pin): what it told stands
        self.m.withdraw({said.id})
        if said.author in self.m.opted_out:
            SHAPES["an opted-out member's edit"] += 1
            return  # it only removes: the message goes as if deleted, its new text never stored
        said.withdrawn, said.text = False, text

    @rule_of("delete")
    def delete(self, pick: int) -> None:
        live = self._live()
        if not live:
            return
        said = self.m.said[self._withdrawn(live, pick)]
        self.run(self.bot.delete(said.id, said.channel))
        self.m.withdraw({said.id})

    @rule_of("bulk_delete")
    def bulk_delete(self, pick: int, many: int) -> None:
        """A purge: several messages of one channel (or DM) deleted in one event."""
        live = self._live()
        if not live:
            return
        channel = self.m.said[live[pick % len(live)]].channel
        ids = [i for i in live if self.m.said[i].channel == channel][:many]
        guild = self.guild_of(channel)
        self.run(self.bot.bulk_delete(ids, channel, None if guild.startswith("dm:") else guild))
        self.m.withdraw(set(ids))

    # --- what extraction and commands write --------------------------------------------------------
    @rule_of("extract")
    def extract(self, where: str, other: int, supersede: bool, who: str) -> None:
        """Close a channel's waiting messages as one episode, with what an LLM would draw: a fact about the first
        author from the first message (maybe superseding an open fact about them), and one about the last author
        from the last message and a message of another channel of the guild."""
        channel = self.place(where, who)
        assert channel is not None
        waiting = sorted((m for m in self.m.said.values() if m.channel == channel and not m.episode and not m.withdrawn
                          and not m.gone), key=lambda m: (m.at, m.id))  # fmt: skip
        if not waiting:
            return
        guild = waiting[0].guild
        key = f"{channel}:{waiting[0].id}:{len(self.m.told)}"
        people = sorted({m.author for m in waiting if m.author != BOT})
        close_ = EpisodeClose(key=key, uuid=self.new_uuid(), guild_id=guild, channel_id=channel, started_at=waiting[0].at,
                              ended_at=waiting[-1].at, message_ids=tuple(m.id for m in waiting),
                              participant_ids=tuple(people))  # fmt: skip
        self.run(close_episode(self.store, close_))
        for m in waiting:
            m.episode = True
        first, last = waiting[0], waiting[-1]
        elsewhere = sorted(m.id for m in self.m.said.values() if m.guild == guild and m.channel != channel
                           and not m.withdrawn and not m.gone)  # fmt: skip
        plan: list[tuple[Said, list[Said]]] = [(first, [first])]
        if elsewhere:
            plan.append((last, [last, self.m.said[elsewhere[other % len(elsewhere)]]]))
        facts: list[FactWrite] = []
        for subject, sources in plan:
            about = subject.author if subject.author != BOT else guild[3:]
            old = self._superseded(guild, about, other) if supersede and not facts else []
            about = next(iter(self.m.told[old[0]].about)) if old else about
            if about in self.m.opted_out | self.m.forgotten or any(s.author in self.m.opted_out for s in sources):
                continue
            n = len(self.m.told) + 1
            text = f"F{n}x {WORDS[n % len(WORDS)]} kernel"
            fact = FactWrite(uuid=self.new_uuid(), text=text, importance=5, valid_at=sources[0].at,
                             about=(NodeRef(kind="user", id=about),),
                             reports=tuple(Report(user_id=s.author, message_id=s.id, at=s.at) for s in sources),
                             source_message_ids=tuple(s.id for s in sources), supersedes=tuple(old),
                             embedding=tuple(unit(n)))  # fmt: skip
            facts.append(fact)
            self.m.told[fact.uuid] = Told(fact.uuid, guild, text, {about}, set(),
                                          {s.id: (s.channel, s.author) for s in sources}, supersedes=set(old))  # fmt: skip
            self.m.closed |= set(old)
            if old and len({c for u in [*old, fact.uuid] for c, _ in self.m.told[u].evidence.values()}) > 1:
                SHAPES["supersession across channels"] += 1
        write = EpisodeWrite(key=key, guild_id=guild, summary="they talked", facts=tuple(facts), people=tuple(people))
        self.run(write_episode(self.store, write, now=self.now))

    def _superseded(self, guild: str, about: str, other: int) -> list[str]:
        """The open fact a new one supersedes: the latest about the same member, else any open fact of the guild (told
        in any channel of it: the new fact is then about its subject), so that what closes a fact is often told
        where the fact was not."""
        open_ones = sorted(u for u, t in self.m.told.items() if t.guild == guild and u not in self.m.closed
                           and len(t.about) == 1 and not t.about & (self.m.opted_out | self.m.forgotten))  # fmt: skip
        mine = [u for u in open_ones if about in self.m.told[u].about]
        return mine[-1:] or ([open_ones[other % len(open_ones)]] if open_ones else [])

    @rule_of("restate")
    def restate(self, pick: int, where: str, who: str) -> None:
        """Someone says again, in any channel of its guild, what an open fact already holds, and extraction draws
        it again: the stored fact gains that message as a source (its channel joins the audience), not a twin."""
        channel = self.place(where, who)
        assert channel is not None
        guild = self.guild_of(channel)
        held = sorted(u for u, t in self.m.told.items() if t.guild == guild and u not in self.m.closed and len(t.about) == 1
                      and t.evidence and all(m in self.m.said for m in t.evidence) and who not in {r for _, r in t.evidence.values()}
                      and not t.about & (self.m.opted_out | self.m.forgotten))  # fmt: skip
        # (told by messages alone, said again by a member not among its reporters: a corroboration)
        # (a fact with nothing left that told it is gone from the store, or shown nowhere: what is said again is new)
        if not held or who in self.m.opted_out or self.m.off(channel):
            return
        told = self.m.told[held[pick % len(held)]]
        before = {c for c, _ in told.evidence.values()}
        said = self._post(who, channel, [WORDS[pick % len(WORDS)]])
        assert said is not None
        self._drawn(said, told.text, next(iter(told.about)), "they said it again")
        told.evidence[said.id] = (channel, who)
        if channel not in before:
            SHAPES["a fact restated in another channel"] += 1

    def _drawn(self, said: Said, text: str, about: str, summary: str, supersedes: tuple[str, ...] = ()) -> str:
        """Extraction of one message as an episode of its own, drawing one fact about `about` from it (the uuid)."""
        key = f"{said.channel}:{said.id}:{summary}"
        close_ = EpisodeClose(key=key, uuid=self.new_uuid(), guild_id=said.guild, channel_id=said.channel,
                              started_at=said.at, ended_at=said.at, message_ids=(said.id,), participant_ids=(said.author,))  # fmt: skip
        self.run(close_episode(self.store, close_))
        said.episode = True
        fact = FactWrite(uuid=self.new_uuid(), text=text, importance=5, valid_at=said.at,
                         about=(NodeRef(kind="user", id=about),),
                         reports=(Report(user_id=said.author, message_id=said.id, at=said.at),),
                         source_message_ids=(said.id,), supersedes=supersedes,
                         embedding=tuple(unit(int(text[1:].split("x")[0]))))  # fmt: skip
        write = EpisodeWrite(key=key, guild_id=said.guild, summary=summary, facts=(fact,), people=(said.author,))
        self.run(write_episode(self.store, write, now=self.now))
        return fact.uuid

    @rule_of("correct")
    def correct(self, pick: int, who: str) -> None:
        """Someone corrects an open fact in a channel of its guild where it was not told, and extraction draws the
        correction, superseding it: every other time in a channel that is not shared, so that one side of the
        supersession is seen where the other is not (a timeline shows both sides only where both may be seen)."""
        if who in self.m.opted_out:
            return
        open_ones = sorted(u for u, t in self.m.told.items() if u not in self.m.closed and len(t.about) == 1 and t.evidence
                           and not t.about & (self.m.opted_out | self.m.forgotten))  # fmt: skip
        if not open_ones:
            return
        old = self.m.told[open_ones[pick % len(open_ones)]]
        told_in = {c for c, _ in old.evidence.values()}
        elsewhere = [c for c, p in self.m.channels.items()
                     if p.exists and p.guild == old.guild and c not in told_in and not self.m.off(c)]  # fmt: skip
        unshared = [c for c in elsewhere if not self.m.shared(c)]
        choices = unshared if unshared and pick % 2 == 0 else elsewhere
        if not choices:
            return
        said = self._post(who, choices[pick // 2 % len(choices)], [WORDS[pick % len(WORDS)]])
        assert said is not None
        n = len(self.m.told) + 1
        text, about = f"F{n}x {WORDS[n % len(WORDS)]} kernel", next(iter(old.about))
        uuid_ = self._drawn(said, text, about, "they corrected it", supersedes=(old.uuid,))
        self.m.told[uuid_] = Told(uuid_, old.guild, text, {about}, set(), {said.id: (said.channel, who)}, supersedes={old.uuid})
        self.m.closed.add(old.uuid)
        SHAPES["a fact corrected in another channel" + ("" if self.m.shared(said.channel) else ", not shared")] += 1

    def _speaker(self, who: str) -> str:
        """`who`, or (they never spoke) one who did: a rule about a member acts on a member the store holds."""
        spoke = sorted({m.author for m in self.m.said.values() if m.author != BOT and m.author not in self.m.forgotten})
        return who if who in spoke or not spoke else spoke[MEMBERS.index(who) % len(spoke)]

    @rule_of("remember")
    def remember(self, who: str, where: str) -> None:
        """ "remember that ..." by a slash command: no stored message, told in the channel it was given in."""
        who = self._speaker(who)
        if who in self.m.opted_out or not any(m.author == who for m in self.m.said.values()):
            return
        channel = self.place(where, who)
        assert channel is not None
        guild, n = self.guild_of(channel), len(self.m.told) + 1
        # as the bot (bot/memory/_facts.py): the command's author stored first, in the guild it was given in (a
        # moderator's forget elsewhere may have taken their account, and the fact needs them as its subject)
        name = NAMES[MEMBERS.index(who)]
        self.run(upsert_users(self.store, [User(id=who, name=name, display_name=name)], guild))
        text = f"F{n}x remembered kernel"
        fact = FactWrite(uuid=self.new_uuid(), text=text, valid_at=self.now, about=(NodeRef(kind="user", id=who),),
                         reports=(Report(user_id=who, message_id=None, at=self.now),), channel_id=channel,
                         source="command", embedding=tuple(unit(n)))  # fmt: skip
        self.run(write_command_facts(self.store, guild, [fact]))
        self.m.told[fact.uuid] = Told(fact.uuid, guild, text, {who}, set(), {f"command:{fact.uuid}": (channel, who)})
        SHAPES["a fact remembered by a command"] += 1

    # --- channels ----------------------------------------------------------------------------------
    @rule_of("channel_created")
    def channel_created(self, which: str, visible: bool) -> None:
        """A channel or thread created (a thread private, or public: then it follows its parent)."""
        place = self.m.channels[which]
        if place.exists or place.deleted or (place.parent and not self.m.channels[place.parent].exists):
            return
        place.view = visible
        self.run(self._create(which))

    @rule_of("everyone_may_view")
    def everyone_may_view(self, which: str) -> None:
        """A permission overwrite: @everyone may view the channel now, or no longer (its threads get no event)."""
        place = self.m.channels[which]
        if not place.exists:
            return
        visible = not place.view
        if visible and not place.mode_set:
            SHAPES["a private channel made public on Discord"] += 1
        if not visible and place.mode == "shared":
            SHAPES["a shared channel hidden from @everyone" + (" after its mode was set" if place.mode_set else "")] += 1
        place.view = visible
        self.run(self.bot.everyone_may_view(which, visible))
        self.m.seen(which)

    @rule_of("made_public")
    def made_public(self, pick: int) -> None:
        """Discord shows a channel @everyone could not view (most often one where something was told): a rule of its
        own, so that a short run meets it. It stays private until a moderator sets it shared."""
        hidden = [c for c, p in self.m.channels.items() if p.exists and not p.thread and not p.view]
        if not hidden:
            return
        told = [c for c in hidden if any(c == e[0] for t in self.m.told.values() for e in t.evidence.values())]
        self.everyone_may_view((told or hidden)[pick % len(told or hidden)])

    @rule_of("member_leaves")
    def member_leaves(self, who: str, guild: str, back: bool) -> None:
        """A member leaves a guild (maybe joining again): the bot keeps what it holds of them (nothing listens to a
        member leaving), so every read shows what it showed; Discord no longer lists them there."""
        self.run(self.bot.member_left(who, guild))
        SHAPES["a member left a guild"] += 1
        if back:
            self.run(self.bot.member_joined(who, NAMES[MEMBERS.index(who)], guild))

    @rule_of("thread_archived")
    def thread_archived(self, pick: int) -> None:
        threads = [c for c, p in self.m.channels.items() if p.thread and p.exists]
        self.run(self.bot.thread_archived(threads[pick % len(threads)]))

    @rule_of("restarted")
    def restarted(self) -> None:
        """The bot starts again: every channel and thread refreshed from Discord."""
        self.run(self.bot.restarted())
        for channel, place in self.m.channels.items():
            if place.exists:
                self.m.seen(channel)

    @rule_of("moderator_sets_mode")
    def moderator_sets_mode(self, where: str, mode: str, by: str) -> None:
        """`/memory mode` in any order; switching off, the moderator deletes what the channel holds."""
        channel = self.place(where, by)
        assert channel is not None
        guild = self.guild_of(channel)
        if self.m.channels[channel].mode == "shared" and mode == "private":
            SHAPES["a shared channel made private"] += 1
        self.run(self.bot.set_mode(guild, channel, mode, self.member(by, guild)))
        self.m.set_mode(channel, mode)
        if mode == "off":
            threads = {c for c, p in self.m.channels.items() if p.parent == channel}
            if any(m.gone for m in self.m.said.values() if m.channel in {channel, *threads}):
                SHAPES["a channel switched off after retention"] += 1
            self.m.erase_places({channel, *threads})

    @rule_of("channel_deleted")
    def channel_deleted(self, which: str) -> None:
        """A channel (its threads with it) or a thread deleted on Discord: what was said there goes, as switched off."""
        place = self.m.channels[which]
        if not place.exists:
            return
        gone = {which} | {c for c, p in self.m.channels.items() if p.parent == which and p.exists}
        self.run(self.bot.channel_deleted(which))
        self.m.erase_places(gone)
        for c in gone:
            self.m.channels[c].exists, self.m.channels[c].deleted = False, True
        SHAPES["a channel deleted"] += 1

    @rule_of("retention")
    def retention(self, days: int) -> None:
        self.run(apply_retention(self.store, messages_days=days, closed_facts_days=0, now=self.now))
        cutoff = self.now - timedelta(days=days)
        for m in self.m.said.values():
            if m.at < cutoff:
                m.gone = True

    @rule_of("migration")
    def migration(self) -> None:
        """A graph written before facts stored their audience, started again: the audience rebuilt from the
        messages still stored, else the episode's channel, else none (no member sees it)."""
        self.run(self.store.driver.execute_query("MATCH (f:Fact) REMOVE f.audience", database_=self.store.engine.database))
        self.run(backfill_audience(self.store.runner))
        for told in self.m.told.values():
            kept = {m: e for m, e in told.evidence.items() if m in self.m.said and not self.m.said[m].gone}
            if kept != told.evidence:
                told.migrated = True
                SHAPES["an audience rebuilt without all its messages"] += 1
            first = next((e for m, e in told.evidence.items() if m in self.m.said), None)
            told.evidence = kept or ({"episode": first} if first else {})

    # --- consent -----------------------------------------------------------------------------------
    @rule_of("opt_out")
    def opt_out(self, who: str) -> None:
        """A member opts out (most often one who reported a fact that stays, shown without them; else one who spoke)."""
        reporters = sorted({r for t in self.m.told.values() for _, r in t.evidence.values()} - self.m.opted_out - {BOT})
        who = who if who in reporters or not reporters else reporters[MEMBERS.index(who) % len(reporters)]
        who = self._speaker(who) if not reporters else who
        self.run(self.bot.opt_out(self.member(who, None)))
        self.m.opted_out.add(who)

    @rule_of("opt_in")
    def opt_in(self, who: str) -> None:
        if who in self.m.forgotten:
            return
        self.run(self.bot.opt_in(self.member(who, None)))
        self.m.opted_out.discard(who)

    @rule_of("forget_me")
    def forget_me(self, who: str) -> None:
        self.run(self.bot.forget_me(self.member(who, None)))
        self.m.forgotten.add(who)
        self.m.opted_out.add(who)
        for m in self.m.said.values():
            if m.author == who or m.guild == f"dm:{who}":
                m.gone = True
        for told in self.m.told.values():  # their reports go: a fact only they reported goes with them
            told.evidence = {k: e for k, e in told.evidence.items() if e[1] != who}

    @rule_of("moderator_forgets")
    def moderator_forgets(self, who: str, by: str, guild: str) -> None:
        """A moderator forgets a member in one guild: nothing about them or by them is shown there again."""
        if who == by:
            return
        self.run(self.bot.forget_member(guild, who, self.member(by, guild)))
        for m in self.m.said.values():
            if m.author == who and m.guild == guild:
                m.gone = True
        for told in self.m.told.values():
            if told.guild == guild and who in told.about | told.mentions:
                told.evidence = {}
            elif told.guild == guild:
                told.evidence = {k: e for k, e in told.evidence.items() if e[1] != who}

    # --- the invariant -------------------------------------------------------------------------------
    def _check_facts(self, read: str, facts: list[FactView], channel: str, guild: str) -> None:
        visible = self.m.visible(channel, guild)
        for f in facts:
            assert self.m.may_show_fact(f.uuid, visible, guild), (read, channel, f.text, self.m.told.get(f.uuid), self._modes())
            for user_id, _, _ in f.reporters:
                assert self.m.may_show_reporter(f.uuid, user_id, visible), (read, channel, "reporter", user_id, f.text)
            assert all(c in visible for _, c in f.shown), (read, channel, f.shown)
            if f.superseded_by:
                assert self.m.may_show_fact(f.superseded_by, visible, guild), (read, "superseded by", f)

    def _modes(self) -> dict[str, tuple[str | None, bool, bool]]:
        return {c[1] + c[-2:]: (p.mode, p.mode_set, self.m.viewable(c)) for c, p in self.m.channels.items() if p.exists}

    def _check_messages(self, read: str, ids: list[str], channel: str, guild: str) -> None:
        visible = self.m.visible(channel, guild)
        for i in ids:
            assert self.m.may_show_message(i, visible, guild), (read, channel, i, self.m.said.get(i), self._modes())

    def _check_answer(self, read: str, texts: list[str], channel: str, guild: str) -> None:
        """What the bot answered a member: every fact it names is one the model allows there."""
        visible = self.m.visible(channel, guild)
        numbered = {t.text.split()[0]: u for u, t in self.m.told.items()}
        for text in texts:
            for n in FACT.findall(text):
                u = numbered.get(f"F{n}x", "")
                assert self.m.may_show_fact(u, visible, guild), (read, channel, text, self.m.told.get(u), self._modes())
            for who in self.m.forgotten:
                assert who not in text, (read, channel, "a forgotten member's id", text)

    def _exact_about(self, who: str, facts: list[FactView], channel: str, guild: str, read: str = "memory about") -> None:
        """/memory about's store read: every open fact about them the model allows (but after a migration, which
        may rebuild an audience from the episode's channel alone: a bound, not exact)."""
        visible = self.m.visible(channel, guild)
        expected = {
            u
            for u, t in self.m.told.items()
            if who in t.about and u not in self.m.closed and self.m.may_show_fact(u, visible, guild) and not t.migrated
        }
        found = {f.uuid for f in facts if who in f.about_ids}
        missing = expected - found
        assert not missing, (read + " misses", channel, who, [self.m.told[u] for u in missing], self._modes())

    def _exact_matched(self, read: str, facts: list[FactView], channel: str, guild: str) -> None:
        """A reply's second round, given every stored message: every open fact drawn from one of them that the model
        allows here (up to the read's limit; a rebuilt audience is a bound, not exact)."""
        visible = self.m.visible(channel, guild)

        def stored(message: str) -> bool:
            said = self.m.said.get(message)
            return said is not None and not said.gone and not said.withdrawn

        expected = {u for u, t in self.m.told.items() if u not in self.m.closed and not t.migrated
                    and any(stored(m) for m in t.evidence) and self.m.may_show_fact(u, visible, guild)}  # fmt: skip
        missing = expected - {f.uuid for f in facts}
        if len(expected) <= 40:
            assert not missing, (read + " misses", channel, [self.m.told[u] for u in missing], self._modes())

    async def _reads(self, channel: str, commands: bool) -> None:
        guild = self.guild_of(channel)
        author = MEMBERS[len(self.m.said) % len(MEMBERS)]
        last = max(self.m.said, default=None)
        who_knows = {"guild_id": guild, "topic": "kernel", "channel_id": channel, "hits": 200}
        subjects = sorted({a for t in self.m.told.values() if t.guild == guild for a in t.about})
        # as a reply asks it (recall/gather.py): every member mentioned and named, the author among them, and the
        # author and the bot skipped as members named (the author's facts are the author's source)
        skipped = [author, BOT]
        asked = FactRequest(guild, author_id=author, mentioned_ids=MEMBERS, names=NAMES, entity_keys=[],
                            text="kernel vault code", skip_ids=skipped, now=self.now, channel_id=channel)  # fmt: skip
        round_asked = self._round(channel)
        results: list[Any] = await asyncio.gather(
            context_reads.reply_facts(self.store, asked),
            context_reads.reply_facts_read(self.store, asked),  # the same read as one statement (recall's option)
            context_reads.nearest_facts(self.store, guild, unit(1), now=self.now, limit=50, channel_id=channel),
            context_reads.second_round(self.store, round_asked),
            context_reads.second_round_read(self.store, round_asked),
            self._conversation(channel, author, last),
            context_reads.passage_turns(self.store, guild, channel, ids=sorted(self.m.said), at=self.now, reach=3),
            topics._read_parts(self.store, "operator/who_knows", who_knows, (0, 2)),
            *(facts_about(self.store, guild, user_ids=[who], now=self.now, limit=100, channel_id=channel) for who in subjects),
            *(topics.timeline(self.store, guild, user_id=who, channel_id=channel, opted_out=self.reader.opted_out)
              for who in subjects),
        )  # fmt: skip
        found, statement, nearest, rounds, rounds_read, talk, passages, knowing, *per_member = results
        for read, facts in (("context facts", found), ("context facts, one statement", statement)):
            self._check_facts(read, [f for shown in facts.values() for f in shown], channel, guild)
            self._exact_about(author, facts["author"], channel, guild, read + " (the author's)")
            named = [f for f in facts["people"] if not set(f.about_ids) - set(skipped)]
            assert not named, (read + ": a skipped member's facts among the members named", channel, skipped, named)
        self._check_facts("nearest facts", nearest, channel, guild)
        for read, second in (("second round", rounds), ("second round, one statement", rounds_read)):
            self._check_round(read, second, channel, guild)
        self._check_talk(talk, channel, guild)
        self._check_messages("passages", [m.id for turns in passages.values() for _, m in turns], channel, guild)
        abouts, lines = per_member[: len(subjects)], per_member[len(subjects) :]
        for who, about in zip(subjects, abouts, strict=True):
            self._check_facts("memory about", about, channel, guild)
            self._exact_about(who, about, channel, guild)
        for who, line in zip(subjects, lines, strict=True):
            self._check_timeline(line, channel, guild, who)
        self._check_knowing("who knows", knowing, channel, guild)
        if commands:  # (a forgotten member asked about by id is echoed back: not what the check looks for)
            await self._commands(channel, guild, [s for s in subjects if s not in self.m.forgotten])

    def _round(self, channel: str) -> RoundRequest:
        """A reply's second round as recall asks it, given every fact and every message the model holds."""
        return RoundRequest(self.guild_of(channel), channel, uuids=sorted(self.m.told), message_ids=sorted(self.m.said),
                            at=self.now)  # fmt: skip

    def _check_round(self, read: str, second: Any, channel: str, guild: str) -> None:
        self._check_facts(read, second.matched, channel, guild)
        self._check_messages(read + " evidence", [m.id for _, _, m in second.evidence], channel, guild)
        self._exact_matched(read, second.matched, channel, guild)

    async def _rounds_again(self, where: list[str]) -> None:
        """A reply's second round in every channel again, with nothing written between: the reads above hold the
        guilds' facts at their counts, so the read model answers them now (graph/reads/context.py), whichever
        of the reads above it raced with."""
        for guild in sorted({self.guild_of(c) for c in where}):
            held = fact_model.current(self.store, guild, await fact_model.reply_count(self.store, guild))
            SHAPES["a second round answered by the read model"] += held is not None
        rounds = await asyncio.gather(*(context_reads.second_round(self.store, self._round(c)) for c in where))
        for channel, second in zip(where, rounds, strict=True):
            self._check_round("second round again, answered by the read model", second, channel, self.guild_of(channel))

    def _conversation(self, channel: str, author: str, reply_to: str | None) -> Any:
        return context_reads.conversation(
            self.store, self.guild_of(channel), channel, author_id=author, at=self.now + timedelta(seconds=1),
            reply_to_id=reply_to, text="kernel vault merger code", recall=10, older_episodes=3, tuning=RecallTuning(),
        )  # fmt: skip

    def _check_talk(self, talk: Any, channel: str, guild: str) -> None:
        for part, messages in (("recent", talk.recent), ("chain", talk.chain), ("recalled", talk.recalled),
                               ("around", [m for _, m in talk.around]), ("older", talk.older.matches)):  # fmt: skip
            self._check_messages(f"conversation {part}", [m.id for m in messages], channel, guild)

    async def _talk_again(self, where: list[str]) -> None:
        """Replies in every channel again, twice, with nothing written between: the reads above held the guilds'
        facts, these hold every channel's talk (graph/reads/talk_model.py) and then answer from it, a reply chain
        that reaches another channel's messages included."""
        author = MEMBERS[len(self.m.said) % len(MEMBERS)]
        last = max(self.m.said, default=None)
        for _ in range(2):
            talks = await asyncio.gather(*(self._conversation(c, author, last) for c in where))
            for channel, talk in zip(where, talks, strict=True):
                self._check_talk(talk, channel, self.guild_of(channel))

    async def _commands(self, channel: str, guild: str, subjects: list[str]) -> None:
        """/memory about, who-knows and timeline as the bot answers a member in `channel`."""
        asker = next((m for m in MEMBERS if m not in self.m.opted_out), MEMBERS[0])
        member = self.member(asker, guild)
        where = self._discord_channel(channel, asker)
        discord_guild = None if guild.startswith("dm:") else self.bot.guild(guild)
        for name, args in [("who_knows_command", ("kernel",)), *(("about_command", (self.member(s, guild),)) for s in subjects[:2]),
                           *(("timeline_command", (f"<@{s}>",)) for s in subjects[:1])]:  # fmt: skip
            interaction = MockInteraction(user=member, guild=discord_guild, channel=where, created_at=self.now)
            await invoke(getattr(self.bot.memory, name), self.bot.memory, interaction, *args)
            self._check_answer(f"/memory {name}", sent_texts(interaction.followup.send), channel, guild)

    def _check_timeline(self, line: list[topics.TimelineFact], channel: str, guild: str, who: str) -> None:
        """Sound (nothing the model forbids, reporters and both sides of a supersession included) and complete: every
        fact about them the model allows, with every side of its supersessions the model allows."""
        visible = self.m.visible(channel, guild)
        by_text = {t.text: u for u, t in self.m.told.items()}
        missing = self.m.facts_about(who, visible, guild) - {f.uuid for f in line}
        assert not missing, ("timeline misses", channel, who, [self.m.told[u] for u in missing], self._modes())
        for f in line:
            if f.uuid in self.m.told:
                older, newer = self.m.sides(f.uuid, visible, guild)
                assert older <= {by_text.get(o.text) for o in f.supersedes}, ("timeline misses what it closed", f, older)
                assert newer <= {by_text.get(o.text) for o in f.superseded_by}, ("timeline misses what closed it", f, newer)
            assert self.m.may_show_fact(f.uuid, visible, guild), ("timeline", channel, f.text, self.m.told.get(f.uuid))
            for other in (*f.supersedes, *f.superseded_by):
                assert self.m.may_show_fact(by_text.get(other.text, other.uuid), visible, guild), ("the other side", other)
                SHAPES["a supersession shown where both sides may be seen"] += 1
            for r in f.reporters:
                assert r.user_id not in self.m.opted_out, ("timeline", "an opted-out reporter", f.reporters)
                assert self.m.may_show_reporter(f.uuid, r.user_id, visible), ("timeline", channel, "reporter", r, f.text)
            assert all(s.channel_id in visible for s in f.sources), ("timeline", channel, f.sources)

    def _check_knowing(self, read: str, rows: list[dict[str, Any]], channel: str, guild: str, exact: bool = True,
                       hidden: frozenset[str] = frozenset()) -> None:  # fmt: skip
        """Sound, and complete too: every report of a fact the model allows there is listed (but `hidden`'s)."""
        visible = self.m.visible(channel, guild)
        if exact:
            found = {(str(r["ref"]), str(r["user_id"])) for r in rows if r["kind"] == "fact"}
            missing = {p for p in self.m.reports_shown(visible, guild) if p[1] not in hidden} - found
            assert not missing, (read, channel, "misses", [(self.m.told[u], r) for u, r in missing], self._modes())
        for r in rows:
            user = str(r["user_id"])
            assert user not in self.m.forgotten, (read, r)
            if r["kind"] == "fact":
                assert self.m.may_show_fact(str(r["ref"]), visible, guild), (read, channel, r, self._modes())
                assert self.m.may_show_reporter(str(r["ref"]), user, visible), (read, channel, "reporter", r)
            else:
                assert self.m.may_show_message(str(r["ref"]), visible, guild), (read, channel, r)
            if r.get("channel_id"):
                assert r["channel_id"] in visible, (read, channel, r)

    async def _mcp(self) -> None:
        async def tool(name: str, arguments: dict[str, Any]) -> Any:
            try:
                called = await self.mcp.call_tool(name, arguments)
            except Exception as exc:  # the SDK wraps what the tool raised: show that
                raise (exc.__cause__ or exc) from exc
            assert not getattr(called, "is_error", False), (name, called)
            data = getattr(called, "structured_content", None)
            rows: list[dict[str, Any]] = data["result"] if isinstance(data, dict) and set(data) == {"result"} else data or []
            notes = [r for r in rows if set(r) == {"note"}]  # an empty answer says why, and shows nothing else
            assert not notes or notes == rows, (name, rows)
            assert all("<@" not in n["note"] and not any(t.text in n["note"] for t in self.m.told.values()) for n in notes)
            return [r for r in rows if set(r) != {"note"}]

        visible = self.m.visible("", G1)
        by_text = {t.text: u for u, t in self.m.told.items()}
        for who in MEMBERS:
            for name in ("facts", "timeline"):
                rows = await tool(name, {"subject": who})
                if name == "timeline":
                    missing = self.m.facts_about(who, visible, G1) - {row["uuid"] for row in rows}
                    assert not missing, ("mcp timeline misses", who, [self.m.told[u] for u in missing], self._modes())
                for row in rows:
                    assert self.m.may_show_fact(row["uuid"], visible, G1), ("mcp " + name, row, self._modes())
                    assert who not in self.m.opted_out, ("mcp " + name, "an opted-out member asked by id", row)
                    for text in [*row["supersedes"], *row["superseded_by"]]:
                        assert self.m.may_show_fact(by_text.get(text, ""), visible, G1), ("mcp " + name, "other side", text)
                    assert not {r["user_id"] for r in row["reported_by"]} & self.m.opted_out, ("mcp " + name, row)
            wrote_here = any(m.author == who and m.guild == G1 and not m.withdrawn and not m.gone for m in self.m.said.values())
            if wrote_here and who not in self.m.opted_out:  # (an opted-out member is found by no name: refused)
                # asked by their name as a person writes it: in another case or normal form (resolved casefolded)
                name = FORMS[ScopeMachine.steps % len(FORMS)](NAMES[MEMBERS.index(who)])
                rows = await tool("timeline", {"subject": name})
                missing = self.m.facts_about(who, visible, G1) - {row["uuid"] for row in rows}
                assert not missing, ("mcp timeline by name misses", name, [self.m.told[u] for u in missing], self._modes())
            for row in await tool("run_query", {"name": "topic_timeline", "params": {"user_id": who}}):
                assert self.m.may_show_fact(row["uuid"], visible, G1), ("mcp run_query topic_timeline", row)
                assert not {str(r["id"]) for r in row["reporters"]} & self.m.opted_out, ("mcp topic_timeline", row)
        knowers = await tool("who_knows", {"topic": "kernel"})
        assert not {k["user_id"] for k in knowers} & self.m.opted_out, ("mcp who_knows", knowers)
        rows = await tool("run_query", {"name": "who_knows", "params": {"topic": "kernel"}})
        self._check_knowing("mcp run_query who_knows", rows, "", G1, hidden=frozenset(self.m.opted_out))
        assert not {str(r["user_id"]) for r in rows} & self.m.opted_out, ("mcp run_query who_knows", rows)

    @invariant()
    def every_mode_is_the_models(self) -> None:
        """Every channel's mode as `/memory status` lists it to a moderator (mode, set or not, what @everyone may
        view) and as the listener holds it (what it skips) is the model's: a change of mode shows here at the
        step it happens, before anything is said there that a read would show elsewhere."""
        listed = {guild: dict(LISTED.findall(self.run(self.bot.memory.status_text(guild)))) for guild in (G1, G2)}
        for channel, place in self.m.channels.items():
            if not place.exists:
                continue
            name, shown = self.bot.channels[channel].name, listed[place.guild]  # (names are a guild's own)
            seen = "everyone can view" if place.stored_view else "restricted"
            expected = f"{place.mode}{' (set)' if place.mode_set else ''}, {seen}"
            assert shown.get(name) == expected, ("/memory status", channel, shown.get(name), expected, self._modes())
            held = self.bot.services.channel_modes.get(channel)
            assert held == place.mode, ("the listener's mode", name, held, place.mode, self._modes())

    @invariant()
    def every_read_shows_what_the_model_allows(self) -> None:
        ScopeMachine.steps += 1
        talked = {m.channel for m in self.m.said.values()}
        where = [c for c, p in self.m.channels.items() if p.exists]
        where += [dm_channel(i) for i in MEMBERS if i not in self.m.forgotten and dm_channel(i) in talked]

        async def every_read() -> None:
            # the bot's commands (the same store reads, answered as text) in a third of the places each step, in turn
            turn = ScopeMachine.steps % 3
            await asyncio.gather(*(self._reads(c, n % 3 == turn) for n, c in enumerate(where)), self._mcp())
            started = time.monotonic()
            await self._rounds_again(where)
            await self._talk_again(where)
            ScopeMachine.talk_seconds += time.monotonic() - started

        self.run(every_read())
        held = "\n".join(fact_model.model_of(self.store).strings())  # the reply's read model, searched
        for who in self.m.forgotten:
            assert who not in held, ("a forgotten member's id in the read model", who)


@pytest.mark.slow
def test_scope_holds_over_any_sequence_of_events(arcadedb_server: ArcadeDBEngine) -> None:
    ScopeMachine.runs = ScopeMachine.steps = 0
    ScopeMachine.talk_seconds = 0.0
    SHAPES.clear()
    started = time.monotonic()
    with machine_store(arcadedb_server, DIMENSION) as (ScopeMachine.loop, ScopeMachine.shared_store):
        run_state_machine_as_test(ScopeMachine, settings=profile(ci=(12, 5), long=(60, 25)))
    print(
        f"scope model ({PROFILE}): {ScopeMachine.runs} examples, {ScopeMachine.steps} checked states "
        f"in {time.monotonic() - started:.0f} s ({ScopeMachine.talk_seconds:.0f} s of them replies read again); shapes met: {dict(sorted(SHAPES.items()))}"
    )
