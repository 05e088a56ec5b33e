"""One window's extraction: an opted-out member's mentions never reach the LLM, a prompt too long for the model's
context is trimmed before it is sent, and a failed window's retries back off."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from common.settings import ExtractionSettings, LLMSettings
from graph.models import Episode, EpisodeStatus, Message, User, utc
from graph.store import GraphStore
from ingest.extraction.window import ask, retry_due
from ingest.extraction.window_prompt import PromptInput
from ingest.windows import ClosedWindow, WindowMessage
from llm.client import OpenAILLM
from tests.support.prompt_reader import prompt_of
from tests.support.scripted import ALICE, BOB, MALLORY, Room, answer, openai_llm
from tests.support.scripted_llm import ScriptedLLMServer, ServerProfile


async def test_mentions_of_an_opted_out_member_are_masked_in_the_prompt(store: GraphStore) -> None:
    with ScriptedLLMServer() as srv:
        room = await Room(store, openai_llm(srv)).open()
        await room.consent.opt_out(MALLORY.id)
        await room.say(ALICE, f"has anyone seen <@{MALLORY.id}> lately?")
        await room.say(BOB, f"no, but <@{ALICE.id}> you owe me lunch")
        srv.push(answer("Alice asked about someone; Bob says Alice owes him lunch."))
        await room.close()
        await room.stop()
        assert srv.calls == 1
        prompt = prompt_of(srv.requests[0])
        assert MALLORY.id not in prompt and "@someone" in prompt
        assert ALICE.id in prompt


def test_backoff_is_minutes_and_the_cap_fails_for_good() -> None:
    settings = ExtractionSettings(max_attempts=3, retry_minutes=2)
    t0 = utc(datetime(2026, 1, 1, 12, 0))
    failed = dict(uuid="u", key="k", guild_id="g", channel_id="c", started_at=t0, ended_at=t0, message_count=1,
                  status=EpisodeStatus.FAILED, updated_at=t0)  # fmt: skip
    second = Episode(**failed, attempts=2)  # waits 2 * 2 = 4 minutes
    assert not retry_due(second, t0 + timedelta(minutes=3), True, settings)
    assert retry_due(second, t0 + timedelta(minutes=4), True, settings)
    assert retry_due(second, t0, False, settings)  # an operator's `ingest --pending` does not wait
    assert not retry_due(Episode(**failed, attempts=3), t0 + timedelta(days=1), False, settings)  # failed for good


async def test_a_window_too_long_for_the_context_is_trimmed_before_it_is_sent() -> None:
    """A window that does not fit the model's context loses its earlier messages, then gets its long
    messages cut, instead of failing (or being sent to an HTTP 400)."""
    alice = User(id="100000000000000001", name="alice", display_name="Alice")
    at = datetime(2026, 1, 1, 12, tzinfo=UTC)

    def said(i: int, words: int) -> WindowMessage:
        text = " ".join(f"word{i}x{j}" for j in range(words))
        return WindowMessage(
            Message(id=f"{i}", guild_id="g", channel_id="c", author_id=alice.id, content=text, created_at=at), alice
        )

    window = ClosedWindow("c", "g", tuple(said(i, 300) for i in range(1, 6)), tuple(said(i, 300) for i in range(10, 15)), "quiet")
    inp = PromptInput(window, [], [], [], max_facts_per_person=5, max_facts_per_window=15, max_message_chars=2000)
    with ScriptedLLMServer(profile=ServerProfile(context=3000)) as server:
        server.responder = lambda request: {"summary": "Alice talked.", "entities": [], "facts": []}
        settings = LLMSettings.model_validate(dict(base_url=server.base_url, model="m", timeout=2.0, max_attempts=3))
        client = OpenAILLM(settings, min_wait=0.001, max_wait=0.01)
        got, _refs, sent = await ask(client, inp, "c:1:5", "g")
        await client.aclose()
    assert got.summary == "Alice talked." and len(server.requests) == 1
    assert sent.window.context == () and sent.max_message_chars < 2000
