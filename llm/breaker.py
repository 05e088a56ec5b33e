"""The circuit breaker of LLM calls: an endpoint that keeps failing parks the calls for a while."""

from __future__ import annotations

import logging
import time
from collections.abc import Callable

from common.events import emit
from llm.errors import LLMUnavailable


class Breaker:
    """A circuit breaker: after `failures` consecutive unreachable calls it opens for `seconds`, and every
    call meanwhile fails at once with LLMUnavailable (so a backlog is parked, not retried window by window);
    then one call is let through, and a success closes it."""

    def __init__(self, failures: int, seconds: float, clock: Callable[[], float] = time.monotonic) -> None:
        self.failures, self.seconds, self.clock = failures, seconds, clock
        self.consecutive = 0
        self.open_until = 0.0

    @property
    def is_open(self) -> bool:
        return self.clock() < self.open_until

    def check(self) -> None:
        if self.is_open:
            raise LLMUnavailable(
                f"the LLM endpoint failed {self.consecutive} calls in a row; calls are parked for "
                f"{self.open_until - self.clock():.0f} s more"
            )

    def failed(self) -> None:
        self.consecutive += 1
        if self.consecutive >= self.failures:
            self.open_until = self.clock() + self.seconds
            emit("llm", "breaker_open", level=logging.WARNING, failures=self.consecutive, seconds=self.seconds)

    def succeeded(self) -> None:
        self.consecutive = 0
        self.open_until = 0.0
