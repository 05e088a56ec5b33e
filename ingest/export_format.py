"""Read a DiscordChatExporter JSON export (one channel or thread) into grapevine's records.

The format is DiscordChatExporter's `JsonMessageWriter` (see the shared format notes): a header
with `guild` and `channel`, then `messages`. The header must be sound or the whole file is
refused with `ExportFormatError`; each message is validated on its own, and a malformed one is
left out and listed in `ParsedExport.skipped` with its index in `messages`. What is kept of a message is what the
live bot keeps of it (common/message_text.py): system messages (joins, pins, calls, renames, thread creations)
carry no conversation and are only counted, by type; a message's text names its attachments and stickers.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from common.message_text import is_conversation, stored_text
from graph.models import Channel, ChannelKind, Guild, Message, User, dm_scope

__all__ = [
    "ExportFormatError",
    "ParsedExport",
    "SkippedMessage",
    "parse_export",
    "channel_kind",
]

_KINDS = {
    "GuildTextChat": ChannelKind.TEXT,
    "GuildNewsChat": ChannelKind.TEXT,
    "GuildPublicThread": ChannelKind.THREAD,
    "GuildPrivateThread": ChannelKind.THREAD,
    "GuildNewsThread": ChannelKind.THREAD,  # forum posts are public threads of a forum: threads
    "DirectTextChat": ChannelKind.DM,
    "DirectGroupTextChat": ChannelKind.DM,
    "GuildVoiceChat": ChannelKind.VOICE,
    "GuildStageVoice": ChannelKind.VOICE,
}
_DM_GUILD_ID = "0"  # DiscordChatExporter's pseudo-guild "Direct Messages"
# The one id Discord shows for every deleted account's old messages ("Deleted User"): never one person, so
# each of its messages is its own author (`deleted:<message id>`), and no two of them merge into one member.
DELETED_USER_ID = "456226577798135808"


class ExportFormatError(ValueError):
    """Not a DiscordChatExporter JSON export: bad JSON, or no guild/channel/messages.

    `line` and `column` (1-based) say where the JSON broke; both are None for other problems.
    """

    def __init__(self, path: Path, problem: str, line: int | None = None, column: int | None = None) -> None:
        where = f" at line {line}, column {column}" if line is not None else ""
        super().__init__(f"{path.name}: {problem}{where}")
        self.path, self.problem, self.line, self.column = path, problem, line, column


@dataclass(frozen=True, slots=True)
class SkippedMessage:
    index: int  # position in the export's `messages` array
    message_id: str | None
    reason: str
    kind: str = "malformed"  # what the summary counts it as: "malformed", "duplicate message id", ...


@dataclass(slots=True)
class ParsedExport:
    guild: Guild
    channel: Channel
    users: dict[str, User]
    messages: list[Message]
    skipped: list[SkippedMessage] = field(default_factory=list)
    system_messages: int = 0
    system_types: dict[str, int] = field(default_factory=dict)  # system messages by their type ("Call": 2)
    total: int = 0  # every message of the file: stored, skipped or system
    positions: dict[str, int] = field(default_factory=dict)  # message id -> its index in the export's `messages`


# --- the export's own shapes (only the fields we read; the rest is ignored) -----------------


class _Model(BaseModel):
    model_config = ConfigDict(extra="ignore", populate_by_name=True, coerce_numbers_to_str=True)

    @field_validator("*", mode="before")
    @classmethod
    def _unicode(cls, value: Any) -> Any:
        """JSON can spell a lone surrogate (`\\ud800`), which is no text: no engine or LLM can take it."""
        if isinstance(value, str):
            try:
                value.encode("utf-8")
            except UnicodeEncodeError as exc:
                raise ValueError(f"not valid Unicode (a lone surrogate at character {exc.start})") from None
        return value


SNOWFLAKE = r"^[1-9][0-9]{14,20}$"  # a Discord id: digits only, never a leading 0, so nothing in it reads as more


class ExportGuild(_Model):
    id: str = Field(pattern=rf"^([1-9][0-9]{{14,20}}|{_DM_GUILD_ID})$")  # or DiscordChatExporter's DM pseudo-guild
    name: str
    icon_url: str | None = Field(None, alias="iconUrl")


class ExportChannel(_Model):
    id: str = Field(pattern=SNOWFLAKE)
    type: str = "GuildTextChat"
    category_id: str | None = Field(None, alias="categoryId")
    category: str | None = None
    name: str
    topic: str | None = None


class ExportUser(_Model):
    id: str = Field(pattern=SNOWFLAKE)
    name: str
    discriminator: str | None = None
    nickname: str | None = None
    is_bot: bool = Field(False, alias="isBot")

    def record(self) -> User:
        return User(id=self.id, name=self.name, display_name=self.nickname or self.name, is_bot=self.is_bot)


class ExportAttachment(_Model):
    id: str | None = None
    url: str | None = None
    file_name: str = Field(alias="fileName")
    file_size_bytes: int | None = Field(None, alias="fileSizeBytes")


class ExportSticker(_Model):
    id: str | None = None
    name: str


class ExportReference(_Model):
    type: str | None = None  # "Default" (a reply) or "Forward"; absent in older exports
    message_id: str | None = Field(None, alias="messageId", pattern=SNOWFLAKE)
    channel_id: str | None = Field(None, alias="channelId")
    guild_id: str | None = Field(None, alias="guildId")


DISCORD_MAX_CONTENT = 4000  # the longest message Discord takes (with Nitro; 2,000 without)
EARLIEST = datetime(1970, 1, 1, tzinfo=UTC)  # no chat log is older (exports of IRC logs rewritten reach back to 2004)
LATEST = datetime(2015, 1, 1, tzinfo=UTC) + timedelta(milliseconds=2**42 - 1)  # the last time a Discord id holds: 2154


class ExportMessage(_Model):
    id: str = Field(pattern=SNOWFLAKE)
    type: str = "Default"
    timestamp: datetime
    timestamp_edited: datetime | None = Field(None, alias="timestampEdited")
    is_pinned: bool = Field(False, alias="isPinned")
    content: str = Field("", max_length=DISCORD_MAX_CONTENT)
    author: ExportUser
    attachments: list[ExportAttachment] = []
    stickers: list[ExportSticker] = []
    mentions: list[ExportUser] = []
    reference: ExportReference | None = None

    @field_validator("timestamp", "timestamp_edited")
    @classmethod
    def _discord_time(cls, value: datetime | None) -> datetime | None:
        """A time a chat message can have (EARLIEST to LATEST), in UTC: 0001-01-01 or 9999-12-31 is none, and would
        overflow the first date arithmetic done with it."""
        if value is None:
            return None
        try:
            at = value.replace(tzinfo=UTC) if value.tzinfo is None else value.astimezone(UTC)
        except OverflowError:
            raise ValueError("not a time Discord gives a message (out of the range of dates)") from None
        if not EARLIEST <= at <= LATEST:
            raise ValueError(f"{at.date()} is not a time Discord gives a message ({EARLIEST.year} to {LATEST.year})")
        return at

    def reply_to(self) -> str | None:
        ref = self.reference
        if ref is None or ref.type not in (None, "Default"):
            return None  # forwards quote a message, they do not answer it
        return ref.message_id or None

    def text(self) -> str:
        return stored_text(self.content, [a.file_name for a in self.attachments], [s.name for s in self.stickers])


# --- reading --------------------------------------------------------------------------------


def channel_kind(export_type: str) -> ChannelKind:
    """grapevine's kind of a DiscordChatExporter channel type (unknown types read as text)."""
    return _KINDS.get(export_type, ChannelKind.TEXT)


def parse_export(path: Path) -> ParsedExport:
    """Guild, channel, users and messages of one export file; raises `ExportFormatError`."""
    path = Path(path)
    raw_messages, guild, channel = _header(path, _load_json(path))
    guild_id = guild.id
    parsed = ParsedExport(guild=guild, channel=channel, users={}, messages=[], total=len(raw_messages))
    seen: set[str] = set()
    for index, raw in enumerate(raw_messages):
        if not isinstance(raw, dict):
            parsed.skipped.append(SkippedMessage(index, None, "not a JSON object"))
            continue
        raw_id = raw.get("id")
        message_id = str(raw_id) if isinstance(raw_id, (str, int)) and raw_id != "" else None
        kind = _type_of(raw)
        if not is_conversation(kind):
            parsed.system_messages += 1
            parsed.system_types[kind] = parsed.system_types.get(kind, 0) + 1
            continue
        try:
            item = ExportMessage.model_validate(raw)
        except ValidationError as err:
            parsed.skipped.append(SkippedMessage(index, message_id, _reason(err)))
            continue
        if item.id in seen:
            parsed.skipped.append(SkippedMessage(index, item.id, "duplicate message id", "duplicate message id"))
            continue
        seen.add(item.id)
        parsed.positions[item.id] = index
        if item.author.id == DELETED_USER_ID:
            item.author = item.author.model_copy(update={"id": f"deleted:{item.id}"})
        parsed.users[item.author.id] = item.author.record()
        for mentioned in item.mentions:
            if mentioned.id != DELETED_USER_ID:
                parsed.users.setdefault(mentioned.id, mentioned.record())
        parsed.messages.append(
            Message(
                id=item.id,
                guild_id=guild_id,
                channel_id=channel.id,
                author_id=item.author.id,
                content=item.text(),
                created_at=item.timestamp,
                edited_at=item.timestamp_edited,
                reply_to_id=item.reply_to(),
            )
        )
    return parsed


def _header(path: Path, document: Any) -> tuple[list[Any], Guild, Channel]:
    """The export's raw messages, its guild (a DM export's: its member's DM space) and its channel."""
    if not isinstance(document, dict):
        raise ExportFormatError(path, "the top level is not a JSON object")
    missing = [key for key in ("guild", "channel", "messages") if key not in document]
    if missing:
        raise ExportFormatError(path, f"not a DiscordChatExporter export: no {', '.join(missing)}")
    raw_messages = document["messages"]
    if not isinstance(raw_messages, list):
        raise ExportFormatError(path, "`messages` is not a list")
    try:
        export_guild = ExportGuild.model_validate(document["guild"])
        export_channel = ExportChannel.model_validate(document["channel"])
    except ValidationError as err:
        raise ExportFormatError(path, f"bad header: {_reason(err)}") from None

    kind = channel_kind(export_channel.type)
    guild_id = export_guild.id
    if guild_id == _DM_GUILD_ID or kind is ChannelKind.DM:
        guild_id = dm_scope(_dm_owner(path, raw_messages))
    channel = Channel(
        id=export_channel.id,
        guild_id=guild_id,
        name=export_channel.name,
        kind=kind,
        parent_id=export_channel.category_id if kind is ChannelKind.THREAD else None,
    )
    return raw_messages, Guild(id=guild_id, name=export_guild.name), channel


def _dm_owner(path: Path, raw_messages: list[Any]) -> str:
    """Whose DM space a DM export belongs to: its one participant who is not a bot (the bot's DMs with a member).
    A DM between people, or a group DM, is no one member's DMs with the bot, and is refused."""
    people = sorted(
        {
            str(author.get("id"))
            for raw in raw_messages
            if isinstance(raw, dict) and isinstance(author := raw.get("author"), dict) and not author.get("isBot")
            and is_conversation(_type_of(raw)) and author.get("id") not in (None, DELETED_USER_ID)
        }
    )  # fmt: skip
    if len(people) != 1:
        who = "no one but bots" if not people else f"{len(people)} people"
        raise ExportFormatError(
            path, f"a DM export is kept as one member's DMs with the bot, and this one has {who} writing in it"
        )
    return people[0]


def _type_of(raw: dict[str, Any]) -> str:
    """The message's type as the exporter names it ("Default" when it names none)."""
    kind = raw.get("type", "Default")
    return str(kind) if kind is not None else "Default"


def _load_json(path: Path) -> Any:
    try:
        text = path.read_text(encoding="utf-8-sig")
    except UnicodeDecodeError as err:
        raise ExportFormatError(path, f"not UTF-8 text (byte {err.start})") from None
    try:
        return json.loads(text)
    except json.JSONDecodeError as err:
        raise ExportFormatError(path, f"not valid JSON: {err.msg}", err.lineno, err.colno) from None


def _reason(err: ValidationError) -> str:
    """`author: Field required; timestamp: Input should be a valid datetime` and the like."""
    parts = []
    for e in err.errors(include_url=False, include_input=False):
        where = ".".join(str(p) for p in e["loc"]) or "message"
        parts.append(f"{where}: {e['msg']}")
    return "; ".join(parts)
