"""What can go wrong with an LLM call, as the callers tell it apart, and how an endpoint's error is described."""

from __future__ import annotations

import openai

from common.urls import mask_credentials


class LLMError(Exception):
    """The endpoint is unreachable, refused the request, or kept failing after every retry."""

    outcome = "error"

    def __init__(self, message: str, *, outcome: str | None = None) -> None:
        super().__init__(message)
        if outcome:
            self.outcome = outcome


class LLMUnavailable(LLMError):
    """The endpoint cannot be reached now: it failed every retry (refused, timed out, 5xx), or the circuit breaker
    is open after repeated failures. What waited for it is parked as it was, never failed: the answer was not bad,
    there was none."""

    outcome = "circuit_open"


class LLMOutputError(LLMError):
    """The reply failed validation twice (first reply and the one re-ask)."""

    outcome = "invalid_output"

    def __init__(self, message: str, validation_error: str) -> None:
        super().__init__(message)
        self.validation_error = validation_error


def describe_api_error(exc: BaseException) -> str:
    """An endpoint's error in one line: its HTTP status and message, or what the connection failed on."""
    if isinstance(exc, openai.APIStatusError):
        return mask_credentials(f"HTTP {exc.status_code}: {exc.message}")
    if isinstance(exc, openai.APIConnectionError) and exc.__cause__ is not None:
        return mask_credentials(f"{exc.message} ({exc.__cause__!r})")
    return mask_credentials(str(exc))
