"""The LLM adapter: structured extraction and plain chat over any OpenAI-compatible endpoint.

All retrying happens here (tenacity; the openai client itself is built with `max_retries=0`), every
call is counted in a `UsageMeter` and logged as an `llm.call` event.
"""

from __future__ import annotations

import logging
import random
import threading
import time
from collections import deque
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, replace
from datetime import UTC, date, datetime
from typing import Any, Protocol, TypeVar, cast

import openai
from pydantic import BaseModel, ValidationError
from tenacity import (
    AsyncRetrying,
    RetryCallState,
    retry_if_exception_type,
    stop_after_attempt,
)

from common.events import emit
from common.settings import LLMSettings
from common.tokens import estimate_tokens

T = TypeVar("T", bound=BaseModel)
R = TypeVar("R")

RETRYABLE = (openai.RateLimitError, openai.APITimeoutError, openai.APIConnectionError, openai.InternalServerError)
REASK = "Your previous reply was invalid: {error}. Reply again with only JSON that matches the schema."


class LLMError(Exception):
    """The endpoint is unreachable, refused the request, or kept failing after every retry."""

    outcome = "error"

    def __init__(self, message: str, *, outcome: str | None = None) -> None:
        super().__init__(message)
        if outcome:
            self.outcome = outcome


class LLMOutputError(LLMError):
    """The reply failed validation twice (first reply and the one re-ask)."""

    outcome = "invalid_output"

    def __init__(self, message: str, validation_error: str) -> None:
        super().__init__(message)
        self.validation_error = validation_error


@dataclass(frozen=True)
class CallRecord:
    purpose: str
    prompt_tokens: int
    completion_tokens: int
    latency_s: float
    outcome: str
    attempts: int


@dataclass
class UsageTotals:
    calls: int = 0
    requests: int = 0  # HTTP attempts, retries and re-asks included
    prompt_tokens: int = 0
    completion_tokens: int = 0
    failures: int = 0

    def add(self, record: CallRecord) -> None:
        self.calls += 1
        self.requests += record.attempts
        self.prompt_tokens += record.prompt_tokens
        self.completion_tokens += record.completion_tokens
        self.failures += record.outcome != "ok"


class UsageMeter(UsageTotals):
    """Running totals of LLM calls (its own fields), plus per UTC day and per purpose; keeps the last records."""

    def __init__(self, keep_records: int = 200) -> None:
        super().__init__()
        self._lock = threading.Lock()
        self._days: dict[date, UsageTotals] = {}
        self._purposes: dict[str, UsageTotals] = {}
        self.recent: deque[CallRecord] = deque(maxlen=keep_records)

    def record(self, record: CallRecord) -> None:
        day = datetime.now(UTC).date()
        with self._lock:
            self.add(record)
            self._days.setdefault(day, UsageTotals()).add(record)
            self._purposes.setdefault(record.purpose, UsageTotals()).add(record)
            self.recent.append(record)

    def total(self) -> UsageTotals:
        with self._lock:
            return UsageTotals(self.calls, self.requests, self.prompt_tokens, self.completion_tokens, self.failures)

    def today(self) -> UsageTotals:
        return self.day(datetime.now(UTC).date())

    def day(self, day: date) -> UsageTotals:
        with self._lock:
            return replace(self._days.get(day, UsageTotals()))

    def by_purpose(self) -> dict[str, UsageTotals]:
        with self._lock:
            return {purpose: replace(totals) for purpose, totals in self._purposes.items()}


class StructuredLLM(Protocol):
    async def extract(self, messages: list[dict[str, str]], response_model: type[T], *, purpose: str) -> T: ...

    async def chat(self, messages: list[dict[str, str]], *, purpose: str = "reply") -> str: ...


class _Call:
    """One logical call (any number of HTTP attempts); recorded and logged when the block exits."""

    def __init__(self, meter: UsageMeter, purpose: str, model: str) -> None:
        self.meter, self.purpose, self.model = meter, purpose, model
        self.attempts = self.prompt_tokens = self.completion_tokens = 0

    def count_usage(self, usage: dict[str, Any] | None, messages: list[dict[str, str]], content: str) -> None:
        if usage:
            self.prompt_tokens += int(usage.get("prompt_tokens") or 0)
            self.completion_tokens += int(usage.get("completion_tokens") or 0)
        else:  # some local servers omit usage; estimate instead of counting nothing
            self.prompt_tokens += sum(estimate_tokens(m.get("content") or "") for m in messages)
            self.completion_tokens += estimate_tokens(content)

    def __enter__(self) -> _Call:
        self._start = time.monotonic()
        return self

    def __exit__(self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: object) -> None:
        outcome = "ok" if exc is None else exc.outcome if isinstance(exc, LLMError) else type(exc).__name__
        latency = time.monotonic() - self._start
        self.meter.record(CallRecord(self.purpose, self.prompt_tokens, self.completion_tokens, latency, outcome, self.attempts))
        extra = {"error": str(exc)[:500]} if exc is not None else {}
        emit(
            "llm",
            "call",
            level=logging.INFO if exc is None else logging.WARNING,
            purpose=self.purpose,
            model=self.model,
            prompt_tokens=self.prompt_tokens,
            completion_tokens=self.completion_tokens,
            latency_ms=round(latency * 1000),
            outcome=outcome,
            attempts=self.attempts,
            **extra,
        )


class OpenAILLM:
    def __init__(
        self, settings: LLMSettings, meter: UsageMeter | None = None, *, min_wait: float = 1.0, max_wait: float = 30.0
    ) -> None:
        if not settings.base_url:
            raise ValueError("LLM_BASE_URL is not set")
        self.model = settings.model
        self.reply_model = settings.reply_model or settings.model
        self.max_attempts = settings.max_attempts
        self.meter = meter if meter is not None else UsageMeter()
        self.min_wait, self.max_wait = min_wait, max_wait
        self._client = openai.AsyncOpenAI(
            base_url=settings.base_url,
            api_key=settings.api_key.get_secret_value() or "none",
            timeout=settings.timeout,
            max_retries=0,
        )

    async def aclose(self) -> None:
        await self._client.close()

    async def extract(self, messages: list[dict[str, str]], response_model: type[T], *, purpose: str) -> T:
        convo = list(messages)
        with _Call(self.meter, purpose, self.model) as call:
            error = ""
            for _ask in range(2):
                raw = await self._send(
                    call,
                    lambda: self._client.chat.completions.with_raw_response.parse(
                        model=self.model, messages=cast(Any, convo), response_format=response_model
                    ),
                )
                content, error, value = self._read_structured(call, convo, raw, response_model)
                if value is not None:
                    return value
                convo += [{"role": "assistant", "content": content}, {"role": "user", "content": REASK.format(error=error)}]
            raise LLMOutputError(f"{purpose}: reply did not match {response_model.__name__} twice: {error}", error)

    async def chat(self, messages: list[dict[str, str]], *, purpose: str = "reply") -> str:
        with _Call(self.meter, purpose, self.reply_model) as call:
            completion = await self._send(
                call, lambda: self._client.chat.completions.create(model=self.reply_model, messages=cast(Any, messages))
            )
            content = (completion.choices[0].message.content if completion.choices else None) or ""
            call.count_usage(completion.usage.model_dump() if completion.usage else None, messages, content)
            return content

    def _read_structured(self, call: _Call, convo: list[dict[str, str]], raw: Any, model: type[T]) -> tuple[str, str, T | None]:
        """Returns (reply content, validation error, parsed value or None)."""
        try:
            body = raw.http_response.json()
            content = str(((body.get("choices") or [{}])[0].get("message") or {}).get("content") or "")
        except (ValueError, AttributeError) as exc:
            raise LLMError(f"LLM endpoint returned an unreadable response: {exc}", outcome="bad_response") from None
        call.count_usage(body.get("usage"), convo, content)
        try:
            completion = raw.parse()
            if not completion.choices:
                return content, "the reply had no choices", None
            message = completion.choices[0].message
            if message.parsed is not None:
                return content, "", cast(T, message.parsed)
            if message.refusal:
                return content, f"the model refused: {message.refusal}", None
            return content, "", model.model_validate_json(message.content or "")
        except ValidationError as exc:
            return content, _describe_validation(exc), None
        except openai.LengthFinishReasonError:
            return content, "the reply was cut off at the length limit", None
        except openai.OpenAIError as exc:
            raise LLMError(f"LLM endpoint returned an unreadable response: {exc}", outcome="bad_response") from exc

    async def _send(self, call: _Call, request: Callable[[], Awaitable[R]]) -> R:
        retrying = AsyncRetrying(
            stop=stop_after_attempt(self.max_attempts),
            wait=self._wait,
            reraise=True,
            retry=retry_if_exception_type(RETRYABLE),
            before_sleep=lambda s: _log_retry(call.purpose, s),
        )
        try:
            async for attempt in retrying:
                with attempt:
                    call.attempts += 1
                    return await request()
        except RETRYABLE as exc:
            raise LLMError(
                f"LLM endpoint failed {call.attempts} time(s), giving up: {_describe_api_error(exc)}", outcome="unavailable"
            ) from exc
        except openai.APIStatusError as exc:
            raise LLMError(f"LLM endpoint rejected the request: {_describe_api_error(exc)}", outcome="rejected") from exc
        except openai.OpenAIError as exc:
            raise LLMError(f"LLM client error: {exc}") from exc
        raise AssertionError("unreachable")

    def _wait(self, state: RetryCallState) -> float:
        """Exponential backoff with jitter in [min_wait, max_wait]; a longer Retry-After is honoured up to max_wait."""
        backoff = self.min_wait * 2.0 ** (state.attempt_number - 1) + random.uniform(0, self.min_wait)
        wait = max(self.min_wait, min(backoff, self.max_wait))
        exc = state.outcome.exception() if state.outcome else None
        header = exc.response.headers.get("retry-after") if isinstance(exc, openai.APIStatusError) else None
        try:
            return max(wait, min(float(header), self.max_wait)) if header else wait
        except ValueError:  # an HTTP date; the backoff is good enough
            return wait


def _log_retry(purpose: str, state: RetryCallState) -> None:
    exc = state.outcome.exception() if state.outcome else None
    emit(
        "llm",
        "retry",
        level=logging.WARNING,
        purpose=purpose,
        attempt=state.attempt_number,
        wait_s=round(state.upcoming_sleep, 3),
        error=_describe_api_error(exc) if exc else "",
    )


def _describe_api_error(exc: BaseException) -> str:
    if isinstance(exc, openai.APIStatusError):
        return f"HTTP {exc.status_code}: {exc.message}"
    if isinstance(exc, openai.APIConnectionError) and exc.__cause__ is not None:
        return f"{exc.message} ({exc.__cause__!r})"
    return str(exc)


def _describe_validation(exc: ValidationError) -> str:
    parts = [(".".join(map(str, e["loc"])) + ": " if e["loc"] else "") + e["msg"] for e in exc.errors()[:8]]
    return "; ".join(parts)[:800]


def build_llm(settings: LLMSettings, meter: UsageMeter | None = None) -> OpenAILLM | None:
    return OpenAILLM(settings, meter) if settings.base_url else None


async def check_reachable(settings: LLMSettings) -> str | None:
    """GET /models on the endpoint; None when it answers, else a message for `grapevine doctor`."""
    if not settings.base_url:
        return "LLM_BASE_URL is not set: extraction and replies are switched off"
    url, timeout = settings.base_url, min(settings.timeout, 10.0)
    client = openai.AsyncOpenAI(
        base_url=url, api_key=settings.api_key.get_secret_value() or "none", timeout=timeout, max_retries=0
    )
    try:
        await client.models.list()
    except (openai.AuthenticationError, openai.PermissionDeniedError) as exc:
        return f"LLM endpoint {url} refused the API key (HTTP {exc.status_code}); check LLM_API_KEY"
    except openai.NotFoundError:
        return f"LLM endpoint {url} has no /models route (HTTP 404); does LLM_BASE_URL need a /v1 suffix?"
    except openai.APITimeoutError:
        return f"LLM endpoint {url} did not answer GET /models within {timeout:g}s"
    except openai.APIError as exc:
        return f"LLM endpoint {url} is not usable: {_describe_api_error(exc)}"
    finally:
        await client.close()
    return None
