"""Counting LLM calls: every logical call's record, running totals, per UTC day and per purpose."""

from __future__ import annotations

import threading
from collections import deque
from dataclasses import dataclass, replace
from datetime import UTC, date, datetime


@dataclass(frozen=True)
class CallRecord:
    purpose: str
    prompt_tokens: int
    completion_tokens: int
    latency_s: float
    outcome: str
    attempts: int
    tags: tuple[tuple[str, str], ...] = ()  # what the call served: ("window", key), ("guild_id", id)...


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

    def last_for(self, key: str, value: str) -> CallRecord | None:
        """The latest call tagged `key=value` (e.g. the extraction of one window)."""
        with self._lock:
            return next((r for r in reversed(self.recent) if (key, value) in r.tags), None)

    def by_purpose(self) -> dict[str, UsageTotals]:
        with self._lock:
            return {purpose: replace(totals) for purpose, totals in self._purposes.items()}
