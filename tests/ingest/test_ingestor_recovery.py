"""Nothing is lost and nothing is ingested twice: crashes, a failing or missing LLM, bad output,
sampling, edits and deletions, on the real path (LiveWindows -> Ingestor -> openai client ->
scripted server -> resolution -> ArcadeDB)."""

from __future__ import annotations

import json
import re
from collections.abc import AsyncIterator, Iterator
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from common.settings import ExtractionSettings, WindowSettings
from graph.models import Channel, EpisodeStatus, Guild, Message, User
from graph.privacy.guards.consent import Consent
from graph.reads.backlog import episodes_by_status
from graph.store import GraphStore
from graph.writes.discord_records import upsert_channel, upsert_guild
from ingest.ingestor import BacklogResult, Ingestor
from ingest.live import LiveWindows
from llm.client import OpenAILLM
from llm.meter import UsageMeter
from tests.support.prompt_reader import prompt_of, refs, section
from tests.support.scripted import Clock, answer, count, fact, graph_facts, llm_settings
from tests.support.scripted_llm import Fault, ScriptedLLMServer

GUILD, CHANNEL, OTHER = "800000000000000001", "810000000000000001", "810000000000000002"
T0 = datetime(2024, 9, 10, 9, 0, tzinfo=UTC)
ALICE = User(id="330000000000000001", name="alice", display_name="Alice")
BOB = User(id="330000000000000002", name="bob", display_name="Bob")
QUIET = WindowSettings().quiet_seconds


def msg(n: int, who: User, text: str, minutes: float, channel: str = CHANNEL) -> Message:
    return Message(id=f"8200000000000{n:05d}", guild_id=GUILD, channel_id=channel, author_id=who.id, content=text,
                   created_at=T0 + timedelta(minutes=minutes))  # fmt: skip


PLANT = [msg(1, ALICE, "finally bought a monstera for the living room", 0),
         msg(2, BOB, "nice, they grow fast", 0.5),
         msg(3, ALICE, "named it Gus", 1)]  # fmt: skip
GUS = answer(
    "Alice bought a monstera named Gus; Bob said they grow fast.",
    facts=[fact("Alice has a monstera plant named Gus", about=["U1"], reported_by=["U1"], source=["m1", "m3"],
                valid_at="2024-09-10", category="possession", importance=4)],
)  # fmt: skip


@pytest.fixture
def srv() -> Iterator[ScriptedLLMServer]:
    with ScriptedLLMServer() as server:
        yield server


@dataclass
class Setup:
    store: GraphStore
    srv: ScriptedLLMServer
    clock: Clock
    consent: Consent
    clients: list[OpenAILLM]
    lives: list[LiveWindows]

    def llm(self, **overrides: object) -> OpenAILLM:
        client = OpenAILLM(llm_settings(self.srv.base_url, **overrides), UsageMeter(), min_wait=0.001, max_wait=0.01)
        self.clients.append(client)
        return client

    def ingestor(self, llm: OpenAILLM | None, **extraction: object) -> Ingestor:
        return Ingestor(self.store, llm, ExtractionSettings(**{"batch_messages": 1, **extraction}), WindowSettings())

    async def live(self, ingestor: Ingestor) -> LiveWindows:
        live = LiveWindows(self.store, ingestor, self.consent, WindowSettings(), clock=self.clock)
        self.lives.append(live)
        return live

    async def feed(self, live: LiveWindows, messages: list[Message], authors: dict[str, User] | None = None) -> None:
        people = authors or {ALICE.id: ALICE, BOB.id: BOB}
        for m in messages:
            self.clock.set(m.created_at)
            assert await live.on_message(m, people[m.author_id])

    async def quiet(self, live: LiveWindows, seconds: float = QUIET + 1) -> None:
        self.clock.advance(seconds)
        await live.tick()
        await live.drain()


@pytest.fixture
async def setup(store: GraphStore, srv: ScriptedLLMServer) -> AsyncIterator[Setup]:
    await upsert_guild(store, Guild(id=GUILD, name="Recovery Guild"))
    await upsert_channel(store, Channel(id=CHANNEL, guild_id=GUILD, name="plants"))
    await upsert_channel(store, Channel(id=OTHER, guild_id=GUILD, name="other"))
    consent = Consent(store)
    await consent.load()
    s = Setup(store, srv, Clock(T0 - timedelta(hours=1)), consent, [], [])
    try:
        yield s
    finally:
        for live in s.lives:
            await live.stop()
        for client in s.clients:
            await client.aclose()


async def episode_rows(store: GraphStore) -> list[dict[str, Any]]:
    from tests.support.scripted import cypher

    return await cypher(store, """
        MATCH (e:Episode) RETURN e.key AS key, e.status AS status, e.error AS error, e.attempts AS attempts,
               e.message_count AS messages ORDER BY e.started_at
    """)  # fmt: skip


async def buffered(store: GraphStore) -> int:
    return await count(store, "MATCH (m:Message) WHERE m.buffered = true RETURN count(m) AS n")


# --- a crash after the messages were stored, before their window closed ------------------------------------------
async def test_crash_before_the_window_closes_loses_nothing(setup: Setup) -> None:
    first = await setup.live(setup.ingestor(setup.llm()))
    await first.start()
    await setup.feed(first, PLANT)
    assert first.stats() == {"open_windows": 1, "buffered_messages": 3, "unsubmitted_windows": 0}
    assert await buffered(setup.store) == 3
    # The process dies: its timer task dies with it; nothing is flushed and stop() never runs.
    setup.lives.remove(first)
    assert first._loop is not None
    first._loop.cancel()
    del first

    setup.clock.advance(60)  # back up a minute after the last message, before its quiet time has passed
    setup.srv.push(GUS)
    second = await setup.live(setup.ingestor(setup.llm()))
    assert await second.start() == 3
    assert second.stats() == {"open_windows": 1, "buffered_messages": 3, "unsubmitted_windows": 0}
    await second.drain()
    assert setup.srv.calls == 0, "the rebuilt window waits for its quiet time"
    await setup.quiet(second, QUIET - 60 + 1)

    assert setup.srv.calls == 1
    window = section(prompt_of(setup.srv.requests[0]), "WINDOW")
    assert window == [
        'm1 [2024-09-10 09:00 UTC] U1 Alice: "finally bought a monstera for the living room"',
        'm2 [2024-09-10 09:00 UTC] U2 Bob: "nice, they grow fast"',
        'm3 [2024-09-10 09:01 UTC] U1 Alice: "named it Gus"',
    ]
    [gus] = await graph_facts(setup.store, GUILD)
    assert gus.text == "Alice has a monstera plant named Gus"
    assert gus.about == {f"user:{ALICE.id}"} and gus.reporters == {ALICE.id}
    assert gus.sources == {PLANT[0].id, PLANT[2].id}
    [ep] = await episode_rows(setup.store)
    assert (ep["key"], ep["status"], ep["messages"]) == (f"{CHANNEL}:{PLANT[0].id}:{PLANT[2].id}", "done", 3)
    assert await buffered(setup.store) == 0

    # a third start finds nothing to rebuild and calls nothing
    third = await setup.live(setup.ingestor(setup.llm()))
    assert await third.start() == 0
    await setup.quiet(third)
    assert setup.srv.calls == 1


async def test_restart_splits_stored_conversations_at_their_quiet_gaps(setup: Setup) -> None:
    """A window the graph refused (here: its channel was not recorded yet) keeps its messages stored as
    buffered; if the process then dies, a restart must rebuild it as its own window, not merge it with
    the conversation that followed in the same channel."""
    late = "810000000000000009"
    first = await setup.live(setup.ingestor(setup.llm()))
    morning = [msg(40, ALICE, "repotting the monstera today", 0, late), msg(41, BOB, "good luck", 1, late)]
    evening = [msg(42, BOB, "I bought a cactus", 300, late), msg(43, ALICE, "cute", 301, late)]
    await setup.feed(first, morning)
    await setup.quiet(first)
    assert first.stats()["unsubmitted_windows"] == 1, "the graph refused the window: parked in memory"
    await setup.feed(first, evening)
    setup.lives.remove(first)  # crash: the parked window and the open one exist only as stored messages
    assert await buffered(setup.store) == 4

    await upsert_channel(setup.store, Channel(id=late, guild_id=GUILD, name="late"))
    setup.srv.responder = _by_content
    setup.clock.advance(30)
    second = await setup.live(setup.ingestor(setup.llm()))
    assert await second.start() == 4
    await second.drain()
    assert setup.srv.calls == 1, "the morning window was due long ago; the evening one is still open"
    assert second.stats() == {"open_windows": 1, "buffered_messages": 2, "unsubmitted_windows": 0}
    await setup.quiet(second)
    assert setup.srv.calls == 2
    windows = [refs(section(prompt_of(r), "WINDOW")) for r in setup.srv.requests]
    assert windows == [["m1", "m2"], ["m1", "m2"]]
    assert [section(prompt_of(r), "WINDOW")[0].split(": ", 1)[1] for r in setup.srv.requests] == [
        '"repotting the monstera today"',
        '"I bought a cactus"',
    ]
    rows = await episode_rows(setup.store)
    assert [(r["key"], r["status"]) for r in rows] == [
        (f"{late}:{morning[0].id}:{morning[1].id}", "done"),
        (f"{late}:{evening[0].id}:{evening[1].id}", "done"),
    ]


# --- the LLM fails every attempt: parked as failed, ingested once when it recovers ---------------------------------
async def test_failed_window_is_parked_then_ingested_exactly_once(setup: Setup) -> None:
    ingestor = setup.ingestor(setup.llm(max_attempts=3))
    live = await setup.live(ingestor)
    await live.start()
    setup.srv.push(*[Fault.status(500, "scripted outage")] * 3)
    await setup.feed(live, PLANT)
    await setup.quiet(live)

    assert setup.srv.calls == 3 and setup.srv.pending() == 0
    [ep] = await episode_rows(setup.store)
    assert (ep["status"], ep["attempts"], ep["messages"]) == ("pending", 0, 3)  # an outage is no attempt: parked
    assert await graph_facts(setup.store, GUILD) == []
    assert live.stats()["unsubmitted_windows"] == 0, "an LLM outage parks the episode, not the window"
    parked = await episodes_by_status(setup.store, [EpisodeStatus.PENDING])
    assert [e.key for e in parked] == [ep["key"]]

    setup.srv.push(GUS)  # the endpoint is back
    assert await ingestor.process_backlog() == BacklogResult(done=1)
    assert setup.srv.calls == 4
    assert section(prompt_of(setup.srv.requests[3]), "WINDOW")[2].endswith('U1 Alice: "named it Gus"')
    assert await ingestor.process_backlog() == BacklogResult()
    assert setup.srv.calls == 4, "a done episode is never extracted again"
    assert await ingestor.extract(ep["key"]) == EpisodeStatus.DONE
    assert setup.srv.calls == 4

    [gus] = await graph_facts(setup.store, GUILD)
    assert gus.reporters == {ALICE.id}
    [ep] = await episode_rows(setup.store)
    assert (ep["status"], ep["error"], ep["attempts"]) == ("done", None, 1)


# --- no LLM configured: windows wait as pending; a later ingestor with an LLM works through them -------------------
def _by_content(request: dict[str, Any]) -> dict[str, Any]:
    """A responder: one fact about the window's first author, in the words of its first message."""
    window = section(prompt_of(request), "WINDOW")
    first = re.match(r'm1 \[[^\]]+\] (U\d+) [^:]+: "(.*)"$', window[0])
    assert first is not None, window[0]
    return answer(
        f"{first[1]} said something.",
        facts=[fact(f"Someone said: {first[2]}", about=[first[1]], reported_by=[first[1]], source=["m1"])],
    )


async def test_without_llm_windows_wait_as_pending_for_the_backlog(setup: Setup) -> None:
    offline = setup.ingestor(None)
    live = await setup.live(offline)
    await live.start()
    windows = [
        [msg(10 + 2 * i, ALICE, f"plant update number {i}", 10 * i), msg(11 + 2 * i, BOB, f"reply to update {i}", 10 * i + 1)]
        for i in range(5)
    ]  # 5 windows, 10 min apart
    for pair in windows:
        await setup.feed(live, pair)
        await setup.quiet(live)
    assert setup.srv.calls == 0
    rows = await episode_rows(setup.store)
    assert [r["status"] for r in rows] == ["pending"] * 5
    assert [r["key"] for r in rows] == [f"{CHANNEL}:{p[0].id}:{p[1].id}" for p in windows]
    assert await buffered(setup.store) == 0
    assert await offline.process_backlog() == BacklogResult(pending=5)
    assert setup.srv.calls == 0

    setup.srv.responder = _by_content
    online = setup.ingestor(setup.llm())
    assert await online.process_backlog() == BacklogResult(done=5)
    assert setup.srv.calls == 5
    # one guild's windows are extracted in the order they were written
    firsts = [section(prompt_of(r), "WINDOW")[0].split(": ", 1)[1] for r in setup.srv.requests]
    assert firsts == [f'"plant update number {i}"' for i in range(5)]
    facts = await graph_facts(setup.store, GUILD)
    assert sorted(f.text for f in facts) == [f"Someone said: plant update number {i}" for i in range(5)]
    assert all(f.reporters == {ALICE.id} for f in facts)
    assert await online.process_backlog() == BacklogResult()
    assert setup.srv.calls == 5


# --- malformed output twice: parked as failed, nothing raised ----------------------------------------------------
async def test_malformed_output_twice_parks_the_window(setup: Setup) -> None:
    llm = setup.llm()
    live = await setup.live(setup.ingestor(llm))
    await live.start()
    setup.srv.push(Fault.malformed("{not json"), Fault.malformed('{"summary": "cut off'))
    await setup.feed(live, PLANT)
    await setup.quiet(live)

    assert setup.srv.calls == 2  # the request and its one re-ask
    reask = setup.srv.requests[1]["messages"][-1]["content"]
    assert "\n\nYour previous reply was invalid" in reask and "{not json" not in reask  # the bad reply is not resent
    assert (llm.meter.calls, llm.meter.requests, llm.meter.failures) == (1, 2, 1)
    [ep] = await episode_rows(setup.store)
    assert ep["status"] == "failed"
    assert ep["error"].startswith("LLMOutputError: extraction: reply did not match Extraction twice")
    assert live.stats() == {"open_windows": 0, "buffered_messages": 0, "unsubmitted_windows": 0}
    assert await graph_facts(setup.store, GUILD) == []


# --- sampled out: skipped, no call --------------------------------------------------------------------------------
async def test_probability_zero_skips_without_a_call(setup: Setup) -> None:
    ingestor = setup.ingestor(setup.llm(), probability=0.0)
    live = await setup.live(ingestor)
    await live.start()
    await setup.feed(live, PLANT)
    await setup.quiet(live)
    [ep] = await episode_rows(setup.store)
    assert (ep["status"], ep["error"]) == ("skipped", "sampled out by EXTRACTION_PROBABILITY")
    assert await ingestor.process_backlog() == BacklogResult()
    assert setup.srv.calls == 0
    assert await graph_facts(setup.store, GUILD) == []


# --- edits and deletions while the window is open ----------------------------------------------------------------
async def test_edits_and_deletions_of_buffered_messages_reach_the_prompt(setup: Setup) -> None:
    live = await setup.live(setup.ingestor(setup.llm()))
    await live.start()
    setup.srv.push(answer(
        "Alice bought a fiddle leaf fig named Gus.",
        facts=[fact("Alice has a fiddle leaf fig named Gus", about=["U1"], reported_by=["U1"], source=["m1", "m3"])],
    ))  # fmt: skip
    await setup.feed(live, PLANT)
    oops = msg(4, BOB, "my ex stole my credit card lol", 1.5)
    await setup.feed(live, [oops])
    edited_at = T0 + timedelta(minutes=2)
    setup.clock.set(edited_at)
    await live.on_edit(PLANT[0].id, "finally bought a fiddle leaf fig for the living room", edited_at)
    await live.on_delete(oops.id)
    await setup.quiet(live)

    assert setup.srv.calls == 1
    prompt = prompt_of(setup.srv.requests[0])
    assert section(prompt, "WINDOW") == [
        'm1 [2024-09-10 09:00 UTC] U1 Alice (edited): "finally bought a fiddle leaf fig for the living room"',
        'm2 [2024-09-10 09:00 UTC] U2 Bob: "nice, they grow fast"',
        'm3 [2024-09-10 09:01 UTC] U1 Alice: "named it Gus"',
    ]
    assert "monstera" not in prompt and "credit card" not in prompt
    assert await count(setup.store, "MATCH (m:Message {id: $id}) RETURN count(m) AS n", id=oops.id) == 0
    [ep] = await episode_rows(setup.store)
    assert ep["messages"] == 3
    [fig] = await graph_facts(setup.store, GUILD)
    assert fig.sources == {PLANT[0].id, PLANT[2].id}

    # a window emptied by deletions disappears without a call
    lone = msg(9, BOB, "wrong channel, sorry", 30, channel=OTHER)
    await setup.feed(live, [lone])
    await live.on_delete(lone.id)
    await setup.quiet(live)
    assert setup.srv.calls == 1
    assert len(await episode_rows(setup.store)) == 1
    assert refs(section(prompt, "PARTICIPANTS")) == ["U1", "U2"]


# --- shutdown in the same turn as a message ----------------------------------------------------------------------
async def test_stop_right_after_a_message_returns_and_leaves_the_window_for_the_restart(setup: Setup) -> None:
    """A message wakes the timer loop and stop() cancels it before the loop runs again. On Python 3.11
    `asyncio.wait_for` swallows a cancel that lands just as its inner wait finishes: stop() then waited
    forever, and the "stopped" loop went on closing windows. The window must stay stored as buffered
    and come back, once, on the next start."""
    import asyncio

    live = await setup.live(setup.ingestor(setup.llm()))
    await live.start()
    await asyncio.sleep(0)  # the timer loop is waiting for a wake-up
    await setup.feed(live, PLANT[:1])
    setup.clock.advance(10 * QUIET)  # whoever looks next finds the window due
    try:
        async with asyncio.timeout(5) as limit:
            await live.stop()  # inline: its cancel() lands before the woken loop resumes
    except TimeoutError:
        pass  # stop() swallows the CancelledError the timeout sends it, so this may not even show
    finally:
        setup.lives.remove(live)
    assert not limit.expired(), "LiveWindows.stop() hung: the timer loop swallowed its cancellation"
    assert live._loop is not None and live._loop.cancelled()
    await live.drain()
    assert setup.srv.calls == 0, "a stopped LiveWindows closed and extracted a window"
    assert await buffered(setup.store) == 1

    setup.srv.push(
        answer(
            "Alice bought a monstera.",
            facts=[fact("Alice bought a monstera", about=["U1"], reported_by=["U1"], source=["m1"], category="possession")],
        )
    )
    again = await setup.live(setup.ingestor(setup.llm()))
    assert await again.start() == 1  # due at once: its quiet time passed while the bot was down
    await again.drain()
    assert setup.srv.calls == 1
    [monstera] = await graph_facts(setup.store, GUILD)
    assert (monstera.text, monstera.reporters, monstera.sources) == (
        "Alice bought a monstera",
        frozenset({ALICE.id}),
        frozenset({PLANT[0].id}),
    )
    assert await buffered(setup.store) == 0


# --- real chat: the IRC replay bench on a slice ------------------------------------------------------------------
@pytest.mark.slow
async def test_irc_replay_slice_is_one_call_per_window_and_few_calls(store: GraphStore, srv: ScriptedLLMServer) -> None:
    from tests.support.datasets import DATA_DIR, dev_samples, load_irc
    from tests.support.replay_harness import replay_ingest

    try:
        path = dev_samples(DATA_DIR)[0]
    except FileNotFoundError as exc:
        pytest.skip(f"shared IRC data not here: {exc}")
    messages = load_irc(path).messages[:300]
    figures = await replay_ingest(messages, store, srv)

    assert figures.messages == 300
    assert figures.windows >= 3
    assert figures.calls == figures.windows == srv.calls == len(srv.requests)
    assert figures.requests == figures.calls, "no retries or re-asks: every minimal answer is valid"
    assert figures.calls_per_100 < 5
    assert figures.statuses == {"done": figures.windows}
    assert figures.facts == figures.windows  # one fact per window, none merged or dropped
    # every message was in exactly one prompt's window, in order
    shown = [line.split(": ", 1)[1] for r in srv.requests for line in section(prompt_of(r), "WINDOW")]
    assert len(shown) == 300
    assert shown[0] == json.dumps(messages[0].message.content, ensure_ascii=False)
    assert shown[-1] == json.dumps(messages[-1].message.content, ensure_ascii=False)
    assert 0 < figures.prompt_tokens_per_message < 1000 and 0 < figures.completion_tokens_per_message < 100
    episodes = await episodes_by_status(store, [EpisodeStatus.DONE], limit=1000)
    assert len(episodes) == figures.windows and sum(e.message_count for e in episodes) == 300
