"""The extraction prompt read back the way a model reads it: its sections, and every line parsed into
its ref. The one reader of the prompt format, for the tests' scripted answers and the benchmarks'."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

FIRST_SECTION = "PARTICIPANTS\n"


def _first_user(request: dict[str, Any]) -> str:
    users = [m for m in request["messages"] if m.get("role") == "user"]
    assert users, f"no user message in the request: {request['messages']!r}"
    content = users[0]["content"]
    return content if isinstance(content, str) else "\n".join(p.get("text", "") for p in content)


def prompt_of(request: dict[str, Any]) -> str:
    """The prompt's data part (participants, known facts, the window), with the instructions folded into
    the same user turn (LLM_FOLD_SYSTEM) left out."""
    user = _first_user(request)
    folded = user.find("\n\n" + FIRST_SECTION)
    return user[folded + 2 :] if folded >= 0 and not user.startswith(FIRST_SECTION) else user


def system_of(request: dict[str, Any]) -> str:
    """The instructions: the system message, or the start of the first user turn they were folded into."""
    system = [m["content"] for m in request["messages"] if m.get("role") == "system"]
    if system:
        return "\n\n".join(system)
    user = _first_user(request)
    return user[: user.find("\n\n" + FIRST_SECTION)] if "\n\n" + FIRST_SECTION in user else ""


def sections(prompt: str) -> dict[str, list[str]]:
    """Every section of a prompt by title ("PARTICIPANTS", "WINDOW", "KNOWN FACTS", ...); [] for "(none)"."""
    found: dict[str, list[str]] = {}
    for block in prompt.split("\n\n"):
        head, _, body = block.partition("\n")
        found[head.split(" (")[0]] = [] if body.strip() == "(none)" else body.splitlines()
    return found


def section(prompt: str, title: str) -> list[str]:
    """The lines of one prompt section; a missing section fails the test."""
    found = sections(prompt)
    if title not in found:
        raise AssertionError(f"no section {title!r} in the prompt:\n{prompt}")
    return found[title]


def refs(lines: list[str]) -> list[str]:
    """The leading ref of each line: ["U1", "U2"] or ["m1", "m2"]."""
    found = [re.match(r"\S+", line) for line in lines]
    assert all(found), f"a line with no leading ref: {lines}"
    return [m[0] for m in found if m]


_PARTICIPANT = re.compile(r"^(U\d+) = (.*?) \(discord id ([^,)]+)(?:, @([^)]*))?\)(.*)$")
_MESSAGE = re.compile(
    r"^([mc]\d+) \[(\d{4}-\d{2}-\d{2} \d{2}:\d{2}) UTC\] ([^:\"]*?)"
    r"(?: \(reply to ([^)]*)\))?( \(edited\))?: (\".*)$"
)
_NOT_REPEATED = re.compile(r"^\((\d+) earlier messages are shown above, in (W\d+(?:, W\d+)*): not repeated here\)$")
_FACT = re.compile(r"^(F\d+) about (.*?)(?:, reported by (.*?))?: (.*)$")
_ENTITY = re.compile(r"^(K\d+) (.*) \(([^;()]*)(?:; aliases: (.*))?\)$")


@dataclass(frozen=True)
class Participant:
    ref: str
    name: str
    discord_id: str
    note: str  # "" for an author, else "[named in the window, not an author]", "[earlier messages only]", "[bot...]"


@dataclass(frozen=True)
class PromptMessage:
    ref: str
    at: datetime  # to the minute, as the prompt shows it
    author: str  # "U2 Alice"
    content: str
    edited: bool
    reply_to: str | None
    truncated: bool

    @property
    def author_ref(self) -> str:
        return self.author.split(" ")[0]


@dataclass(frozen=True)
class PromptFact:
    ref: str
    about: str
    reported_by: str
    text: str


class Prompt:
    """One extraction request read back the way a model reads it: every line of every section
    parsed into its ref. A line that does not parse fails the test (the prompt format changed)."""

    def __init__(self, request: dict[str, Any]) -> None:
        self.request = request
        self.text = prompt_of(request)
        self.system = system_of(request)
        self.participants: dict[str, Participant] = {}
        for line in section(self.text, "PARTICIPANTS"):
            m = _PARTICIPANT.match(line)
            assert m, f"participant line does not parse: {line!r}"
            self.participants[m[1]] = Participant(m[1], m[2], m[3], m[5].strip())
        self.not_repeated: tuple[int, str] | None = None  # a batch: (earlier messages shown above, in which windows)
        self.context = self._messages("EARLIER MESSAGES")
        self.messages = self._messages("WINDOW")
        self.facts: dict[str, PromptFact] = {}
        for line in section(self.text, "KNOWN FACTS"):
            m = _FACT.match(line)
            assert m, f"fact line does not parse: {line!r}"
            self.facts[m[1]] = PromptFact(m[1], m[2], m[3] or "", m[4])
        self.entities: dict[str, str] = {}
        for line in section(self.text, "KNOWN ENTITIES"):
            m = _ENTITY.match(line)
            assert m, f"entity line does not parse: {line!r}"
            self.entities[m[1]] = m[2]

    def _messages(self, title: str) -> dict[str, PromptMessage]:
        found: dict[str, PromptMessage] = {}
        for line in section(self.text, title):
            note = _NOT_REPEATED.match(line) if title == "EARLIER MESSAGES" and not found else None
            if note:
                self.not_repeated = (int(note[1]), note[2])
                continue
            m = _MESSAGE.match(line)
            assert m, f"message line does not parse: {line!r}"
            content, end = json.JSONDecoder().raw_decode(m[6])
            rest = m[6][end:]
            assert rest == "" or rest.startswith(" [truncated: "), f"text after the quoted content: {line!r}"
            at = datetime.strptime(m[2], "%Y-%m-%d %H:%M").replace(tzinfo=UTC)
            found[m[1]] = PromptMessage(m[1], at, m[3], content, bool(m[5]), m[4], bool(rest))
        return found

    # -- lookups by what a model reads: exactly one match, or the test fails ----------------------
    def user(self, name_or_id: str) -> str:
        hits = [p.ref for p in self.participants.values() if name_or_id in (p.name, p.discord_id)]
        assert len(hits) == 1, f"participant {name_or_id!r}: {hits} in\n{self.text}"
        return hits[0]

    def msg(self, content: str) -> str:
        hits = [m.ref for m in self.messages.values() if m.content == content]
        assert len(hits) == 1, f"window message {content!r}: {hits} in\n{self.text}"
        return hits[0]

    def msgs_by(self, user_ref: str) -> list[str]:
        return [m.ref for m in self.messages.values() if m.author_ref == user_ref]

    def fact(self, text: str) -> str:
        hits = [f.ref for f in self.facts.values() if f.text == text]
        assert len(hits) == 1, f"known fact {text!r}: {hits} in\n{self.text}"
        return hits[0]

    def entity(self, name: str) -> str:
        hits = [ref for ref, n in self.entities.items() if n == name]
        assert len(hits) == 1, f"known entity {name!r}: {hits} in\n{self.text}"
        return hits[0]


_BATCH_HEADING = re.compile(r"^### (W\d+)\n\n", re.MULTILINE)


def batch_parts(request: dict[str, Any]) -> list[tuple[str, dict[str, Any]]]:
    """A batch request's windows: (heading, a request holding that window's prompt alone), in order;
    [] for a single-window request. `Prompt(part)` reads each one."""
    user = _first_user(request)
    heads = list(_BATCH_HEADING.finditer(user))
    parts = []
    for i, head in enumerate(heads):
        end = heads[i + 1].start() if i + 1 < len(heads) else len(user)
        parts.append((head[1], {"messages": [{"role": "user", "content": user[head.end() : end].rstrip("\n")}]}))
    return parts
