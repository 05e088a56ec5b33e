"""The one clock the runtime reads: aware UTC, so every stored time compares with every other."""

from __future__ import annotations

from datetime import UTC, datetime


def now_utc() -> datetime:
    return datetime.now(UTC)
