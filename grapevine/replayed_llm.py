"""An LLM that answers extraction calls from answers recorded for a known set of windows (the shipped sample's,
`examples/replayed-answers.json`), so `grapevine demo` shows real facts without an LLM server.

It stands where the LLM client stands: it reads the prompt the pipeline built, finds each window's recorded
answer by a key of that window's messages, and answers in the prompt's own refs; validation and resolution
(ingest/extraction/window_prompt.py, ingest/extraction/resolution.py) then treat it as any model's answer. A recorded answer names
people by display name ("@Bob") and known facts by their text ("F:Bob lives in Berlin") instead of the
prompt's numbered refs, because those numbers depend on what the graph held when the prompt was built and on
how windows were batched; a known fact the prompt does not show is left out, as a model could not name it. A
window with no recorded answer is a `NotRecorded` error naming the window: the sample changed since its answers
were written."""

from __future__ import annotations

import hashlib
import json
import re
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

from pydantic import BaseModel

from ingest.extraction.batch_prompt import BatchExtraction
from ingest.extraction.window_prompt import Extraction
from llm.errors import LLMError
from llm.meter import CallRecord, UsageMeter

T = TypeVar("T", bound=BaseModel)

_HEADING = re.compile(r"^### (W\d+)$", re.MULTILINE)
_SECTION = re.compile(r"^([A-Z][A-Z ]+[A-Z])(?: \(.*\))?$")
# a window line: `m3 [2024-05-03 18:05 UTC] U2 Bob (reply to m2) (edited): "text"`; the refs and the reply's
# target depend on the prompt, the rest is the message
_LINE = re.compile(r'^m\d+ \[(?P<stamp>[^\]]+)\] (?:U\d+ )?(?P<name>.*?)(?: \(reply to [^)]*\))?(?: \(edited\))?: (?P<text>".*)$')
_PARTICIPANT = re.compile(r"^(?P<ref>U\d+) = (?P<name>.*?) \(discord id")
_FACT = re.compile(r"^(?P<ref>F\d+) about .*?: (?P<text>.*)$")


class NotRecorded(LLMError):
    """A window of the prompt has no recorded answer."""

    outcome = "not_recorded"


@dataclass(frozen=True)
class PromptWindow:
    heading: str | None  # "W2" in a batch prompt
    sections: dict[str, list[str]]  # "PARTICIPANTS", "WINDOW", "KNOWN FACTS"... -> their lines

    @property
    def lines(self) -> list[str]:
        """The window's messages as `stamp author: "text"`, without the prompt's refs."""
        found = []
        for line in self.sections.get("WINDOW", []):
            m = _LINE.match(line)
            found.append(f"{m['stamp']} {m['name']}: {m['text']}" if m else line)
        return found

    @property
    def key(self) -> str:
        return window_key(self.lines)

    def user_ref(self, name: str) -> str | None:
        for line in self.sections.get("PARTICIPANTS", []):
            m = _PARTICIPANT.match(line)
            if m and m["name"].casefold() == name.casefold():
                return m["ref"]
        return None

    def fact_ref(self, text: str) -> str | None:
        for line in self.sections.get("KNOWN FACTS", []):
            m = _FACT.match(line)
            if m and m["text"].strip().casefold() == text.strip().casefold():
                return m["ref"]
        return None


def window_key(lines: list[str]) -> str:
    return hashlib.sha256("\n".join(lines).encode("utf-8")).hexdigest()[:16]


def prompt_windows(messages: list[dict[str, str]]) -> list[PromptWindow]:
    """The windows of an extraction prompt (one, or a batch's `### W1`, `### W2`...) with their sections."""
    user = next(m["content"] for m in reversed(messages) if m.get("role") == "user")
    parts = _HEADING.split(user)
    if len(parts) == 1:
        return [PromptWindow(None, _sections(user))]
    return [PromptWindow(parts[i], _sections(parts[i + 1])) for i in range(1, len(parts) - 1, 2)]


def _sections(text: str) -> dict[str, list[str]]:
    sections: dict[str, list[str]] = {}
    current: list[str] | None = None
    for line in text.splitlines():
        title = _SECTION.match(line)
        if title:
            current = sections.setdefault(title[1], [])
        elif current is not None and line and line != "(none)":
            current.append(line)
    return sections


@dataclass(frozen=True)
class RecordedAnswers:
    path: Path
    windows: dict[str, dict[str, Any]]  # window key -> {"first": its first message, "answer": the answer}

    @classmethod
    def read(cls, path: Path) -> RecordedAnswers:
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
            windows = data["windows"]
        except (OSError, ValueError, KeyError, TypeError) as exc:
            raise ValueError(f"{path}: not a file of recorded answers ({exc})") from None
        return cls(path, {str(k): v for k, v in windows.items()})


class ReplayedLLM:
    """A `StructuredLLM` for extraction calls whose answers were recorded (see the module's text)."""

    model = "replayed"

    def __init__(self, answers: RecordedAnswers, meter: UsageMeter | None = None) -> None:
        self.answers = answers
        self.meter = meter if meter is not None else UsageMeter()
        self.missing: list[str] = []  # the first message of each window asked for and not recorded

    @property
    def parked(self) -> bool:
        return False

    async def aclose(self) -> None:
        return None

    async def extract(
        self, messages: list[dict[str, str]], response_model: type[T], *, purpose: str, tags: dict[str, str] | None = None
    ) -> T:
        started = time.monotonic()
        outcome = "ok"
        try:
            windows = prompt_windows(messages)
            answers = [self._answer(w) for w in windows]
            if response_model is BatchExtraction:
                body: dict[str, Any] = {"windows": [{"window": w.heading, **a} for w, a in zip(windows, answers)]}
            elif response_model is Extraction and len(answers) == 1:
                body = answers[0]
            else:
                raise NotRecorded(f"replayed answers hold extraction answers only, not {response_model.__name__}")
            return response_model.model_validate_json(json.dumps(body))
        except LLMError as exc:
            outcome = exc.outcome
            raise
        finally:
            self.meter.record(
                CallRecord(purpose, 0, 0, time.monotonic() - started, outcome, 1, tuple(sorted((tags or {}).items())))
            )

    async def chat(self, messages: list[dict[str, str]], *, purpose: str = "reply", tags: dict[str, str] | None = None) -> str:
        raise NotRecorded("replayed answers hold extraction answers only: no chat replies")

    def _answer(self, window: PromptWindow) -> dict[str, Any]:
        recorded = self.answers.windows.get(window.key)
        if recorded is None:
            first = window.lines[0] if window.lines else "(no messages)"
            self.missing.append(first)
            raise NotRecorded(
                f"no recorded answer for the window starting {first[:120]} (key {window.key}) in {self.answers.path}: "
                "the sample changed since its answers were written"
            )
        return _in_prompt_refs(recorded["answer"], window)


def _in_prompt_refs(answer: dict[str, Any], window: PromptWindow) -> dict[str, Any]:
    """A recorded answer with "@Name" as the prompt's U ref and "F:text" as its F ref (left out when not shown)."""

    def ref(value: str) -> str | None:
        if value.startswith("@"):
            return window.user_ref(value[1:]) or value  # unknown: resolution drops it and says so
        if value.startswith("F:"):
            return window.fact_ref(value[2:])
        return value

    def refs(values: list[str]) -> list[str]:
        return [r for r in (ref(v) for v in values) if r is not None]

    entities = [{**e, "owner": ref(e["owner"]) if e.get("owner") else None} for e in answer.get("entities", [])]
    facts = []
    for fact in answer.get("facts", []):
        converted = dict(fact)
        for field in ("about", "mentions", "reported_by", "supersedes"):
            converted[field] = refs(fact.get(field, []))
        converted["corroborates"] = ref(fact["corroborates"]) if fact.get("corroborates") else None
        facts.append(converted)
    return {"summary": answer.get("summary", ""), "entities": entities, "facts": facts}
