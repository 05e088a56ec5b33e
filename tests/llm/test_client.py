"""The LLM adapter against the scripted OpenAI-compatible server, with the real openai client."""

from __future__ import annotations

import logging
import time
from collections.abc import AsyncIterator, Iterator

import pytest
from pydantic import BaseModel

from common.settings import LLMSettings
from common.tokens import estimate_tokens
from llm.client import OpenAILLM, build_llm
from llm.errors import LLMError, LLMOutputError
from llm.meter import UsageMeter
from llm.probe import check_reachable
from tests.support.scripted_llm import Fault, ScriptedLLMServer

pytestmark = pytest.mark.serial  # the client gives up after 0.5 s, and two tests bound how long a call takes

ASK = [{"role": "system", "content": "Extract the person."}, {"role": "user", "content": "Ada is 36 and likes chess."}]


class Person(BaseModel):
    name: str
    age: int


def _settings(base_url: str | None, **overrides: object) -> LLMSettings:
    values: dict[str, object] = dict(
        base_url=base_url,
        api_key="test-key",
        model="extract-model",
        reply_model=None,
        timeout=0.5,
        max_attempts=3,
        fold_system=False,
    )
    values.update(overrides)
    return LLMSettings(**values)


@pytest.fixture
def srv() -> Iterator[ScriptedLLMServer]:
    with ScriptedLLMServer() as server:
        yield server


@pytest.fixture
async def llm(srv: ScriptedLLMServer) -> AsyncIterator[OpenAILLM]:
    client = OpenAILLM(_settings(srv.base_url), UsageMeter(), min_wait=0.001, max_wait=0.01)
    yield client
    await client.aclose()


async def test_good_reply_parses_into_model(srv: ScriptedLLMServer, llm: OpenAILLM) -> None:
    srv.push(Person(name="Ada", age=36))
    result = await llm.extract(ASK, Person, purpose="extract")
    assert result == Person(name="Ada", age=36)
    assert srv.calls == 1
    request = srv.requests[0]
    assert request["model"] == "extract-model"
    assert request["messages"] == ASK
    assert request["response_format"]["type"] == "json_schema"
    assert request["response_format"]["json_schema"]["name"] == "Person"
    assert llm.meter.recent[-1].outcome == "ok" and llm.meter.recent[-1].attempts == 1


async def test_rate_limit_then_server_error_then_success(srv: ScriptedLLMServer, llm: OpenAILLM) -> None:
    srv.push(Fault.status(429), Fault.status(500), {"name": "Ada", "age": 36})
    assert await llm.extract(ASK, Person, purpose="extract") == Person(name="Ada", age=36)
    assert srv.calls == 3
    assert [r["messages"] for r in srv.requests] == [ASK, ASK, ASK]
    record = llm.meter.recent[-1]
    assert (record.outcome, record.attempts) == ("ok", 3)


async def test_timeout_then_success(srv: ScriptedLLMServer, llm: OpenAILLM) -> None:
    srv.push(Fault.timeout(3.0), {"name": "Ada", "age": 36})
    started = time.monotonic()
    assert await llm.extract(ASK, Person, purpose="extract") == Person(name="Ada", age=36)
    assert time.monotonic() - started < 2.0  # the client gave up after ~0.5 s, it did not wait for the server
    assert srv.calls == 2
    assert llm.meter.recent[-1].attempts == 2


async def test_malformed_then_valid_reasks_with_the_error(srv: ScriptedLLMServer, llm: OpenAILLM) -> None:
    srv.push(Fault.malformed("{not json"), {"name": "Ada", "age": 36})
    assert await llm.extract(ASK, Person, purpose="extract") == Person(name="Ada", age=36)
    assert srv.calls == 2
    second = srv.requests[1]["messages"]
    assert second[:-1] == ASK[:-1] and len(second) == len(ASK)  # the invalid reply is not sent back
    assert second[-1]["role"] == "user" and second[-1]["content"].startswith(ASK[-1]["content"] + "\n\n")
    assert "\n\nYour previous reply was invalid: Invalid JSON" in second[-1]["content"]
    assert second[-1]["content"].endswith("Reply again with only JSON that matches the schema.")


async def test_wrong_shape_reask_names_the_field(srv: ScriptedLLMServer, llm: OpenAILLM) -> None:
    srv.push({"name": "Ada"}, {"name": "Ada", "age": 36})
    assert await llm.extract(ASK, Person, purpose="extract") == Person(name="Ada", age=36)
    assert "age: Field required" in srv.requests[1]["messages"][-1]["content"]


async def test_malformed_twice_raises_output_error(srv: ScriptedLLMServer, llm: OpenAILLM) -> None:
    srv.push(Fault.malformed("{not json"), Fault.malformed("still [not json"), {"name": "never", "age": 1})
    with pytest.raises(LLMOutputError) as info:
        await llm.extract(ASK, Person, purpose="extract")
    assert srv.calls == 2
    assert srv.pending() == 1
    assert "Invalid JSON" in info.value.validation_error
    assert llm.meter.recent[-1].outcome == "invalid_output"
    assert llm.meter.failures == 1


async def test_server_errors_exhaust_attempts(srv: ScriptedLLMServer, llm: OpenAILLM) -> None:
    srv.push(*[Fault.status(500)] * 5)
    with pytest.raises(LLMError) as info:
        await llm.extract(ASK, Person, purpose="extract")
    assert not isinstance(info.value, LLMOutputError)
    assert srv.calls == 3  # max_attempts
    assert "HTTP 500" in str(info.value)
    record = llm.meter.recent[-1]
    assert (record.outcome, record.attempts) == ("unavailable", 3)
    assert record.prompt_tokens == srv.prompt_tokens > 0  # every failed attempt read the prompt, and counts


async def test_unauthorized_fails_immediately(srv: ScriptedLLMServer, llm: OpenAILLM) -> None:
    srv.push(Fault.status(401, "bad api key"), {"name": "Ada", "age": 36})
    with pytest.raises(LLMError) as info:
        await llm.extract(ASK, Person, purpose="extract")
    assert srv.calls == 1
    assert srv.pending() == 1
    assert "HTTP 401" in str(info.value) and "bad api key" in str(info.value)
    assert llm.meter.recent[-1].outcome == "rejected"


async def test_nothing_scripted_is_an_error_not_a_success(srv: ScriptedLLMServer, llm: OpenAILLM) -> None:
    with pytest.raises(LLMError, match="nothing scripted"):
        await llm.extract(ASK, Person, purpose="extract")


async def test_responder_answers_when_queue_is_empty(srv: ScriptedLLMServer, llm: OpenAILLM) -> None:
    srv.responder = lambda request: {"name": request["messages"][-1]["content"].split()[0], "age": 36}
    assert await llm.extract(ASK, Person, purpose="extract") == Person(name="Ada", age=36)


async def test_chat_uses_reply_model(srv: ScriptedLLMServer) -> None:
    llm = OpenAILLM(_settings(srv.base_url, reply_model="reply-model"), min_wait=0.001, max_wait=0.01)
    srv.push(Fault.status(503), "Hello Ada!")
    try:
        assert await llm.chat([{"role": "user", "content": "hi"}]) == "Hello Ada!"
    finally:
        await llm.aclose()
    assert [r["model"] for r in srv.requests] == ["reply-model", "reply-model"]
    assert "response_format" not in srv.requests[0]
    assert llm.meter.recent[-1].purpose == "reply"


async def test_usage_meter_matches_server_totals(srv: ScriptedLLMServer, llm: OpenAILLM) -> None:
    srv.push({"name": "Ada", "age": 36})
    await llm.extract(ASK, Person, purpose="extract")
    expected_prompt = estimate_tokens(ASK[0]["content"]) + estimate_tokens(ASK[1]["content"])
    assert llm.meter.prompt_tokens == srv.prompt_tokens == expected_prompt
    assert llm.meter.completion_tokens == srv.completion_tokens == estimate_tokens('{"name": "Ada", "age": 36}')

    srv.push(Fault.status(429), Fault.malformed("{oops"), {"name": "Bo", "age": 7}, Fault.status(500), "plain text reply")
    await llm.extract(ASK, Person, purpose="extract")
    await llm.chat(ASK, purpose="reply")
    srv.push(Fault.status(400))
    with pytest.raises(LLMError):
        await llm.chat(ASK)

    total = llm.meter.total()
    assert (total.calls, total.requests, total.failures) == (4, srv.calls, 1) == (4, 7, 1)  # 1 + (429, bad, ok) + (500, ok) + 400
    assert total.prompt_tokens == srv.prompt_tokens > expected_prompt
    assert total.completion_tokens == srv.completion_tokens
    assert llm.meter.today() == total
    assert llm.meter.by_purpose()["reply"].calls == 2


async def test_call_event_is_emitted(srv: ScriptedLLMServer, llm: OpenAILLM, caplog: pytest.LogCaptureFixture) -> None:
    srv.push(Fault.status(500), {"name": "Ada", "age": 36})
    with caplog.at_level(logging.INFO, logger="common.events"):
        await llm.extract(ASK, Person, purpose="extract")
    payloads = [p for r in caplog.records if (p := r.__dict__.get("payload", {})).get("event") == "call"]
    assert len(payloads) == 1
    event = payloads[0]
    assert {k: event[k] for k in ("subsystem", "purpose", "model", "outcome", "attempts")} == {
        "subsystem": "llm",
        "purpose": "extract",
        "model": "extract-model",
        "outcome": "ok",
        "attempts": 2,
    }
    assert event["prompt_tokens"] == srv.prompt_tokens and event["completion_tokens"] == srv.completion_tokens
    assert isinstance(event["latency_ms"], int)


async def test_check_reachable_and_build(srv: ScriptedLLMServer) -> None:
    assert await check_reachable(_settings(srv.base_url)) is None
    assert "LLM_BASE_URL" in (await check_reachable(_settings(None)) or "")
    assert "/v1" in (await check_reachable(_settings(srv.base_url.removesuffix("/v1"))) or "")
    assert build_llm(_settings(None)) is None
    built = build_llm(_settings(srv.base_url))
    assert isinstance(built, OpenAILLM)
    await built.aclose()


async def test_check_reachable_reports_a_closed_port() -> None:
    with ScriptedLLMServer() as server:
        url = server.base_url
    message = await check_reachable(_settings(url))
    assert message is not None and url in message


async def test_server_stops_promptly_while_a_fault_sleeps() -> None:
    server = ScriptedLLMServer().start()
    llm = OpenAILLM(_settings(server.base_url, max_attempts=1), min_wait=0.001, max_wait=0.01)
    server.push(Fault.timeout(30))
    with pytest.raises(LLMError, match="timed out"):
        await llm.extract(ASK, Person, purpose="extract")
    await llm.aclose()
    started = time.monotonic()
    server.stop()
    assert time.monotonic() - started < 2.0
