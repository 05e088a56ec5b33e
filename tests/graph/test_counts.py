"""Each guild's kept counts (graph/counts.py) against a fresh recount, after any sequence of the graph's writers on
the real engine (embedded ArcadeDB): Hypothesis runs recording (a message recorded twice too), extraction (an
episode closed, its entities and facts written, a fact said again), facts told to the bot, edits, deletes (the
recorder's and the erasure's), an opt-out said in a message, a member's forget-me and a moderator's forget,
retention, a channel switched off, facts deleted by a moderator and a guild reset; after each, every guild's kept
counts equal a recount through the guild_id indexes (store/guild_counts.cypher), or are not kept (a guild node made
again), and a read of them keeps them from there (what `memory status` does). And every statement that creates or
deletes a counted node is one the counts follow: read from the query files, so a new one is not missed. The guild's
days (ActivityDay) are held to a recount beside the counts, in the machine and after each way facts close."""

from __future__ import annotations

import asyncio
import re
from datetime import UTC, datetime, timedelta
from typing import Any

from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, invariant, precondition, rule, run_state_machine_as_test

import queries
from graph import counts
from graph.engines.arcadedb import ArcadeDBEngine
from graph.models import (
    Channel,
    ChannelKind,
    EntityWrite,
    EpisodeClose,
    EpisodeWrite,
    FactWrite,
    Guild,
    Message,
    NodeRef,
    Report,
    User,
)
from graph.privacy import erasure
from graph.privacy.forget import drop_command_trace, forget_user
from graph.privacy.retention import apply_retention, retire_expired
from graph.privacy.user_cap import enforce_user_cap
from graph.reads.activity import recent_activity
from graph.reads.stats import backfill, guild_counts, guild_totals, recount_every_guild
from graph.store import GraphStore
from graph.writes.discord_records import upsert_channel, upsert_guild
from graph.writes.episodes import close_episode, write_command_facts, write_episode
from graph.writes.guild_reset import reset_guild
from graph.writes.messages import delete_message, record_batch
from tests.support.machine_profiles import profile
from tests.support.machine_store import emptied, machine_store

G1, G2 = "710000000000000001", "720000000000000002"
CHANNELS = {"711000000000000001": G1, "711000000000000002": G1, "721000000000000001": G2}
MEMBERS = [str(730000000000000001 + i) for i in range(3)]
T0 = datetime(2026, 3, 1, 12, 0, tzinfo=UTC)
LABELS = {"Fact", "Entity", "Message", "Episode"}


class CountsMachine(RuleBasedStateMachine):
    loop: asyncio.AbstractEventLoop
    shared_store: GraphStore
    checked = 0

    def __init__(self) -> None:
        super().__init__()
        self.store = self.run(emptied(self.shared_store))
        self.now = T0
        self.next_id = 740000000000000000
        self.uuids = 0
        self.ids: list[str] = []  # every message id recorded, to draw edits, deletes and repeats from
        self.facts: dict[str, str] = {}  # fact uuid -> guild, of facts written
        self.run(self._place(G1))
        self.run(self._place(G2))

    def run(self, work: Any) -> Any:
        return self.loop.run_until_complete(work)

    def uuid(self) -> str:
        self.uuids += 1
        return f"00000000-0000-0000-0000-{self.uuids:012d}"

    async def _place(self, guild: str) -> None:
        await upsert_guild(self.store, Guild(id=guild, name=guild))
        for channel, g in CHANNELS.items():
            if g == guild:
                await upsert_channel(self.store, Channel(id=channel, guild_id=g, name=channel, kind=ChannelKind.TEXT))
        await guild_totals(self.store, guild)  # a guild node made now keeps its counts from the first read

    def _message(self, who: str, channel: str, text: str) -> Message:
        self.now += timedelta(minutes=7)
        self.next_id += 1
        return Message(id=str(self.next_id), guild_id=CHANNELS[channel], channel_id=channel, author_id=who, content=text,
                       created_at=self.now)  # fmt: skip

    @rule(
        who=st.sampled_from(MEMBERS),
        channel=st.sampled_from(sorted(CHANNELS)),
        texts=st.lists(st.sampled_from(["hi", "Rex is my dog", f"hey <@{MEMBERS[1]}>", "the kernel"]), min_size=1, max_size=4),
    )
    def say(self, who: str, channel: str, texts: list[str]) -> None:
        guild = CHANNELS[channel]
        user = User(id=who, name=f"member{who[-1]}", display_name=f"member{who[-1]}")
        batch = [self._message(who, channel, t) for t in texts]
        self.run(record_batch(self.store, batch, {who: user}, {guild: [user]}))
        self.ids += [m.id for m in batch]

    @precondition(lambda self: bool(self.ids))
    @rule(pick=st.integers(0, 10_000), again=st.booleans())
    def record_again(self, pick: int, again: bool) -> None:
        """A message recorded a second time (a replay), beside a new one when `again`."""
        found = self.run(self.store.runner.read("store/messages_stored", ids=[self.ids[pick % len(self.ids)]]))
        if not found:
            return
        row = found[0]
        old = Message(id=str(row["id"]), guild_id=str(row["guild_id"]), channel_id=str(row["channel_id"]),
                      author_id=str(row["author_id"]), content="again", created_at=self.now)  # fmt: skip
        batch = [old, *([self._message(old.author_id, old.channel_id, "new")] if again else [])]
        user = User(id=old.author_id, name="again", display_name="again")
        self.run(record_batch(self.store, batch, {old.author_id: user}, {old.guild_id: [user]}))
        self.ids += [m.id for m in batch[1:]]

    def _stored(self) -> list[dict[str, Any]]:
        return sorted(self.run(self.store.runner.read("store/messages_stored", ids=self.ids)), key=lambda r: str(r["id"]))

    @rule(pick=st.integers(0, 10_000), repeat=st.booleans(), close=st.booleans())
    def extract(self, pick: int, repeat: bool, close: bool) -> None:
        """A channel's waiting messages (one that has some) closed as one episode, and an extraction: an entity, a
        fact about it, a fact about the first author (said again when `repeat`: the stored fact gains a report);
        when `close`, the first ends within the hour and the second supersedes the guild's last fact."""
        rows = self.run(self.store.runner.read("store/buffered_messages"))
        channels = sorted({str(r["channel_id"]) for r in rows})
        if channels:
            self._extract(channels[pick % len(channels)], repeat, close)

    def _extract(self, channel: str, repeat: bool, close: bool = False) -> None:
        rows = self.run(self.store.runner.read("store/buffered_messages"))
        waiting = sorted((r for r in rows if r["channel_id"] == channel), key=lambda r: str(r["id"]))
        if not waiting:
            return
        guild = CHANNELS[channel]
        ids = tuple(str(r["id"]) for r in waiting)
        authors = tuple(sorted({str(r["author_id"]) for r in waiting}))
        key = f"{channel}:{ids[0]}"
        self.run(close_episode(self.store, EpisodeClose(key=key, uuid=self.uuid(), guild_id=guild, channel_id=channel,
                                                        started_at=self.now, ended_at=self.now, message_ids=ids,
                                                        participant_ids=authors)))  # fmt: skip
        pet = EntityWrite(uuid=self.uuid(), name="Rex", kind="animal")
        report = Report(user_id=authors[0], message_id=ids[0], at=self.now)
        earlier = [u for u, g in self.facts.items() if g == guild][-1:] if close else []
        facts = [
            FactWrite(uuid=self.uuid(), text="Rex is a dog", category="other", importance=5, valid_at=self.now,
                      expires_at=self.now + timedelta(hours=1) if close else None,
                      about=(NodeRef(kind="entity", id=pet.uuid),), reports=(report,), source_message_ids=(ids[0],)),
            FactWrite(uuid=self.uuid(), text=f"member{authors[0][-1]} likes the kernel" if repeat else f"note {self.uuids}",
                      category="other", importance=5, valid_at=self.now, about=(NodeRef(kind="user", id=authors[0]),),
                      reports=(report,), source_message_ids=(ids[0],), supersedes=tuple(earlier)),
        ]  # fmt: skip
        write = EpisodeWrite(key=key, guild_id=guild, summary="they talked", entities=(pet,), facts=tuple(facts),
                             people=authors)  # fmt: skip
        self.run(write_episode(self.store, write))
        self.facts |= {f.uuid: guild for f in facts}

    @rule(guild=st.sampled_from([G1, G2]), who=st.sampled_from(MEMBERS))
    def remember(self, guild: str, who: str) -> None:
        """A fact told to the bot directly ("remember ..."), about a member stored there."""
        stored = self.run(self.store.runner.read("store/messages_stored", ids=self.ids))
        if not any(r["author_id"] == who and r["guild_id"] == guild for r in stored):
            return
        fact = FactWrite(uuid=self.uuid(), text=f"member{who[-1]} said {self.uuids}", category="other", importance=5,
                         valid_at=self.now, about=(NodeRef(kind="user", id=who),), reports=())  # fmt: skip
        self.run(write_command_facts(self.store, guild, [fact]))
        self.facts[fact.uuid] = guild

    @precondition(lambda self: bool(self.ids))
    @rule(pick=st.integers(0, 10_000), how=st.sampled_from(["erase", "recorder", "edit"]))
    def delete(self, pick: int, how: str) -> None:
        """A stored message deleted (with what only it told) or edited (the facts of its old text go)."""
        stored = self._stored()
        if not stored:
            return
        message_id = str(stored[pick % len(stored)]["id"])
        if how == "erase":
            self.run(erasure.erase_messages(self.store, [message_id]))
        elif how == "recorder":
            self.run(delete_message(self.store, message_id))
        else:
            self.now += timedelta(seconds=1)
            self.run(erasure.apply_edit(self.store, message_id, "changed my mind", self.now))

    @precondition(lambda self: bool(self.ids))
    @rule(pick=st.integers(0, 10_000), who=st.sampled_from(MEMBERS))
    def opt_out_said(self, pick: int, who: str) -> None:
        """An opt-out said in a message: the message goes, and a member it was all we had of is forgotten."""
        self.run(drop_command_trace(self.store, who, self.ids[pick % len(self.ids)]))

    @rule(who=st.sampled_from(MEMBERS), guild=st.sampled_from([None, G1, G2]))
    def forget(self, who: str, guild: str | None) -> None:
        """A member's forget-me (everywhere), or a moderator's forget of them in one guild."""
        report = self.run(forget_user(self.store, who, guild, thorough_audit=False))
        assert report.clean, report.residue

    @rule(keep=st.floats(0.1, 0.9), closed=st.booleans())
    def retention(self, keep: float, closed: bool) -> None:
        """Retention whose bound falls inside the stored history (and of closed facts when `closed`)."""
        spent = (self.now - T0) / timedelta(days=1)
        if spent < 1:
            self.now += timedelta(days=2)
            return
        days = max(1, int(spent * keep))
        self.now += timedelta(days=1)
        self.run(apply_retention(self.store, messages_days=days, closed_facts_days=1 if closed else 0, now=self.now))

    @rule(hours=st.integers(1, 30), cap=st.integers(1, 3))
    def upkeep(self, hours: int, cap: int) -> None:
        """Later, upkeep: facts past their end retired, each member's facts over `cap` closed (the days of their
        closing move, the counts stay)."""
        self.now += timedelta(hours=hours)
        self.run(retire_expired(self.store, self.now))
        self.run(enforce_user_cap(self.store, cap, now=self.now))

    @rule(pick=st.integers(0, 10_000))
    def channel_off(self, pick: int) -> None:
        """A channel holding messages switched off, its history deleted."""
        channels = sorted({str(r["channel_id"]) for r in self._stored()})
        if not channels:
            return
        channel = channels[pick % len(channels)]
        erased = self.run(erasure.erase_channel(self.store, CHANNELS[channel], channel))
        assert erased.residue == []

    @precondition(lambda self: bool(self.facts))
    @rule(pick=st.integers(0, 10_000))
    def moderator_deletes_a_fact(self, pick: int) -> None:
        uuid = sorted(self.facts)[pick % len(self.facts)]
        self.run(erasure.delete_facts(self.store, self.facts.pop(uuid), [uuid], []))

    @rule(guild=st.sampled_from([G1, G2]), read=st.booleans())
    def reset(self, guild: str, read: bool) -> None:
        """The guild started over (`demo --fresh`) and placed again; its counts read at once when `read`, else left
        not kept until a later write and read."""
        self.run(reset_guild(self.store, guild, MEMBERS))
        self.facts = {u: g for u, g in self.facts.items() if g != guild}
        self.run(upsert_guild(self.store, Guild(id=guild, name=guild)))
        for channel, g in CHANNELS.items():
            if g == guild:
                self.run(upsert_channel(self.store, Channel(id=channel, guild_id=g, name=channel, kind=ChannelKind.TEXT)))
        if read:
            self.run(guild_totals(self.store, guild))

    @rule(who=st.sampled_from(MEMBERS), channel=st.sampled_from(sorted(CHANNELS)), how=st.sampled_from(["message", "channel"]))
    def told_then_erased(self, who: str, channel: str, how: str) -> None:
        """A shape a short run would seldom meet by chance: a message said, extracted, then erased (the message, or
        its channel switched off), so its facts and the entity only they were about go with it."""
        self.say(who, channel, ["Rex is my dog"])
        self._extract(channel, False)
        if how == "message":
            self.run(erasure.erase_messages(self.store, [self.ids[-1]]))
        else:
            self.run(erasure.erase_channel(self.store, CHANNELS[channel], channel))

    @invariant()
    def kept_counts_equal_a_recount(self) -> None:
        CountsMachine.checked += 1
        for guild in (G1, G2):
            [row] = self.run(self.store.runner.read("store/kept_counts", guild_id=guild))
            recounted = self.run(guild_counts(self.store, guild))
            kept = counts.kept(row)
            if kept is not None:
                assert kept == recounted, (guild, kept, recounted)
                days = self.run(self.store.runner.read_tx(lambda tx, g=guild: counts.kept_days(tx, g)))
                assert days == self.run(self.store.runner.read_tx(lambda tx, g=guild: counts.recount_days(tx, g))), guild
            assert self.run(guild_totals(self.store, guild)) == recounted


def test_kept_counts_equal_a_recount_after_any_writes(arcadedb_server: ArcadeDBEngine) -> None:
    CountsMachine.checked = 0
    with machine_store(arcadedb_server) as (CountsMachine.loop, CountsMachine.shared_store):
        run_state_machine_as_test(CountsMachine, settings=profile(ci=(20, 12), long=(80, 30)))
    assert CountsMachine.checked


def test_every_statement_creating_or_deleting_a_counted_node_is_followed() -> None:
    """Read from the query files: one that creates or merges a Fact, Entity, Message or Episode, deletes one of
    them (a DETACH DELETE of a variable matched with one of those labels) or sets a fact's closed_key, is in
    `counts.COUNTED` (or deletes the guild's node with them)."""
    missed = []
    for folder in ("store", "erasure", "reextract"):
        for name in queries.names_in(folder):
            text = "\n".join(line for line in queries.load(f"{folder}/{name}").splitlines() if not line.strip().startswith("//"))
            creates = re.search(r"\b(CREATE|MERGE)\b[^\n]*\(\w*:(" + "|".join(LABELS) + r")\b", text)
            deleted = {v for v in re.findall(r"DELETE\s+(\w+)", text)}
            matched = {v for v, label in re.findall(r"\((\w+):(\w+)", text) if label in LABELS}
            closes = re.search(r"\.closed_key\s*=", text)  # a fact's day of closing moves (the guild's days)
            if (creates or deleted & matched or closes) and f"{folder}/{name}" not in {*counts.COUNTED, *counts.WITH_THE_GUILD}:
                missed.append(f"{folder}/{name}")
    assert not missed, f"statements creating or deleting counted nodes the kept counts do not follow: {missed}"


async def test_a_recount_finds_kept_counts_that_drifted_and_repairs_them(store: GraphStore) -> None:
    """`grapevine stats --recount`: a guild whose kept counts a writer outside the counted statements moved (here a
    message deleted by hand) is found and set to the recount; an honest one is left as it was."""
    for guild in (G1, G2):
        await upsert_guild(store, Guild(id=guild, name=guild))
        await upsert_channel(store, Channel(id=f"{guild[:3]}1", guild_id=guild, name="c", kind=ChannelKind.TEXT))
        await guild_totals(store, guild)
    user = User(id=MEMBERS[0], name="m", display_name="m")
    batch = [Message(id=f"75{n}", guild_id=g, channel_id=f"{g[:3]}1", author_id=user.id, content="hi", created_at=T0)
             for n, g in enumerate((G1, G1, G2))]  # fmt: skip
    await record_batch(store, batch, {user.id: user}, {G1: [user], G2: [user]})
    assert (await guild_totals(store, G1))["messages"] == 2
    await store.driver.execute_query("MATCH (m:Message {id: '750'}) DETACH DELETE m", database_=store.engine.database)
    found = {r.guild_id: r for r in await recount_every_guild(store, repair=True)}
    assert not found[G1].honest and found[G1].repaired and found[G1].counted["messages"] == 1
    assert found[G2].honest and not found[G2].repaired
    assert await guild_totals(store, G1) == await guild_counts(store, G1)


# --- the guild's days (ActivityDay), what `memory status` reads for its last days: after each way facts close (an
# end passed, a cap, a supersession), a forget, retention and the backfill of an older store, they equal a recount

DG, DCH, DOTHER = "810000000000000001", "811000000000000001", "811000000000000002"
ANN, BOB = "830000000000000001", "830000000000000002"
DT0 = datetime(2026, 3, 1, 12, 0, tzinfo=UTC)


async def _days_are_a_recount(store: GraphStore) -> dict[tuple[int, str], dict[str, int]]:
    kept = await store.runner.read_tx(lambda tx: counts.kept_days(tx, DG))
    assert kept == await store.runner.read_tx(lambda tx: counts.recount_days(tx, DG))
    return kept


async def _days_guild(store: GraphStore) -> None:
    await upsert_guild(store, Guild(id=DG, name="g"))
    for channel in (DCH, DOTHER):
        await upsert_channel(store, Channel(id=channel, guild_id=DG, name=channel, kind=ChannelKind.TEXT))
    await guild_totals(store, DG)  # kept from here on


async def _days_say(store: GraphStore, who: str, channel: str, at: datetime, n: int, first: int) -> None:
    user = User(id=who, name=f"m{who[-1]}", display_name=f"m{who[-1]}")
    batch = [Message(id=str(840000000000000000 + first + i), guild_id=DG, channel_id=channel, author_id=who,
                     content=f"hello {i}", created_at=at + timedelta(minutes=i)) for i in range(n)]  # fmt: skip
    await record_batch(store, batch, {who: user}, {DG: [user]})


def _days_fact(uuid: int, who: str, at: datetime, *, ends: datetime | None = None, supersedes: tuple[str, ...] = ()) -> FactWrite:
    return FactWrite(uuid=f"00000000-0000-0000-0000-{uuid:012d}", text=f"fact {uuid}", valid_at=at, expires_at=ends,
                     about=(NodeRef(kind="user", id=who),), reports=(), supersedes=supersedes)  # fmt: skip


async def test_the_days_follow_every_write_and_closing_and_status_reads_them(store: GraphStore) -> None:
    await _days_guild(store)
    await _days_say(store, ANN, DCH, DT0 - timedelta(days=10), 3, 0)  # an old day
    await _days_say(store, ANN, DCH, DT0 - timedelta(days=1), 4, 10)
    await _days_say(store, BOB, DOTHER, DT0, 2, 20)
    await _days_are_a_recount(store)
    await write_command_facts(
        store, DG, [_days_fact(1, ANN, DT0, ends=DT0 + timedelta(hours=1)), _days_fact(2, ANN, DT0), _days_fact(3, BOB, DT0)]
    )
    await write_command_facts(
        store, DG, [_days_fact(4, ANN, DT0 + timedelta(minutes=5), supersedes=(_days_fact(2, ANN, DT0).uuid,))]
    )
    days = await _days_are_a_recount(store)
    assert sum(d["closed"] for d in days.values()) == 1  # the supersession
    assert await retire_expired(store, DT0 + timedelta(days=1)) == 1
    await write_command_facts(store, DG, [_days_fact(5, ANN, DT0 + timedelta(minutes=9))])
    assert await enforce_user_cap(store, 1) == 1  # Ann's two current facts, one over the cap
    days = await _days_are_a_recount(store)
    assert sum(d["closed"] for d in days.values()) == 3 and sum(d["learned"] for d in days.values()) == 5

    activity = await recent_activity(store, DG, 7, now=DT0 + timedelta(days=2))
    assert (activity.messages, activity.channels, activity.per_channel) == (4 + 2, 2, {DCH: 4, DOTHER: 2})
    today = await recent_activity(store, DG, 1)  # the facts were stored (and the supersession closed one) today
    assert (today.messages, today.learned) == (0, 5) and today.closed >= 2

    await forget_user(store, BOB, thorough_audit=False)
    await _days_are_a_recount(store)
    await apply_retention(store, messages_days=5, closed_facts_days=1, now=DT0 + timedelta(days=3))
    await _days_are_a_recount(store)
    activity = await recent_activity(store, DG, 7, now=DT0 + timedelta(days=3))
    assert (activity.messages, activity.per_channel) == (4, {DCH: 4, DOTHER: 0})


async def test_a_store_made_before_the_days_gets_them_at_its_backfill(store: GraphStore) -> None:
    await _days_guild(store)
    await _days_say(store, ANN, DCH, DT0, 3, 0)
    await write_command_facts(store, DG, [_days_fact(1, ANN, DT0)])
    await store.driver.execute_query(  # as a store written before the days were kept
        "MATCH (a:ActivityDay) DETACH DELETE a WITH count(*) AS gone MATCH (g:Guild) REMOVE g.activity_kept",
        database_=store.engine.database,
    )
    assert await backfill(store) == 1
    days = await _days_are_a_recount(store)
    assert sum(d["messages"] for d in days.values()) == 3 and sum(d["learned"] for d in days.values()) == 1
    assert (await recent_activity(store, DG, 7, now=DT0)).messages == 3
