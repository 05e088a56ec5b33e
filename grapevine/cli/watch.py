"""What an extraction run tells its user while it goes (`ingest --pending`, `import`): a line per LLM call with its
time and outcome, windows settled out of the total with an estimate of the time left, one plain line per failed
window saying why and what to do, and a one-line summary (also when stopped with Ctrl-C).

It listens to the events the pipeline and the LLM client emit anyway (common.events), so the work itself is
not changed to be watched."""

from __future__ import annotations

import logging
import time
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import timedelta
from typing import Any

from rich.console import Console

MODELS_DOC = "docs/llm-servers.md"
events_logger = logging.getLogger("common.events")  # where common.events.emit writes


def plain_reason(error: str, reason: str) -> str:
    """A failed window's reason in one plain line, with what to do about it."""
    text = " ".join(reason.split())
    if error == "UnusableAnswer" or error == "LLMOutputError":
        what = (
            "the model's answer did not follow the extraction schema (it named people, messages or facts the prompt "
            "does not hold, or did not match the schema)"
        )
        return f"{what}: use an instruction-tuned model ({MODELS_DOC} names ones known to work)"
    lowered = text.lower()
    if "leaves no room" in lowered or "context" in lowered and "token" in lowered:
        return (
            "the window does not fit the model's context: start the server with a larger context (-c) or set LLM_CONTEXT_TOKENS"
        )
    if "rejected the request" in lowered or "rejects structured output" in lowered:
        return f"the LLM server refused the request ({text[:160]}): check LLM_MODEL and LLM_OUTPUT_MODE with `grapevine doctor`"
    if "failed" in lowered and "giving up" in lowered or "connection" in lowered:
        return f"the LLM server did not answer ({text[:160]}): is it running at LLM_BASE_URL? `grapevine doctor` checks it"
    return f"{error}: {text[:200]}"


def _clock(seconds: float) -> str:
    return str(timedelta(seconds=round(seconds)))


class ExtractionWatch(logging.Handler):
    def __init__(self, console: Console, total: int | None, *, label: str = "ingest") -> None:
        super().__init__(logging.INFO)
        self.console, self.total, self.label = console, total, label
        self.began = time.monotonic()
        self.calls = self.parked = 0
        self.windows: dict[str, str] = {}  # window key -> its latest outcome (a batch's failed window is tried alone)
        self.reasons: dict[str, int] = {}

    @property
    def done(self) -> int:
        return sum(1 for outcome in self.windows.values() if outcome == "done")

    @property
    def failed(self) -> int:
        return sum(1 for outcome in self.windows.values() if outcome == "failed")

    @property
    def settled(self) -> int:
        return len(self.windows)

    def emit(self, record: logging.LogRecord) -> None:
        payload: dict[str, Any] = getattr(record, "payload", None) or {}
        kind = f"{payload.get('subsystem')}.{payload.get('event')}"
        if kind == "llm.call" and payload.get("purpose") == "extraction":
            self.calls += 1
            windows = "" if "window" in payload else " (a batch of windows)"
            tokens = payload.get("prompt_tokens", 0), payload.get("completion_tokens", 0)
            self._say(
                f"{self.label}: call {self.calls}{windows}: {payload.get('latency_ms', 0) / 1000:.1f} s, "
                f"{payload.get('outcome')}, {tokens[0]:,} prompt + {tokens[1]:,} completion tokens"
            )
        elif kind == "ingest.extraction_done":
            self.windows[str(payload.get("key"))] = "done"
            self._progress()
        elif kind == "ingest.extraction_failed":
            self.windows[str(payload.get("key"))] = "failed"
            why = plain_reason(str(payload.get("error", "")), str(payload.get("reason", "")))
            self.reasons[why] = self.reasons.get(why, 0) + 1
            self._say(f"{self.label}: a window failed: {why}")  # progress, on stdout: stderr keeps the command's outcome
            self._progress()
        elif kind in ("ingest.extraction_parked", "ingest.batch_parked"):
            self.parked += 1

    def _progress(self) -> None:
        if self.total is None:  # the caller shows its own count (import's progress)
            return
        elapsed = time.monotonic() - self.began
        line = f"{self.label}: windows {self.settled:,}/{self.total:,} ({self.done:,} done, {self.failed:,} failed)"
        left = self.total - self.settled
        if self.settled and left > 0:
            line += f", about {_clock(elapsed / self.settled * left)} left"
        self._say(f"{line} ({_clock(elapsed)})")

    def _say(self, line: str) -> None:
        self.console.print(line, highlight=False, markup=False, soft_wrap=True)

    def summary(self) -> str:
        total = f"/{self.total:,}" if self.total is not None else ""
        return (
            f"windows {self.settled:,}{total} settled ({self.done:,} done, {self.failed:,} failed) in "
            f"{_clock(time.monotonic() - self.began)}, {self.calls} LLM calls"
        )


@contextmanager
def watching(console: Console, total: int | None, *, label: str = "ingest") -> Iterator[ExtractionWatch]:
    """The watch hears the pipeline's and the LLM client's events while the block runs (whatever LOG_LEVEL says:
    the log's own handlers keep their level)."""
    watch = ExtractionWatch(console, total, label=label)
    root = logging.getLogger()
    kept = events_logger.level
    for handler in root.handlers:
        if handler.level == logging.NOTSET:
            handler.setLevel(root.level)  # the log keeps the level it was given when the events logger opens up
    events_logger.addHandler(watch)
    events_logger.setLevel(logging.INFO)
    try:
        yield watch
    finally:
        events_logger.removeHandler(watch)
        events_logger.setLevel(kept)
