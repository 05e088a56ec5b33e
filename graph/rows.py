"""Rows from the query files, turned into the store's records."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from datetime import UTC, datetime
from typing import Any, cast

from graph.models import (
    EntityView,
    Episode,
    EpisodeStatus,
    FactView,
    Message,
    MessageView,
    User,
    utc,
)


def _at(value: Any) -> datetime:
    """A time the record always has."""
    found = as_datetime(value)
    if found is None:
        raise ValueError("a required time is missing from the row")
    return found


def as_datetime(value: Any) -> datetime | None:
    if value is None:
        return None
    if isinstance(value, str):  # ISO text, as the reply's reads return times; Python 3.11 reads a trailing Z
        parsed = datetime.fromisoformat(value)
        return parsed if parsed.tzinfo is UTC else utc(parsed)
    return utc(cast(datetime, value))


def importance_then_newest(fact: FactView) -> tuple[int, bool, float, str]:
    """The order of the facts reads: importance, then valid_at (DESC, so unknown first), then uuid."""
    return (-fact.importance, fact.valid_at is not None, -fact.valid_at.timestamp() if fact.valid_at else 0.0, fact.uuid)


def fact(row: dict[str, Any]) -> FactView:
    """A fact of the store's reads (store/facts_about.cypher and its siblings): named fields, and maps in its
    lists (`about`: id, name; `reporters`: id, name, at; `shown`: message_id, channel_id)."""
    about = row.get("about") or []
    superseded_by = row.get("superseded_by") or []
    return FactView(
        uuid=row["uuid"],
        text=row["text"],
        category=row.get("category") or "other",
        importance=int(row.get("importance") or 5),
        confidence=float(row["confidence"]) if row.get("confidence") is not None else 0.8,
        valid_at=as_datetime(row.get("valid_at")),
        invalid_at=as_datetime(row.get("invalid_at")),
        expires_at=as_datetime(row.get("expires_at")),
        created_at=as_datetime(row.get("created_at")),
        expired_at=as_datetime(row.get("expired_at")),
        about=tuple(a["name"] or a["id"] for a in about),
        about_ids=tuple(a["id"] for a in about),
        reporters=reporters(row.get("reporters") or ()),
        superseded_by=superseded_by[0] if superseded_by else None,
        shown=tuple((m["message_id"], m["channel_id"]) for m in row.get("shown") or ()),
    )


def reporters(
    raw: Iterable[Mapping[str, Any]], when: Callable[[Any], datetime | None] = as_datetime
) -> tuple[tuple[str, str, datetime | None], ...]:
    """A fact's reporters ({id, name, at} each) as (id, name or id, at), earliest report first, undated last;
    `when` reads the time as the statement returned it."""
    said = [(r["id"], r["name"] or r["id"], when(r["at"])) for r in raw]
    return tuple(sorted(said, key=lambda r: (r[2] is None, r[2] or datetime.max, r[0])))


def entity(row: dict[str, Any]) -> EntityView:
    return EntityView(
        uuid=row["uuid"], name=row["name"], kind=row.get("kind") or "other", aliases=tuple(row.get("aliases") or ())
    )


def message_view(row: dict[str, Any]) -> MessageView:
    return MessageView(
        id=row["id"],
        channel_id=row["channel_id"],
        author_id=row["author_id"],
        author_name=row.get("author_display_name") or row.get("author_name") or row["author_id"],
        author_is_bot=bool(row.get("author_is_bot")),
        content=row.get("content") or "",
        created_at=_at(row["created_at"]),
        reply_to_id=row.get("reply_to_id"),
    )


def message_and_author(row: dict[str, Any]) -> tuple[Message, User]:
    msg = Message(
        id=row["id"],
        guild_id=row["guild_id"],
        channel_id=row["channel_id"],
        author_id=row["author_id"],
        content=row.get("content") or "",
        created_at=_at(row["created_at"]),
        edited_at=as_datetime(row.get("edited_at")),
        reply_to_id=row.get("reply_to_id"),
    )
    author = User(
        id=row["author_id"],
        name=row.get("author_name") or row["author_id"],
        display_name=row.get("author_display_name") or row.get("author_name") or row["author_id"],
        is_bot=bool(row.get("author_is_bot")),
    )
    return msg, author


def user(row: dict[str, Any]) -> User:
    return User(
        id=row["id"],
        name=row.get("name") or row["id"],
        display_name=row.get("display_name") or row.get("name") or row["id"],
        is_bot=bool(row.get("is_bot")),
    )


def episode(row: dict[str, Any]) -> Episode:
    return Episode(
        uuid=row["uuid"],
        key=row["key"],
        guild_id=row["guild_id"],
        channel_id=row["channel_id"],
        started_at=_at(row["started_at"]),
        ended_at=_at(row["ended_at"]),
        message_count=int(row.get("message_count") or 0),
        summary=row.get("summary") or "",
        status=EpisodeStatus(row["status"]),
        attempts=int(row.get("attempts") or 0),
        error=row.get("error"),
    )
