"""Forget-me from Discord: a confirmation only the requester can press, then Charlie is gone everywhere
(guilds and DMs, no residue), Alice's facts stay, and nothing Charlie says afterwards is stored."""

from __future__ import annotations

import asyncio
import threading
from dataclasses import replace
from datetime import timedelta
from typing import Any

from bot.memory._forget_me import (
    CANCELLED,
    NOT_YOURS,
    PROMPT,
    ConfirmForget,
    forget_everything,
)
from bot.services import Services
from common.settings import ExtractionSettings, WindowSettings
from graph.models import EpisodeStatus
from graph.reads.facts import facts_about
from graph.store import GraphStore
from ingest.ingestor import Ingestor
from recall.assemble import forget_texts
from tests.bot.harness import AT, Harness
from tests.support.busy_server import G1, GENERAL, PEOPLE, populate
from tests.support.discord_doubles import (
    MockDMChannel,
    MockInteraction,
    MockMessage,
    invoke,
    reply_to,
    sent_texts,
)
from tests.support.erasure_audit import residue_everywhere
from tests.support.prompt_reader import Prompt
from tests.support.scripted import answer, count, entity, fact
from tests.support.scripted_llm import ScriptedLLMServer

CHARLIE = PEOPLE["charlie"]


async def _ask_to_forget(harness: Harness, at_minutes: int) -> tuple[MockMessage, ConfirmForget]:
    ask = harness.message(harness.member("charlie"), "forget me", to_bot=True, at=AT + timedelta(minutes=at_minutes))
    await harness.deliver(ask)
    ask.reply.assert_awaited_once()
    call = ask.reply.await_args
    assert call.args == (PROMPT,)
    view = call.kwargs["view"]
    assert isinstance(view, ConfirmForget)
    return ask, view


async def test_forget_me_removes_charlie_and_keeps_alice(
    store: GraphStore, harness: Harness, llm_server: ScriptedLLMServer
) -> None:
    p = await populate(store)
    charlie = harness.member("charlie")
    dm = MockDMChannel(recipient=charlie)
    llm_server.push("Hi Charlie, noted!")
    private = harness.message(charlie, "hi, my cat is called Tom", channel=dm, guild=None, at=AT)
    await harness.deliver(private)
    [bot_said] = sent_texts(private.reply)
    await harness.deliver(
        MockMessage(
            author=harness.bot.user,
            content=bot_said,
            channel=dm,
            guild=None,
            created_at=AT + timedelta(seconds=5),
            reference=reply_to(private),
        )
    )
    dm_scope = f"dm:{CHARLIE}"
    assert await count(store, "MATCH (m:Message) WHERE m.guild_id = $g RETURN count(m) AS n", g=dm_scope) == 2
    alice_before = await facts_about(store, G1, user_ids=[PEOPLE["alice"]], now=AT)

    ask, view = await _ask_to_forget(harness, 1)

    alice_press = MockInteraction(user=harness.member("alice"))
    await view._scheduled_task(view.confirm, alice_press)
    assert sent_texts(alice_press.response.send_message) == [NOT_YOURS]
    assert view.value is None and await count(store, "MATCH (u:User {id: $id}) RETURN count(u) AS n", id=CHARLIE) == 1

    press = MockInteraction(user=charlie)
    await view._scheduled_task(view.confirm, press)
    press.response.edit_message.assert_awaited_once()
    assert press.response.edit_message.await_args.kwargs["view"] is None
    [done] = sent_texts(press.followup.send)
    assert done.startswith("Done: I deleted 2 facts, 6 messages")  # 3 in guilds, the request, both sides of the DM
    assert view.value is True and view.is_finished()

    assert await residue_everywhere(store, CHARLIE) == []
    assert forget_texts() == 0  # the reply to Charlie's DM left nothing of his in the process's caches
    assert await count(store, "MATCH (n) WHERE n.guild_id = $g OR n.id = $g RETURN count(n) AS n", g=dm_scope) == 0
    assert await facts_about(store, G1, user_ids=[PEOPLE["alice"]], now=AT) == alice_before
    assert {f.uuid for f in alice_before} == {p.facts["alice_austin"], p.facts["alice_luna"]}

    later = harness.message(charlie, "I'm still here, remember me?", at=AT + timedelta(minutes=5))
    await harness.deliver(later)
    again = harness.message(charlie, "and in private", channel=dm, guild=None, at=AT + timedelta(minutes=6))
    llm_server.push("Hello again.")
    await harness.deliver(again)
    assert (
        await count(store, "MATCH (m:Message) WHERE m.id IN $ids RETURN count(m) AS n", ids=[str(later.id), str(again.id)]) == 0
    )
    assert await count(store, "MATCH (u:User {id: $id}) RETURN count(u) AS n", id=CHARLIE) == 0
    assert not harness.bot.services.consent.allowed(CHARLIE)


async def test_cancel_deletes_nothing(store: GraphStore, harness: Harness) -> None:
    await populate(store)
    _, view = await _ask_to_forget(harness, 1)
    press = MockInteraction(user=harness.member("charlie"))
    await view._scheduled_task(view.cancel, press)
    assert press.response.edit_message.await_args.kwargs == {"content": CANCELLED, "view": None}
    press.followup.send.assert_not_awaited()
    assert view.value is False
    assert await count(store, "MATCH (u:User {id: $id})<-[:ABOUT]-(f:Fact) RETURN count(f) AS n", id=CHARLIE) == 1
    assert harness.bot.services.consent.allowed(CHARLIE)


async def test_slash_forget_me_answers_with_the_view(store: GraphStore, harness: Harness) -> None:
    await populate(store)
    memory = harness.memory
    interaction = MockInteraction(user=harness.member("charlie"), guild=harness.guild)
    await invoke(memory.forget_me_command, memory, interaction)
    call = interaction.response.send_message.await_args
    assert call.args == (PROMPT,) and call.kwargs["ephemeral"] is True
    view = call.kwargs["view"]
    press = MockInteraction(user=harness.member("charlie"))
    await view._scheduled_task(view.confirm, press)
    [done] = sent_texts(press.followup.send)
    assert done.startswith("Done: I deleted 2 facts, 3 messages")
    assert await residue_everywhere(store, CHARLIE) == []


async def test_forget_me_waits_for_an_extraction_already_reading_their_messages(
    store: GraphStore, services: Services, llm_server: ScriptedLLMServer
) -> None:
    p = await populate(store)
    said = await p.say(GENERAL, "charlie", "my sister just started at the hospital", AT)
    key = await p.episode(GENERAL, [said, await p.say(GENERAL, "alice", "congrats to her!", AT + timedelta(seconds=9))])
    asked, release = threading.Event(), threading.Event()

    def slow_model(request: dict[str, Any]) -> dict[str, Any]:
        prompt = Prompt(request)
        asked.set()
        release.wait(10)
        charlie = prompt.user("Charlie")
        return answer(
            "Charlie talked about his sister.",
            entities=[entity("E1", "Charlie's sister", "person", owner=charlie, relation="sister")],
            facts=[fact("Charlie's sister works at the hospital", about=["E1"], source=[prompt.msg(said.content)])],
        )

    llm_server.responder = slow_model
    ingestor = Ingestor(store, services.llm, ExtractionSettings(batch_messages=1), WindowSettings())
    extracting = asyncio.create_task(ingestor.extract(key))
    await asyncio.to_thread(asked.wait, 10)
    forgetting = asyncio.create_task(forget_everything(replace(services, ingestor=ingestor), CHARLIE, ["charlie", "Charlie"]))
    done, _ = await asyncio.wait([forgetting], timeout=3.0)
    assert not done  # it waits for the extraction in flight rather than racing it
    release.set()
    assert await extracting == EpisodeStatus.DONE
    report = await forgetting
    assert report.residue == [] and await residue_everywhere(store, CHARLIE) == []
    assert await count(store, "MATCH (f:Fact) WHERE f.text CONTAINS 'hospital' RETURN count(f) AS n") == 0
