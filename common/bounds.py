"""Numbers and dates from a front door (a command line, the explorer's address, an MCP call, a bot command),
read strictly, once, here, each with one clear message: ASCII digits only (no `1_000`, no full-width digits),
whole numbers within 64 bits, counts (limits, hits) within what a read needs (ArcadeDB takes a limit of
4294967297 as 1), dates within what a datetime holds once in UTC. A message reads
`<what> must be <noun>, got <value> (<what it must be>)`, or for a number well written but too large or small
`<what> is out of range, got <value> (<the range>)`; callers name the value and may name the noun."""

from __future__ import annotations

import math
import re
from datetime import UTC, date, datetime

from common.ids import shown

INT64 = (-(2**63), 2**63 - 1)  # what Bolt carries as an integer
MAX_COUNT = 10_000  # a limit or a number of hits: a read shows or ranks at most this many
COUNTS = frozenset({"limit", "hits"})  # parameters that are counts, wherever they are given
_WHOLE = re.compile(r"[+-]?[0-9]+")
_DECIMAL = re.compile(r"[+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][+-]?[0-9]+)?")
_ISO = re.compile(r"[0-9]{4}-[0-9]{2}-[0-9]{2}(?:[T ][0-9:.,]+(?:Z|[+-][0-9]{2}(?::?[0-9]{2}(?::?[0-9]{2})?)?)?)?")
_BOUND_NAMES = {INT64[0]: "-2^63", INT64[1]: "2^63-1"}
ISO_EXAMPLE = "e.g. 2024-05-03 or 2024-05-03T18:00Z"


class BoundsError(ValueError):
    """A number or a date that is malformed or out of range; the message names it and says what it must be."""


def _error(what: str, noun: str, text: str, detail: str) -> BoundsError:
    return BoundsError(f"{what} must be {noun}, got {shown(text)} ({detail})")


def _how(text: str) -> str:
    """What is wrong with how a number is written, before the rest of the detail."""
    if "_" in text:
        return "written without underscores; "
    if any(c.isdigit() and not c.isascii() for c in text):
        return "written with the digits 0-9; "
    return ""


def _range(low: int, high: int) -> str:
    return f"a whole number from {_BOUND_NAMES.get(low, f'{low:,}')} to {_BOUND_NAMES.get(high, f'{high:,}')}"


def whole_number(value: str | int, what: str, low: int = INT64[0], high: int = INT64[1], noun: str = "a whole number") -> int:
    """`value` as an int from `low` to `high`, or BoundsError naming `what`."""
    if isinstance(value, bool) or not isinstance(value, int | str):
        raise _error(what, noun, str(value), _range(low, high))
    text = value.strip() if isinstance(value, str) else str(value)
    if isinstance(value, str) and not _WHOLE.fullmatch(text):
        raise _error(what, noun, text, _how(text) + _range(low, high))
    if len(text.lstrip("+-").lstrip("0")) > 20 or not low <= int(text) <= high:  # int() of 5,000 digits is refused
        raise BoundsError(f"{what} is out of range, got {shown(text)} ({_range(low, high)})")
    return int(text)


def count(value: str | int, what: str, high: int = MAX_COUNT, noun: str = "a whole number") -> int:
    """A limit or a number of hits: a whole number from 1 to `high`."""
    return whole_number(value, what, 1, high, noun)


def decimal(value: str | float, what: str, noun: str = "a number") -> float:
    """A finite number written in ASCII (`0.5`, `-3`, `1e-3`), or BoundsError."""
    text = value.strip() if isinstance(value, str) else repr(value)
    if isinstance(value, str) and not _DECIMAL.fullmatch(text):
        raise _error(what, noun, text, _how(text) + "a finite number like 0.5 or 1e-3")
    number = float(text)
    if not math.isfinite(number):
        raise _error(what, noun, text, "a finite number")
    return number


def instant(value: str, what: str, noun: str = "a date") -> datetime:
    """An ISO date or datetime (`2024-05-03`, `2024-05-03T18:00Z`, `...+02:00`) as an aware datetime in UTC; one
    without an offset is UTC. BoundsError when it is no such date or lies outside years 1 to 9999 in UTC."""
    text = value.strip()
    if not _ISO.fullmatch(text):
        raise _error(what, noun, text, _how(text) + f"not an ISO date or datetime; {ISO_EXAMPLE}")
    try:
        parsed = datetime.fromisoformat(text.replace("Z", "+00:00"))
    except ValueError as exc:
        raise _error(what, noun, text, f"not a date: {exc}; {ISO_EXAMPLE}") from None
    try:
        return (parsed if parsed.tzinfo else parsed.replace(tzinfo=UTC)).astimezone(UTC)
    except OverflowError:
        raise _error(what, noun, text, f"a date from {date.min} to {date.max} once in UTC") from None
