"""Quiet windows of one guild extracted together: one call, one episode per window with its own facts,
a queue that survives a restart, and a poison window split out of its batch. On the real path
(LiveWindows -> Ingestor -> openai client -> scripted server -> resolution -> ArcadeDB)."""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from common.settings import ExtractionSettings, WindowSettings
from graph.models import Channel, Guild, Message, User
from graph.privacy.forget import forget_user
from graph.privacy.guards.consent import Consent
from graph.store import GraphStore
from graph.writes.discord_records import upsert_channel, upsert_guild
from ingest.ingestor import BacklogResult, Ingestor
from ingest.live import LiveWindows
from llm.client import OpenAILLM
from llm.meter import UsageMeter
from tests.support.prompt_reader import Prompt, batch_parts
from tests.support.scripted import Clock, answer, cypher, fact, graph_facts, llm_settings
from tests.support.scripted_llm import Fault, Reply, ScriptedLLMServer

GUILD, PLANTS, MUSIC = "800000000000000051", "810000000000000051", "810000000000000052"
T0 = datetime(2024, 9, 10, 9, 0, tzinfo=UTC)
ALICE = User(id="330000000000000051", name="alice", display_name="Alice")
BOB = User(id="330000000000000052", name="bob", display_name="Bob")
AGE = WindowSettings().max_age_seconds + 1800  # longer than any window stays open
QUIET = WindowSettings().quiet_seconds

# what each message says about its author: the scripted model extracts exactly this
SAYS = {
    "finally bought a monstera, named it Gus": "Alice has a monstera named Gus",
    "I started cello lessons this week": "Bob takes cello lessons",
    "we are moving to Lisbon in March": "Alice is moving to Lisbon",
    "my car broke down again": "Bob's car broke down",
}
POISON = "this message makes the model choke"


def msg(n: int, who: User, text: str, minutes: float, channel: str) -> Message:
    return Message(id=f"8200000000051{n:03d}", guild_id=GUILD, channel_id=channel, author_id=who.id, content=text,
                   created_at=T0 + timedelta(minutes=minutes))  # fmt: skip


def window_answer(prompt: Prompt) -> dict[str, Any]:
    facts = [
        fact(SAYS[m.content], about=[m.author_ref], reported_by=[m.author_ref], source=[m.ref])
        for m in prompt.messages.values()
        if m.content in SAYS
    ]
    return answer("A chat.", facts=facts)


def responder(request: dict[str, Any]) -> Reply:
    parts = batch_parts(request)
    if any(POISON in str(m.get("content")) for m in request["messages"]):
        return Fault.malformed()
    if not parts:
        return window_answer(Prompt(request))
    return {"windows": [{"window": head, **window_answer(Prompt(part))} for head, part in parts]}


@pytest.fixture
def srv() -> Iterator[ScriptedLLMServer]:
    with ScriptedLLMServer() as server:
        server.responder = responder
        yield server


@dataclass
class Setup:
    store: GraphStore
    srv: ScriptedLLMServer
    clock: Clock
    consent: Consent
    clients: list[OpenAILLM]
    lives: list[LiveWindows]

    async def live(self, **extraction: Any) -> LiveWindows:
        llm = OpenAILLM(llm_settings(self.srv.base_url), UsageMeter(), min_wait=0.001, max_wait=0.01)
        self.clients.append(llm)
        settings = ExtractionSettings(batch_age_seconds=AGE, **extraction)
        ingestor = Ingestor(self.store, llm, settings, WindowSettings(), clock=self.clock)
        live = LiveWindows(self.store, ingestor, self.consent, WindowSettings(), clock=self.clock)
        self.lives.append(live)
        await live.start()
        return live

    async def say(self, live: LiveWindows, messages: list[Message]) -> None:
        """Each message, then the quiet that closes its window."""
        for m in messages:
            self.clock.set(m.created_at)
            assert await live.on_message(m, ALICE if m.author_id == ALICE.id else BOB)
            await self.wait(live, QUIET + 1)

    async def wait(self, live: LiveWindows, seconds: float) -> None:
        self.clock.advance(seconds)
        await live.tick()
        await live.drain()


@pytest.fixture
async def setup(store: GraphStore, srv: ScriptedLLMServer) -> AsyncIterator[Setup]:
    await upsert_guild(store, Guild(id=GUILD, name="Quiet Guild"))
    await upsert_channel(store, Channel(id=PLANTS, guild_id=GUILD, name="plants"))
    await upsert_channel(store, Channel(id=MUSIC, guild_id=GUILD, name="music"))
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


async def episodes(store: GraphStore) -> dict[str, str]:
    rows = await cypher(store, "MATCH (e:Episode) RETURN e.key AS key, e.status AS status")
    return {r["key"]: r["status"] for r in rows}


QUIET_DAY = [
    msg(1, ALICE, "finally bought a monstera, named it Gus", 0, PLANTS),
    msg(2, BOB, "I started cello lessons this week", 10, MUSIC),
    msg(3, ALICE, "we are moving to Lisbon in March", 25, PLANTS),
]


async def test_three_quiet_windows_in_two_channels_are_one_call_and_three_episodes(setup: Setup) -> None:
    live = await setup.live()
    await setup.say(live, QUIET_DAY)
    assert len(await episodes(setup.store)) == 3, "three windows closed by quiet time"
    assert setup.srv.calls == 0, "they wait: three messages are far from a batch, the oldest far from its age"

    await setup.wait(live, AGE)
    assert setup.srv.calls == 1
    parts = batch_parts(setup.srv.requests[0])
    assert [head for head, _ in parts] == ["W1", "W2", "W3"]
    prompts = [Prompt(part) for _, part in parts]
    assert [[m.content for m in p.messages.values()] for p in prompts] == [[m.content] for m in QUIET_DAY]
    # each window keeps its own earlier messages: the Lisbon window's is its channel's monstera, not the cello, and as
    # W1 shows that message already, a note says so instead of repeating it
    assert prompts[2].context == {} and prompts[2].not_repeated == (1, "W1")
    assert prompts[1].context == {} and prompts[1].not_repeated is None
    assert all(p.participants["U1"].name == ("Bob" if i == 1 else "Alice") for i, p in enumerate(prompts))

    assert set((await episodes(setup.store)).values()) == {"done"}
    facts = {f.text: f for f in await graph_facts(setup.store, GUILD)}
    assert set(facts) == {SAYS[m.content] for m in QUIET_DAY}
    for m in QUIET_DAY:
        written = facts[SAYS[m.content]]
        assert written.sources == {m.id} and written.reporters == {m.author_id}
        assert written.about == {f"user:{m.author_id}"}
        assert written.episodes == {f"{m.channel_id}:{m.id}:{m.id}"}

    await setup.wait(live, AGE)
    assert setup.srv.calls == 1, "extracted once"


async def test_a_full_batch_goes_without_waiting(setup: Setup) -> None:
    live = await setup.live(batch_messages=2)
    await setup.say(live, QUIET_DAY[:2])
    assert setup.srv.calls == 1 and len(batch_parts(setup.srv.requests[0])) == 2
    assert set((await episodes(setup.store)).values()) == {"done"}


async def test_a_queued_batch_survives_a_restart_and_is_extracted_once(setup: Setup) -> None:
    first = await setup.live()
    await setup.say(first, QUIET_DAY[:2])
    assert setup.srv.calls == 0 and set((await episodes(setup.store)).values()) == {"pending"}
    await first.stop()  # the bot stops (or dies): its queue is the pending episodes in the graph
    setup.lives.remove(first)

    second = await setup.live()
    await setup.wait(second, 60)
    assert setup.srv.calls == 0, "still young: the queue waits on after the restart"
    await setup.wait(second, AGE)
    assert setup.srv.calls == 1 and len(batch_parts(setup.srv.requests[0])) == 2
    assert set((await episodes(setup.store)).values()) == {"done"}
    assert {f.text for f in await graph_facts(setup.store, GUILD)} == {SAYS[m.content] for m in QUIET_DAY[:2]}

    third = await setup.live()
    await setup.wait(third, AGE)
    assert setup.srv.calls == 1, "nothing extracted twice"


async def test_the_windows_a_backlog_leaves_waiting_are_counted(setup: Setup) -> None:
    """What a pass over the backlog leaves in the queue is said: pending while its batch is not due, parked once the
    LLM's circuit breaker is open (the bot's upkeep report and `grapevine ingest --pending`'s exit code read it)."""
    live = await setup.live()
    await setup.say(live, QUIET_DAY[:2])
    ingestor = live.ingestor
    assert await ingestor.process_backlog(backoff=True) == BacklogResult(pending=2)  # the upkeep's pass: not due yet
    assert ingestor.llm is not None and setup.srv.calls == 0
    while not ingestor.llm.parked:
        ingestor.llm.breaker.failed()  # type: ignore[attr-defined]  # the endpoint failed call after call
    assert await ingestor.process_backlog() == BacklogResult(parked=2)  # `ingest --pending`: everything, but parked
    assert setup.srv.calls == 0 and set((await episodes(setup.store)).values()) == {"pending"}


async def test_a_poison_window_is_split_out_and_fails_alone(setup: Setup) -> None:
    live = await setup.live(batch_attempts=2)
    day = [*QUIET_DAY[:2], msg(9, BOB, POISON, 15, MUSIC), QUIET_DAY[2]]
    await setup.say(live, day)
    await setup.wait(live, AGE)

    batches = [r for r in setup.srv.requests if batch_parts(r)]
    assert len({tuple(h for h, _ in batch_parts(r)) for r in batches}) == 1 and len(batch_parts(batches[0])) == 4
    singles = [r for r in setup.srv.requests if not batch_parts(r)]
    assert len(singles) >= 4, "after the batch failed twice, each window was asked on its own"
    status = await episodes(setup.store)
    poison = f"{MUSIC}:{day[2].id}:{day[2].id}"
    assert status.pop(poison) == "failed"
    assert set(status.values()) == {"done"}, "the other windows are not blocked by the poison one"
    assert {f.text for f in await graph_facts(setup.store, GUILD)} == {SAYS[m.content] for m in QUIET_DAY}
    [row] = await cypher(setup.store, "MATCH (e:Episode {key: $key}) RETURN e.attempts AS n, e.error AS error", key=poison)
    assert row["n"] == 1 and "LLMOutputError" in row["error"]


async def test_forget_me_reaches_queued_windows(setup: Setup) -> None:
    live = await setup.live()
    chat = [msg(20, ALICE, "we are moving to Lisbon in March", 0, PLANTS), msg(21, BOB, "my car broke down again", 1, PLANTS)]
    for m in chat:
        setup.clock.set(m.created_at)
        assert await live.on_message(m, ALICE if m.author_id == ALICE.id else BOB)
    await setup.wait(live, QUIET + 1)
    await setup.say(live, [QUIET_DAY[1]])
    assert setup.srv.calls == 0 and len(await episodes(setup.store)) == 2

    await forget_user(setup.store, ALICE.id)
    await setup.wait(live, AGE)
    assert setup.srv.calls == 1
    sent = "\n".join(Prompt(part).text for _, part in batch_parts(setup.srv.requests[0]))
    assert "Lisbon" not in sent and "Alice" not in sent and ALICE.id not in sent
    assert {f.text for f in await graph_facts(setup.store, GUILD)} == {"Bob's car broke down", "Bob takes cello lessons"}
