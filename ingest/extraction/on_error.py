"""What an extraction call that gives no answer does to its work, decided here for every path (a window alone, a
batch, an edited message's re-extraction), as neo4j-graphrag's `OnError` decides it for its extractors.

- The LLM unreachable (`LLMUnavailable`: every retry failed, or the circuit breaker is open): PARK. The work waits
  as it was, not an attempt: the answer was not bad, there was none. It is taken up again once the LLM answers.
- Any other LLM error (a refusal, a reply that failed validation twice, a prompt too long even trimmed): FAIL.
  The work is failed with its reason: a window counts an attempt, a batch is asked again and then split, a
  re-extraction gives up on the edit."""

from __future__ import annotations

from collections.abc import Awaitable
from dataclasses import dataclass
from enum import StrEnum
from typing import TypeVar

from llm.errors import LLMError, LLMUnavailable

T = TypeVar("T")


class OnError(StrEnum):
    PARK = "park"
    FAIL = "fail"


def on_error(exc: LLMError) -> OnError:
    """The policy: unreachable parks, any other error fails."""
    return OnError.PARK if isinstance(exc, LLMUnavailable) else OnError.FAIL


@dataclass(frozen=True)
class NoAnswer:
    """A call that gave no answer: what to do with its work, and the error that says why."""

    error: LLMError

    @property
    def then(self) -> OnError:
        return on_error(self.error)

    @property
    def name(self) -> str:
        return type(self.error).__name__

    @property
    def reason(self) -> str:
        return str(self.error)


async def answer_of(call: Awaitable[T]) -> T | NoAnswer:
    """The call's answer, or why there is none (an LLM error); any other fault is raised as it is."""
    try:
        return await call
    except LLMError as exc:
        return NoAnswer(exc)
