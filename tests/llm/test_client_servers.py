"""The LLM adapter against servers that behave like the real ones (the scripted server's profiles, as
measured on llama.cpp's `llama-server` and llama-cpp-python's server)."""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator, Iterator

import pytest
from pydantic import BaseModel, Field

from common.settings import LLMSettings
from llm.client import OpenAILLM, effective_timeout
from llm.errors import LLMError, LLMOutputError, LLMUnavailable
from llm.meter import UsageMeter
from llm.output_modes import max_answer_tokens
from tests.support.scripted_llm import LLAMA_CPP_PYTHON, LLAMA_SERVER, Fault, ScriptedLLMServer, ServerProfile

ASK = [{"role": "system", "content": "Extract the person."}, {"role": "user", "content": "Ada is 36 and likes chess."}]


class Person(BaseModel):
    name: str = Field(max_length=40)
    hobbies: list[str] = Field(default_factory=list, max_length=3)


def settings(base_url: str, **overrides: object) -> LLMSettings:
    values: dict[str, object] = dict(base_url=base_url, model="m", timeout=2.0, max_attempts=3)
    return LLMSettings.model_validate(values | overrides)


@pytest.fixture
def server(request: pytest.FixtureRequest) -> Iterator[ScriptedLLMServer]:
    profile: ServerProfile = getattr(request, "param", ServerProfile())
    with ScriptedLLMServer(profile=profile) as srv:
        yield srv


@pytest.fixture
async def llm(server: ScriptedLLMServer) -> AsyncIterator[OpenAILLM]:
    client = OpenAILLM(settings(server.base_url), UsageMeter(), min_wait=0.001, max_wait=0.01)
    yield client
    await client.aclose()


@pytest.mark.parametrize("server", [LLAMA_CPP_PYTHON], indirect=True)
async def test_a_server_rejecting_json_schema_falls_back_once_and_remembers(
    server: ScriptedLLMServer, llm: OpenAILLM, caplog: pytest.LogCaptureFixture
) -> None:
    """llama-cpp-python answers `json_schema` with HTTP 500; that is not retried as transient."""
    server.responder = lambda request: {"name": "Ada", "hobbies": ["chess"]}
    with caplog.at_level(logging.WARNING):
        assert await llm.extract(ASK, Person, purpose="extract") == Person(name="Ada", hobbies=["chess"])
    kinds = [r.get("response_format", {}).get("type") for r in server.requests]
    assert kinds == ["json_schema", "json_object"]  # one rejection, no retries of it
    assert server.requests[1]["response_format"]["schema"]["properties"]["name"]["maxLength"] == 40
    assert any(getattr(r, "payload", {}).get("event") == "mode_fallback" for r in caplog.records)
    assert await llm.extract(ASK, Person, purpose="extract") == Person(name="Ada", hobbies=["chess"])
    assert [r["response_format"]["type"] for r in server.requests[2:]] == ["json_object"]  # remembered


async def test_tools_and_plain_text_modes_end_in_the_same_validation(server: ScriptedLLMServer) -> None:
    server.responder = lambda request: 'Sure! ```json\n{"name": "Ada"}\n```'
    for mode in ("tools", "text"):
        client = OpenAILLM(settings(server.base_url, output_mode=mode), min_wait=0.001, max_wait=0.01)
        assert await client.extract(ASK, Person, purpose="extract") == Person(name="Ada")
        await client.aclose()
    tools_request, text_request = server.requests
    assert tools_request["tool_choice"]["function"]["name"] == "answer" and "response_format" not in tools_request
    assert "matches this JSON schema" in text_request["messages"][-1]["content"]


@pytest.mark.parametrize("server", [LLAMA_CPP_PYTHON], indirect=True)
async def test_instructions_survive_a_server_that_drops_system_messages(server: ScriptedLLMServer, llm: OpenAILLM) -> None:
    """The instructions are folded into the first user turn by default."""
    server.push({"name": "Ada"}, {"name": "Ada"})
    await llm.extract(ASK, Person, purpose="extract")
    seen = server.requests[-1]["messages"]
    assert [m["role"] for m in seen] == ["user"]
    assert seen[0]["content"].startswith("Extract the person.\n\nAda is 36")


async def test_every_request_is_bounded_and_a_loop_is_cut_at_the_limit(server: ScriptedLLMServer, llm: OpenAILLM) -> None:
    """Findings 4 and 5: max_tokens from the schema's bounds; the re-ask never resends the cut-off answer."""
    looping = '{"name": "Ada", "hobbies": ["' + "chess, " * 5000
    server.push(looping, {"name": "Ada"})
    assert await llm.extract(ASK, Person, purpose="extract") == Person(name="Ada")
    first, second = server.requests
    assert first["max_tokens"] == second["max_tokens"] == max_answer_tokens(Person) < 4096
    assert "chess, chess" not in str(second["messages"])  # the cut-off answer is not sent back
    assert "cut off at the length limit" in second["messages"][-1]["content"]


async def test_a_loop_twice_fails_the_call_with_the_reason(server: ScriptedLLMServer, llm: OpenAILLM) -> None:
    server.responder = lambda request: '{"name": "' + "a" * 20000
    with pytest.raises(LLMOutputError, match="cut off"):
        await llm.extract(ASK, Person, purpose="extract")
    assert len(server.requests) == 2


@pytest.mark.parametrize("server", [LLAMA_SERVER], indirect=True)
async def test_the_answer_limit_fits_the_context_the_server_reports(server: ScriptedLLMServer) -> None:
    server.responder = lambda request: "a reply"
    client = OpenAILLM(settings(server.base_url, max_tokens=8000), min_wait=0.001, max_wait=0.01)
    long_prompt = [{"role": "user", "content": "word " * 7000}]
    assert await client.chat(long_prompt) == "a reply"  # the server would answer 400 if it did not fit
    assert server.requests[-1]["max_tokens"] < 8192 - 7000
    with pytest.raises(LLMError, match="no room for an answer") as info:
        await client.chat([{"role": "user", "content": "word " * 9000}])
    assert info.value.outcome == "too_long"
    await client.aclose()


def test_local_endpoints_get_a_longer_default_timeout() -> None:
    """LLM_TIMEOUT=60 failed every window on a CPU server."""
    assert effective_timeout(LLMSettings(base_url="http://127.0.0.1:8080/v1")) == 600
    assert effective_timeout(LLMSettings(base_url="http://localhost:11434/v1")) == 600
    assert effective_timeout(LLMSettings(base_url="https://api.openai.com/v1")) == 60
    assert effective_timeout(LLMSettings(base_url="http://127.0.0.1:8080/v1", timeout=5)) == 5


@pytest.mark.parametrize("server", [ServerProfile(usage=False)], indirect=True)
async def test_a_server_without_usage_is_counted_by_estimate(server: ScriptedLLMServer, llm: OpenAILLM) -> None:
    """Nothing is counted as free."""
    server.push(Fault.status(500), {"name": "Ada"})
    await llm.extract(ASK, Person, purpose="extract")
    record = llm.meter.recent[-1]
    assert record.attempts == 2 and record.prompt_tokens >= 2 * 10 and record.completion_tokens > 0


async def test_an_outage_opens_the_breaker_and_parks_calls(server: ScriptedLLMServer) -> None:
    """After LLM_BREAKER_FAILURES unreachable calls, calls fail at once without a request."""
    server.responder = lambda request: Fault.status(503)
    client = OpenAILLM(settings(server.base_url, breaker_failures=2, max_attempts=1), min_wait=0.001, max_wait=0.01)
    for _ in range(2):
        with pytest.raises(LLMError):
            await client.extract(ASK, Person, purpose="extract")
    sent = len(server.requests)
    with pytest.raises(LLMUnavailable):
        await client.extract(ASK, Person, purpose="extract")
    assert len(server.requests) == sent and client.parked
    client.breaker.open_until = client.breaker.clock() - 1  # the parking time has passed
    server.responder = lambda request: {"name": "Ada"}
    assert await client.extract(ASK, Person, purpose="extract") == Person(name="Ada")
    assert not client.parked
    await client.aclose()


@pytest.mark.parametrize("server", [ServerProfile(models=frozenset({"gemma"}))], indirect=True)
async def test_an_unknown_model_is_rejected_not_retried(server: ScriptedLLMServer, llm: OpenAILLM) -> None:
    with pytest.raises(LLMError, match="does not exist") as info:
        await llm.extract(ASK, Person, purpose="extract")
    assert info.value.outcome == "rejected" and len(server.requests) == 1


async def test_the_call_event_names_what_it_served(
    server: ScriptedLLMServer, llm: OpenAILLM, caplog: pytest.LogCaptureFixture
) -> None:
    server.push({"name": "Ada"})
    with caplog.at_level(logging.INFO):
        await llm.extract(ASK, Person, purpose="extraction", tags={"window": "w1", "guild_id": "g1"})
    [event] = [r.payload for r in caplog.records if getattr(r, "payload", {}).get("event") == "call"]  # type: ignore[attr-defined]
    assert (event["window"], event["guild_id"], event["mode"]) == ("w1", "g1", "json_schema")
