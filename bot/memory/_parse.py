"""Memory commands said in plain language to the bot ("remember that ...", "forget me", ...)."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Literal

Kind = Literal["remember", "forget", "forget_me", "forget_member", "about", "opt_out", "opt_in", "status", "mode", "export"]

PLEASE = r"(?:(?:hey|ok|okay|please|pls)[,\s]+)*"
_END = r"(?:[,\s]+(?:please|pls|thanks|thank you))?[\s.!]*"
_PATTERNS: list[tuple[Kind, re.Pattern[str]]] = [
    (
        "forget_member",  # a moderator acting on a deletion request: by mention, or by id (also one who left)
        re.compile(rf"^{PLEASE}(?:memory\s+)?forget\s+(?:member|user)\s+(?P<arg>(?:<@|@\S|\d).*?){_END}$", re.I),
    ),
    ("export", re.compile(rf"^{PLEASE}(?:memory\s+export|export\s+(?:my\s+)?(?:data|memory)){_END}$", re.I)),
    (
        "forget_me",
        re.compile(rf"^{PLEASE}forget\s+(?:about\s+)?(?:me|everything\s+(?:about|of)\s+me|all\s+about\s+me){_END}$", re.I),
    ),
    ("opt_out", re.compile(rf"^{PLEASE}(?:memory\s+)?opt[\s-]?out{_END}$", re.I)),
    ("opt_in", re.compile(rf"^{PLEASE}(?:memory\s+)?opt[\s-]?in{_END}$", re.I)),
    ("status", re.compile(rf"^{PLEASE}memory\s+status{_END}$", re.I)),
    ("mode", re.compile(rf"^{PLEASE}memory\s+(?:here|mode)\s*[:=]?\s*(?P<arg>off|private|shared){_END}$", re.I)),
    ("about", re.compile(rf"^{PLEASE}what\s+do\s+you\s+(?:know|remember)\s+about\s+(?P<arg>.+?)[\s?.!]*$", re.I | re.S)),
    ("remember", re.compile(rf"^{PLEASE}remember(?:\s+that\b|\s*:|\s)\s*(?P<arg>.+?)[\s.!]*$", re.I | re.S)),
    ("forget", re.compile(rf"^{PLEASE}forget(?:\s+that\b|\s+about\b|\s*:|\s)\s*(?P<arg>.+?)[\s.!]*$", re.I | re.S)),
]


@dataclass(frozen=True)
class TextCommand:
    kind: Kind
    arg: str = ""


def parse(text: str) -> TextCommand | None:
    """The command a message to the bot states, or None (then it is a conversation: the bot replies)."""
    text = " ".join(text.split())
    if not text:
        return None
    for kind, pattern in _PATTERNS:
        match = pattern.match(text)
        if match is None:
            continue
        arg = (match.groupdict().get("arg") or "").strip()
        if kind in ("remember", "forget") and (not arg or text.endswith("?")):
            return None  # "remember when we ...?" is a question, not a command
        return TextCommand(kind, arg)
    return None
