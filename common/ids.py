"""Discord ids as every front door reads them (the bot's commands, the CLI, the explorer, MCP): ASCII digits
only. `\\d` and `int()` take any script's digits, so "３０００…" (full-width) would find a member by `int()` while
the string itself matches nothing stored: an id is checked here, once, and kept as the ASCII text it is."""

from __future__ import annotations

import re

MIN_DIGITS, MAX_DIGITS = 15, 20  # the shortest Discord id; the longest 64-bit unsigned number
_DIGITS = rf"[1-9][0-9]{{{MIN_DIGITS - 1},{MAX_DIGITS - 1}}}"  # a snowflake is a number: it never starts with 0
_SNOWFLAKE = re.compile(_DIGITS)
DM_PREFIX = "dm:"  # a DM's memory: `dm:<user id>` (graph.models.dm_scope)
MENTION = re.compile(rf"<@!?({_DIGITS})>")  # a user mention; the group is the user id
SHOWN_CHARS = 40


class IdError(ValueError):
    """A text that is not a Discord id; the message says what is wrong with it."""


def shown(text: str, limit: int = SHOWN_CHARS) -> str:
    """A value as an error message quotes it: shortened, so a huge value is not echoed whole."""
    return repr(text if len(text) <= limit else text[:limit] + "…")


def is_ascii_id(text: str) -> bool:
    """Whether `text` is a Discord id: 15 to 20 ASCII digits, the first not 0."""
    return _SNOWFLAKE.fullmatch(text) is not None


def _wrong(text: str, what: str, other: str = "") -> IdError:
    if any(c.isdigit() and not c.isascii() for c in text):
        return IdError(f"{what} must be written with the digits 0-9; {shown(text)} holds other digits (full-width?)")
    if text.startswith("0") and text.isascii() and text.isdigit():
        return IdError(f"{what} must be a Discord id, got {shown(text)}: a Discord id never starts with 0")
    return IdError(f"{what} must be a Discord id ({MIN_DIGITS} to {MAX_DIGITS} digits 0-9){other}, got {shown(text)}")


def user_id(text: str, what: str = "the user id") -> str:
    """A user (or channel, message) id: its text without surrounding spaces, or IdError."""
    value = text.strip()
    if is_ascii_id(value):
        return value
    raise _wrong(value, what)


def guild_id(text: str, what: str = "the guild id") -> str:
    """A guild id, or a DM's memory `dm:<user id>`; IdError otherwise."""
    value = text.strip()
    if is_ascii_id(value.removeprefix(DM_PREFIX)):
        return value
    raise _wrong(value, what, f" or {DM_PREFIX}<user id>")


def channel_id(text: str, what: str = "the channel id") -> str:
    """A channel id, or '' (the scope of what a guild's shared channels hold); IdError otherwise."""
    return "" if text == "" else user_id(text, what)


def mentioned(text: str) -> list[str]:
    """The distinct user ids `text` mentions (`<@id>`, ASCII digits), in order."""
    return list(dict.fromkeys(MENTION.findall(text)))


def named(text: str, what: str = "the id") -> str:
    """A subject that is a name or an id (`Bob`, `@Bob`, `300000000000000002`): as given, except that one written
    only in digits must be an id in ASCII digits (IdError otherwise)."""
    bare = text.strip().lstrip("@")
    if bare.isdigit():
        user_id(bare, what)
    return text
