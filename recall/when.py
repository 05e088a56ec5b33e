"""The time a message names, for time-aware ranking: "what did Nate cook on 9 November, 2022?" is answered
by what was said that day, "what is Tim learning in December 2023?" by what was said that month.

Pure: `named_period` reads dates written out in the message (a day, a month, a year, with or without the
year) into the period they cover; `timely` says which facts and messages fall in it (a fact by when it
became true, else when it was first reported; a message by when it was sent). `recall.ranking` fuses that
order with relevance, so what was said in the named period comes first among what matches the question,
and nothing is dropped. Relative times ("last week") are left alone: relative to what, in a question
about the past, the message does not say.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from datetime import UTC, datetime, timedelta

from graph.models import FactView, MessageView

MONTHS = {
    name: i + 1
    for i, name in enumerate("january february march april may june july august september october november december".split())
}
Period = tuple[datetime, datetime]
SLACK = timedelta(days=1)  # a day named in a question also holds what was said around midnight (time zones)
_MONTH = "(" + "|".join(MONTHS) + r")"
_DAY = r"(\d{1,2})(?:st|nd|rd|th)?"
_YEAR = r"((?:19|20)\d\d)"
_PATTERNS = (  # most precise first; a span of text is read once
    ("day", re.compile(rf"\b{_DAY}\s+(?:of\s+)?{_MONTH},?\s*{_YEAR}?\b", re.IGNORECASE), (1, 2, 3)),
    ("day", re.compile(rf"\b{_MONTH}\s+{_DAY}\b(?:,?\s*{_YEAR}\b)?", re.IGNORECASE), (2, 1, 3)),
    ("month", re.compile(rf"\b{_MONTH}(?:,?\s*(?:of\s+)?{_YEAR})?\b", re.IGNORECASE), (0, 1, 2)),
    ("year", re.compile(rf"\b(?:in|of|during|since)\s+{_YEAR}\b", re.IGNORECASE), (0, 0, 1)),
)


def _month_start(year: int, month: int) -> datetime:
    return datetime(year, month, 1, tzinfo=UTC)


def _next_month(start: datetime) -> datetime:
    return _month_start(start.year + start.month // 12, start.month % 12 + 1)


def named_period(text: str, at: datetime) -> Period | None:
    """The period (start, end) covering every date the text writes out, or None when it names none.
    A date without its year is the latest one that starts before `at` (the year of any full date
    of the same text first: "between August 11 and August 15 2023")."""
    spans = _written_dates(text)
    if not spans:
        return None
    written = next((year for *_, year in spans if year), 0)
    periods = []
    for kind, _, day, month, year in spans:
        if kind == "year":
            periods.append((datetime(year, 1, 1, tzinfo=UTC), datetime(year + 1, 1, 1, tzinfo=UTC)))
            continue
        year = year or written or at.year
        if not written and _month_start(year, month) > at:
            year -= 1
        if kind == "month":
            start = _month_start(year, month)
            periods.append((start, _next_month(start)))
        else:
            try:
                start = datetime(year, month, day, tzinfo=UTC)
            except ValueError:
                continue
            periods.append((start - SLACK, start + timedelta(days=1) + SLACK))
    if not periods:
        return None
    return min(s for s, _ in periods), max(e for _, e in periods)


def _written_dates(text: str) -> list[tuple[str, int, int, int, int]]:
    """The dates the text writes out, as (kind, position, day, month, year (0: not written)), overlaps left out."""
    spans: list[tuple[str, int, int, int, int]] = []
    taken: list[tuple[int, int]] = []
    for kind, pattern, (d, m, y) in _PATTERNS:
        for match in pattern.finditer(text):
            if any(match.start() < end and start < match.end() for start, end in taken):
                continue
            taken.append(match.span())
            day = int(match[d]) if d else 0
            month = MONTHS[match[m].casefold()] if m else 0
            year = int(match[y]) if y and match[y] else 0
            if kind == "day" and not 1 <= day <= 31:
                continue
            if kind == "month" and not year and match[m].casefold() == "may" and not _may_is_month(text, match.start()):
                continue  # "what may Tim ..." names no month
            spans.append((kind, match.start(), day, month, year))
    return spans


def _may_is_month(text: str, position: int) -> bool:
    """ "May" is the month after a preposition or before a day or year ("in May", "May 3"), not the verb."""
    before = text[:position].split()[-1:] or [""]
    return before[0].casefold() in {"in", "on", "of", "since", "during", "early", "late", "mid", "until", "by"} or bool(
        re.match(r"may\s+\d", text[position:], re.IGNORECASE)
    )


def fact_time(fact: FactView) -> datetime | None:
    if fact.valid_at is not None:
        return fact.valid_at
    dates = [at for _, _, at in fact.reporters if at is not None]
    return min(dates) if dates else None


def timely(keys_and_times: Sequence[tuple[str, datetime | None]], period: Period | None) -> list[str]:
    """The keys whose time falls in `period`, in the order given; for one day named, what was said that day
    before what was said in the day of slack either side of it."""
    if period is None:
        return []
    start, end = period
    inside = [(key, at) for key, at in keys_and_times if at is not None and start <= at < end]
    if end - start == timedelta(days=1) + 2 * SLACK:
        day_start, day_end = start + SLACK, end - SLACK
        inside.sort(key=lambda kv: not day_start <= kv[1] < day_end)  # stable: the given order within each
    return [key for key, _ in inside]


def timely_facts(facts: Sequence[FactView], period: Period | None) -> list[str]:
    return timely([(f.uuid, fact_time(f)) for f in facts], period)


def timely_messages(messages: Sequence[MessageView], period: Period | None) -> list[str]:
    return timely([(m.id, m.created_at) for m in messages], period)
