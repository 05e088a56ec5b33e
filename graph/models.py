"""What the store reads and writes: plain, typed records with no driver in sight.

Every datetime here is timezone-aware UTC; `utc()` normalises what comes back from an engine.
Records written or shared are pydantic models, validated; the views the reply path reads back (facts,
messages, entities) are frozen dataclasses, converted by `graph.rows`: a reply builds a few hundred, and a
pydantic model costs about eight times as much to build.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from enum import StrEnum
from typing import Literal, overload

from pydantic import BaseModel, ConfigDict, Field, field_validator

from common.text import name_key


@overload
def utc(value: datetime) -> datetime: ...
@overload
def utc(value: None) -> None: ...
def utc(value: datetime | None) -> datetime | None:
    """Aware UTC datetime from an aware or naive-UTC one (ArcadeDB returns some naive)."""
    if value is None:
        return None
    if hasattr(value, "to_native"):
        value = value.to_native()
    if value.tzinfo is None:
        return value.replace(tzinfo=UTC)
    return value.astimezone(UTC)


@overload
def iso(value: datetime) -> str: ...
@overload
def iso(value: None) -> None: ...
def iso(value: datetime | None) -> str | None:
    """ISO-8601 with offset: what every query turns into a native datetime with `datetime()`."""
    return None if value is None else utc(value).isoformat()


class _Record(BaseModel):
    model_config = ConfigDict(frozen=True)


class ChannelKind(StrEnum):
    TEXT = "text"
    THREAD = "thread"
    FORUM_POST = "forum_post"
    VOICE = "voice"
    DM = "dm"


class EpisodeStatus(StrEnum):
    PENDING = "pending"  # closed, waiting for extraction (or no LLM configured)
    DONE = "done"
    FAILED = "failed"  # parked with a reason; retried later
    SKIPPED = "skipped"  # sampled out by the extraction probability


class Guild(_Record):
    id: str
    name: str


class Channel(_Record):
    id: str
    guild_id: str
    name: str
    kind: ChannelKind = ChannelKind.TEXT
    parent_id: str | None = None


class User(_Record):
    id: str
    name: str
    display_name: str
    is_bot: bool = False


class Message(_Record):
    id: str
    guild_id: str
    channel_id: str
    author_id: str
    content: str
    created_at: datetime
    edited_at: datetime | None = None
    reply_to_id: str | None = None

    @field_validator("created_at", "edited_at")
    @classmethod
    def _aware(cls, v: datetime | None) -> datetime | None:
        return utc(v)


class NodeRef(_Record):
    """A fact's subject or mention: a Discord account or an Entity of the guild."""

    kind: Literal["user", "entity"]
    id: str  # User.id or Entity.uuid


class Report(_Record):
    """Who stated a fact, in which message, when."""

    user_id: str
    message_id: str | None
    at: datetime


class EntityWrite(_Record):
    uuid: str
    name: str
    kind: str = "other"
    aliases: tuple[str, ...] = ()


class RelationWrite(_Record):
    """A lasting link: (entity)-[:RELATED_TO {kind}]->(target), e.g. Charlie's sister."""

    entity_uuid: str
    kind: str
    target: NodeRef


class FactWrite(_Record):
    uuid: str
    text: str
    category: str = "other"
    importance: int = Field(5, ge=1, le=10)
    confidence: float = Field(0.8, ge=0.0, le=1.0)
    valid_at: datetime
    expires_at: datetime | None = None
    about: tuple[NodeRef, ...]
    mentions: tuple[NodeRef, ...] = ()
    reports: tuple[Report, ...]
    source_message_ids: tuple[str, ...] = ()
    channel_id: str | None = None  # where a command stated it, part of its audience when no stored message says
    supersedes: tuple[str, ...] = ()  # uuids of valid facts this one closes
    embedding: tuple[float, ...] | None = None
    source: Literal["episode", "command"] = "episode"


class Corroboration(_Record):
    """A second person stating a fact that is already valid: a REPORTED_BY edge, not a new Fact."""

    fact_uuid: str
    report: Report


class EpisodeWrite(_Record):
    """One episode's extraction result, written in one transaction."""

    key: str
    guild_id: str
    summary: str = ""
    entities: tuple[EntityWrite, ...] = ()
    relations: tuple[RelationWrite, ...] = ()
    facts: tuple[FactWrite, ...] = ()
    corroborations: tuple[Corroboration, ...] = ()
    people: tuple[str, ...] = ()  # who wrote in or was mentioned in the window: with one opted out, no summary is kept
    prompt_tokens: int = 0  # what the extraction call cost, every attempt counted
    completion_tokens: int = 0


class EpisodeClose(_Record):
    """A closed window: the messages it holds and who took part."""

    key: str
    uuid: str
    guild_id: str
    channel_id: str
    started_at: datetime
    ended_at: datetime
    message_ids: tuple[str, ...]
    participant_ids: tuple[str, ...]
    status: EpisodeStatus = EpisodeStatus.PENDING


class Episode(_Record):
    uuid: str
    key: str
    guild_id: str
    channel_id: str
    started_at: datetime
    ended_at: datetime
    message_count: int
    summary: str = ""
    status: EpisodeStatus
    attempts: int = 0
    error: str | None = None
    updated_at: datetime | None = None  # when its status last changed (a failed attempt's time)


@dataclass(frozen=True, slots=True)
class FactView:
    """A fact as the reply path and operators see it."""

    uuid: str
    text: str
    category: str
    importance: int
    confidence: float
    valid_at: datetime | None
    invalid_at: datetime | None = None
    expires_at: datetime | None = None
    created_at: datetime | None = None
    expired_at: datetime | None = None
    about: tuple[str, ...] = ()  # display names
    about_ids: tuple[str, ...] = ()
    reporters: tuple[tuple[str, str, datetime | None], ...] = ()  # (user id, display name, at)
    superseded_by: str | None = None
    sources: tuple[str, ...] = ()  # ids of the messages it was drawn from, where the read gives them (the reply's)
    shown: tuple[tuple[str, str], ...] = ()  # (message id, channel id) of the sources the asking channel may link to
    # the ranking terms of `text` then of `about` (common.text.document_terms, stemmed, as the read model made them
    # once), the first `text_terms` of them the text's; None: ranking makes them from the text. Not part of what the
    # fact is: equal views stay equal however they were read
    terms: tuple[str, ...] | None = field(default=None, compare=False, repr=False)
    text_terms: int = field(default=0, compare=False, repr=False)


@dataclass(frozen=True, slots=True)
class EntityView:
    uuid: str
    name: str
    kind: str
    aliases: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class MessageView:
    id: str
    channel_id: str
    author_id: str
    author_name: str
    author_is_bot: bool
    content: str
    created_at: datetime
    reply_to_id: str | None = None


@dataclass(frozen=True, slots=True)
class Recalled:
    """Earlier messages matching a reply, best first, and the messages next to each (`Conversation`'s)."""

    matches: tuple[MessageView, ...] = ()
    around: tuple[tuple[str, MessageView], ...] = ()


@dataclass(frozen=True, slots=True)
class Conversation:
    """What one read gathers around a reply: its author, the channel's recent past, the reply chain and
    the channel's earlier messages that match the reply."""

    author: User | None
    summaries: tuple[tuple[datetime, str], ...]  # (episode end, summary), oldest first
    recent: tuple[MessageView, ...]  # oldest first
    chain: tuple[MessageView, ...]  # oldest first
    recalled: tuple[MessageView, ...] = ()  # best match first
    around: tuple[tuple[str, MessageView], ...] = ()  # (a recalled message's id, the message before or after it)
    older: Recalled = Recalled()  # matches in a quiet channel's windows before the recalled span, with their neighbours


class SchemaMismatch(RuntimeError):
    """The graph was set up with another schema version or embedding model."""


def dm_scope(user_id: int | str) -> str:
    """The memory of a member's direct messages with the bot: a guild id of its own."""
    return f"dm:{user_id}"


def holds(
    valid_at: datetime | None,
    invalid_at: datetime | None,
    expires_at: datetime | None,
    expired_at: datetime | None,
    at: datetime,
) -> bool:
    """Whether a fact held at `at`: begun by then (an undated one always has), and ended by none of its own end
    (`invalid_at`, a newer fact's start), its expiry (counted from when it held) or its closing (`expired_at`:
    superseded, retired or capped). Every read of "held" or "current" follows it (the Cypher of
    queries/operator/topic_timeline.cypher and queries/store/facts_about*.cypher, the explorer's drawing); "now"
    is `at` the current time, where a fact listed as current may also be a plan not begun yet."""
    if valid_at is not None and utc(valid_at) > utc(at):
        return False
    return not ended(invalid_at, expires_at, expired_at, at)


def ended(invalid_at: datetime | None, expires_at: datetime | None, expired_at: datetime | None, at: datetime) -> bool:
    """Whether a fact's validity ended by `at` (its end, its expiry or its closing): then it is not current."""
    return any(t is not None and utc(t) <= utc(at) for t in (invalid_at, expires_at, expired_at))


def fact_key(text: str, about_ids: Iterable[str]) -> tuple[str, frozenset[str]]:
    """What makes two facts one: the same words in their normal form (`name_key`), about the same subjects (their
    ids). Resolution merges a batch's facts by it, and an episode's write corroborates a stored fact by it."""
    return name_key(text), frozenset(about_ids)
