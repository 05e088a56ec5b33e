"""The LLM client over any OpenAI-compatible endpoint: one logical call for a validated answer (output mode
fallback, one re-ask, retries with backoff) or a plain chat reply, counted and logged."""

from __future__ import annotations

import logging
import math
import random
import time
from collections.abc import Awaitable, Callable
from typing import Any, Protocol, TypeVar, cast
from urllib.parse import urlsplit

import openai
from pydantic import BaseModel, ValidationError
from tenacity import AsyncRetrying, RetryCallState, retry_if_exception, stop_after_attempt

from common.events import emit
from common.settings import LLMSettings
from common.tokens import estimate_tokens
from llm.breaker import Breaker
from llm.errors import LLMError, LLMOutputError, LLMUnavailable, describe_api_error
from llm.meter import CallRecord, UsageMeter
from llm.output_modes import MODE_REJECTED, MODES, OutputMode, answer_text, max_answer_tokens, request_for, tolerant_json

T = TypeVar("T", bound=BaseModel)
R = TypeVar("R")

RETRYABLE = (openai.RateLimitError, openai.APITimeoutError, openai.APIConnectionError, openai.InternalServerError)
REASK = "Your previous reply was invalid: {error}. Reply again with only JSON that matches the schema."
CUT_OFF = (
    "Your previous reply was cut off at the length limit of {limit} tokens. Reply again with a shorter answer "
    "that fits: fewer items and shorter texts."
)
LOCAL_TIMEOUT = 600.0  # seconds: a CPU model on this machine takes minutes on a long prompt
REMOTE_TIMEOUT = 60.0
CONTEXT_MARGIN = 64  # tokens kept free between the prompt and the answer's limit
ESTIMATE_MARGIN = 1.25  # the token estimate counted 15-17% fewer tokens than a real tokenizer (Gemma 3)


class StructuredLLM(Protocol):
    meter: UsageMeter

    @property
    def parked(self) -> bool:
        """Whether calls are parked now (the circuit breaker is open)."""
        ...

    async def extract(
        self, messages: list[dict[str, str]], response_model: type[T], *, purpose: str, tags: dict[str, str] | None = None
    ) -> T: ...

    async def chat(
        self, messages: list[dict[str, str]], *, purpose: str = "reply", tags: dict[str, str] | None = None
    ) -> str: ...


class _Call:
    """One logical call (any number of HTTP attempts); recorded and logged when the block exits."""

    def __init__(self, meter: UsageMeter, purpose: str, model: str, tags: dict[str, str] | None = None) -> None:
        self.meter, self.purpose, self.model, self.tags = meter, purpose, model, tags or {}
        self.attempts = self.prompt_tokens = self.completion_tokens = 0
        self.mode = ""

    def count_unanswered(self, messages: list[dict[str, str]]) -> None:
        """An attempt that got no usage back (timed out, rejected): the server may have read the whole
        prompt, so it is counted as estimated instead of as nothing."""
        self.prompt_tokens += sum(estimate_tokens(m.get("content") or "") for m in messages)

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
        self.meter.record(
            CallRecord(
                self.purpose,
                self.prompt_tokens,
                self.completion_tokens,
                latency,
                outcome,
                self.attempts,
                tuple(sorted(self.tags.items())),
            )
        )
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
            **({"mode": self.mode} if self.mode else {}),
            **self.tags,
            **extra,
        )


class OpenAILLM:
    def __init__(
        self, settings: LLMSettings, meter: UsageMeter | None = None, *, min_wait: float = 1.0, max_wait: float = 30.0
    ) -> None:
        if not settings.base_url:
            raise ValueError("LLM_BASE_URL is not set")
        self.settings = settings
        self.model = settings.model
        self.reply_model = settings.reply_model or settings.model
        self.max_attempts = settings.max_attempts
        self.meter = meter if meter is not None else UsageMeter()
        self.min_wait, self.max_wait = min_wait, max_wait
        self.modes: list[OutputMode] = list(MODES) if settings.output_mode == "auto" else [settings.output_mode]
        self.breaker = Breaker(settings.breaker_failures, settings.breaker_seconds)
        self.context_tokens: int | None = settings.context_tokens or None
        self._context_probed = bool(settings.context_tokens)
        self._tokenizer: bool | None = None  # whether the server tokenizes for us; None: not asked yet
        self._client = openai.AsyncOpenAI(
            base_url=settings.base_url,
            api_key=settings.api_key.get_secret_value() or "none",
            timeout=effective_timeout(settings),
            max_retries=0,
        )

    @property
    def parked(self) -> bool:
        return self.breaker.is_open

    async def aclose(self) -> None:
        await self._client.close()

    async def listed_models(self) -> list[str]:
        """The model ids the server lists at /models; none when it lists none or fails."""
        try:
            return [m.id for m in (await self._client.models.list()).data]
        except openai.OpenAIError:
            return []

    async def reported_context(self) -> int | None:
        """The context size the server reports (`server_context_size`)."""
        return await server_context_size(self._client)

    async def extract(
        self, messages: list[dict[str, str]], response_model: type[T], *, purpose: str, tags: dict[str, str] | None = None
    ) -> T:
        """One logical call for a validated `response_model`: the first output mode the server accepts (a
        rejected mode falls back once to the next, remembered), then at most one re-ask from the original
        prompt (never with a cut-off answer in it)."""
        self.breaker.check()
        original = self._prepared(messages)
        with _Call(self.meter, purpose, self.model, tags) as call:
            limit = await self._answer_limit(original, max_answer_tokens(response_model))
            convo, error, cut = original, "", False
            for _ask in range(2):
                value, error, cut = await self._ask_structured(call, convo, response_model, limit, worst=cut)
                if value is not None:
                    return value
                note = CUT_OFF.format(limit=limit) if cut else REASK.format(error=error)
                convo = _with_note(original, note)
            raise LLMOutputError(f"{purpose}: reply did not match {response_model.__name__} twice: {error}", error)

    async def chat(self, messages: list[dict[str, str]], *, purpose: str = "reply", tags: dict[str, str] | None = None) -> str:
        self.breaker.check()
        prepared = self._prepared(messages)
        with _Call(self.meter, purpose, self.reply_model, tags) as call:
            limit = await self._answer_limit(prepared, self.settings.max_tokens)
            completion = await self._send(
                call,
                prepared,
                lambda: self._client.chat.completions.create(
                    model=self.reply_model,
                    messages=cast(Any, prepared),
                    max_tokens=limit,
                    temperature=self.settings.temperature,
                ),
            )
            content = (completion.choices[0].message.content if completion.choices else None) or ""
            call.count_usage(completion.usage.model_dump() if completion.usage else None, prepared, content)
            return content

    def _prepared(self, messages: list[dict[str, str]]) -> list[dict[str, str]]:
        """The system text folded into the first user turn (LLM_FOLD_SYSTEM): some chat templates have no
        system role and drop it silently."""
        if not self.settings.fold_system or not any(m.get("role") == "system" for m in messages):
            return list(messages)
        system = "\n\n".join(m["content"] for m in messages if m.get("role") == "system")
        rest = [m for m in messages if m.get("role") != "system"]
        first = next((i for i, m in enumerate(rest) if m.get("role") == "user"), None)
        if first is None:
            return [{"role": "user", "content": system}, *rest]
        rest[first] = {**rest[first], "content": system + "\n\n" + rest[first]["content"]}
        return rest

    async def _answer_limit(self, messages: list[dict[str, str]], wanted: int) -> int:
        """`max_tokens` for a request: the answer's own bound, the cap, and what the context leaves."""
        limit = min(wanted, self.settings.max_tokens)
        context = await self._context_size()
        if context is None:
            return limit
        prompt = await self._prompt_tokens(messages)
        room = context - prompt - CONTEXT_MARGIN
        if room < min(limit, 256):
            raise LLMError(
                f"the prompt (about {prompt} tokens) leaves no room for an answer in the model's {context}-token context",
                outcome="too_long",
            )
        return min(limit, room)

    async def _prompt_tokens(self, messages: list[dict[str, str]]) -> int:
        """The prompt's tokens by the server's own tokenizer where it has one (llama.cpp's `/tokenize`), else
        the estimate with a margin (it counted 15-17% fewer tokens than Gemma's tokenizer)."""
        text = "\n".join(m.get("content") or "" for m in messages)
        if self._tokenizer is not False:
            try:
                found = await self._client.post(
                    f"{server_root(str(self._client.base_url))}/tokenize", body={"content": text}, cast_to=cast(Any, dict)
                )
                self._tokenizer = True
                return len(found["tokens"]) + 4 * len(messages)
            except (openai.OpenAIError, KeyError, TypeError):
                self._tokenizer = False
        return math.ceil(ESTIMATE_MARGIN * sum(estimate_tokens(m.get("content") or "") + 4 for m in messages))

    async def _context_size(self) -> int | None:
        if not self._context_probed:
            self._context_probed = True
            self.context_tokens = await server_context_size(self._client)
        return self.context_tokens

    async def _ask_structured(
        self, call: _Call, messages: list[dict[str, str]], model: type[T], limit: int, *, worst: bool = False
    ) -> tuple[T | None, str, bool]:
        """(value, validation error, cut off) from the first mode the server takes; after a cut-off answer
        (`worst`) the schema's bounds are fitted for the worst case, so a grammar closes it in time."""
        while True:
            mode = self.modes[0]
            call.mode = mode
            sent, extra = request_for(mode, model, messages, limit, worst=worst)
            try:
                raw = await self._send(
                    call,
                    sent,
                    lambda: self._client.chat.completions.with_raw_response.create(
                        model=self.model,
                        messages=cast(Any, sent),
                        max_tokens=limit,
                        temperature=self.settings.temperature,
                        **extra,
                    ),
                )
            except LLMError as exc:
                if not (isinstance(exc.__cause__, openai.APIStatusError) and _rejects_mode(exc.__cause__)):
                    raise
                if len(self.modes) == 1:
                    raise LLMError(f"the server rejects structured output mode {mode}: {exc}", outcome="rejected") from exc
                self.modes.pop(0)
                emit("llm", "mode_fallback", level=logging.WARNING, rejected=mode, next=self.modes[0], error=str(exc)[:300])
                continue
            return self._read_structured(call, sent, raw, model, mode)

    def _read_structured(
        self, call: _Call, convo: list[dict[str, str]], raw: Any, model: type[T], mode: OutputMode
    ) -> tuple[T | None, str, bool]:
        try:
            body = raw.http_response.json()
            choice = (body.get("choices") or [{}])[0]
            message = choice.get("message") or {}
        except (ValueError, AttributeError) as exc:
            raise LLMError(f"LLM endpoint returned an unreadable response: {exc}", outcome="bad_response") from None
        content = answer_text(mode, message)
        call.count_usage(body.get("usage"), convo, content)
        if choice.get("finish_reason") == "length":
            return None, "the reply was cut off at the length limit", True
        if message.get("refusal"):
            return None, f"the model refused: {message['refusal']}", False
        try:
            return model.model_validate_json(tolerant_json(content)), "", False
        except ValidationError as exc:
            return None, _describe_validation(exc), False

    async def _send(self, call: _Call, messages: list[dict[str, str]], request: Callable[[], Awaitable[R]]) -> R:
        retrying = AsyncRetrying(
            stop=stop_after_attempt(self.max_attempts),
            wait=self._wait,
            reraise=True,
            retry=retry_if_exception(_transient),
            before_sleep=lambda s: _log_retry(call.purpose, s),
        )
        try:
            async for attempt in retrying:
                with attempt:
                    call.attempts += 1
                    try:
                        result = await request()
                    except (openai.APITimeoutError, openai.InternalServerError) as exc:
                        if not (isinstance(exc, openai.APIStatusError) and _rejects_mode(exc)):
                            call.count_unanswered(messages)  # the server read the prompt, then failed or was left
                        raise
                    self.breaker.succeeded()
                    return result
        except RETRYABLE as exc:
            if isinstance(exc, openai.APIStatusError) and _rejects_mode(exc):
                raise LLMError(f"LLM endpoint rejected the request: {describe_api_error(exc)}", outcome="rejected") from exc
            self.breaker.failed()
            raise LLMUnavailable(
                f"LLM endpoint failed {call.attempts} time(s), giving up: {describe_api_error(exc)}", outcome="unavailable"
            ) from exc
        except openai.APIStatusError as exc:
            raise LLMError(f"LLM endpoint rejected the request: {describe_api_error(exc)}", outcome="rejected") from exc
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


def _with_note(messages: list[dict[str, str]], note: str) -> list[dict[str, str]]:
    """The original prompt with a note added to its last user turn (a second user turn in a row breaks
    chat templates that require turns to alternate, such as Gemma's)."""
    last = max(i for i, m in enumerate(messages) if m.get("role") == "user")
    return [*messages[:last], {**messages[last], "content": messages[last]["content"] + "\n\n" + note}, *messages[last + 1 :]]


def _rejects_mode(exc: openai.APIStatusError) -> bool:
    """A 4xx/5xx whose message names the structured-output part of the request: the mode is not supported."""
    return exc.status_code in (400, 415, 422, 500, 501) and bool(MODE_REJECTED.search(describe_api_error(exc)))


def _transient(exc: BaseException) -> bool:
    if isinstance(exc, openai.APIStatusError) and _rejects_mode(exc):
        return False
    return isinstance(exc, RETRYABLE)


def effective_timeout(settings: LLMSettings) -> float:
    """LLM_TIMEOUT, or a default by where the endpoint is: a model on this machine (a CPU) is slow."""
    if settings.timeout is not None:
        return settings.timeout
    host = urlsplit(settings.base_url or "").hostname or ""
    local = host in ("localhost", "::1") or host.startswith("127.") or host.endswith(".local")
    return LOCAL_TIMEOUT if local else REMOTE_TIMEOUT


def server_root(base_url: str) -> str:
    """The server's root URL, without the OpenAI-compatible `/v1` suffix (llama.cpp's own routes live there)."""
    root = base_url.rstrip("/")
    return root[: -len("/v1")] if root.endswith("/v1") else root


async def server_context_size(client: openai.AsyncOpenAI) -> int | None:
    """The context size the server reports: llama.cpp's `/props`, or the model list's `max_model_len` (vLLM)
    or `meta.n_ctx_train`; None when it reports none."""
    root = server_root(str(client.base_url))
    try:
        props = await client.get(f"{root}/props", cast_to=cast(Any, dict))
        settings = props.get("default_generation_settings") or {}
        found = props.get("n_ctx") or settings.get("n_ctx") or (settings.get("params") or {}).get("n_ctx")
        if found:
            return int(found)
    except (openai.OpenAIError, ValueError, TypeError, AttributeError):
        pass
    try:
        models = await client.models.list()
        for model in models.data:
            extra = model.model_extra or {}
            size = extra.get("max_model_len") or (extra.get("meta") or {}).get("n_ctx_train")
            if size:
                return int(size)
    except (openai.OpenAIError, ValueError, TypeError):
        pass
    return None


def _log_retry(purpose: str, state: RetryCallState) -> None:
    exc = state.outcome.exception() if state.outcome else None
    emit(
        "llm",
        "retry",
        level=logging.WARNING,
        purpose=purpose,
        attempt=state.attempt_number,
        wait_s=round(state.upcoming_sleep, 3),
        error=describe_api_error(exc) if exc else "",
    )


def _describe_validation(exc: ValidationError) -> str:
    parts = [(".".join(map(str, e["loc"])) + ": " if e["loc"] else "") + e["msg"] for e in exc.errors()[:8]]
    return "; ".join(parts)[:800]


def build_llm(settings: LLMSettings, meter: UsageMeter | None = None) -> OpenAILLM | None:
    return OpenAILLM(settings, meter) if settings.base_url else None
