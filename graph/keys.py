"""Index keys computed in Python that a range of one index reads (ArcadeDB seeks a composite index by its
first property only, so a span of one channel's history needs one property that orders by channel, then time)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from graph.models import utc

_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)
_OFFSET = 10**15  # every epoch-millis from 1970 to 2286 becomes 16 digits: strings order as times do


def channel_time(channel_id: str, at: datetime) -> str:
    """'<channel id>|<10^15 + epoch millis>': what queries/schema/backfill_message_keys.cypher builds too."""
    return f"{channel_id}|{_OFFSET + (utc(at) - _EPOCH) // timedelta(milliseconds=1)}"


def channel_start(channel_id: str) -> str:
    """The lowest key of a channel: every message of it is at or after this."""
    return f"{channel_id}|"
