"""Build a realistic DiscordChatExporter JSON export from one shared IRC sample.

The IRC samples (`/work/shared/data/irc/dev/<date>_<hour>.raw.txt`) hold `[HH:MM] <nick> text`
lines, `[HH:MM]  * nick does something` actions and `=== ...` system lines; line numbers count
from 0, and the line at index 1000 falls on the date and hour of the file name. The sibling
`*.annotation.txt` holds `A B -` links: raw line B answers raw line A (A == B starts a thread).

The export has every field DiscordChatExporter writes, deterministically filled: snowflake-like
ids (strings of digits) per nick and per line, `Reply` messages with a `reference` to the nearest
earlier linked message, a few edits, attachments, reactions, a pin, mentions, `GuildMemberJoin`
system messages for joins, IRC bots (ubottu, FloodBot...) flagged `isBot`, and one Discord bot
("Grapevine Helper") posting two messages: an announcement with an embed and a slash-command reply.
"""

from __future__ import annotations

import hashlib
import json
import re
from datetime import UTC, date, datetime, timedelta
from pathlib import Path
from typing import Any

IRC_BOT_NICKS = frozenset({"ubottu", "ubotu", "ubugtu", "FloodBot1", "FloodBot2", "FloodBot3"})
BOT_NICK = "Grapevine Helper"
ANCHOR_LINE = 1000  # the annotated part of every sample starts here

_EPOCH = datetime(2000, 1, 1, tzinfo=UTC)  # before every sample, so ids stay positive
_SAY = re.compile(r"^\[(\d\d):(\d\d)\] <([^>]+)> ?(.*)$")
_ACT = re.compile(r"^\[(\d\d):(\d\d)\]\s+\* (\S+) ?(.*)$")
_RENAME = re.compile(r"^=== (\S+) is now known as (\S+)")
_JOIN = re.compile(r"^=== (\S+) \[[^\]]*\]\s+has joined (#\S+)")
_NAME = re.compile(r"^(\d{4}-\d\d-\d\d)_(\d\d)")
_ADDRESS = re.compile(r"^([^\s:,]+)[:,] ")


def snowflake(at: datetime, low: int) -> str:
    """Discord-like id: milliseconds since 2000 shifted by 22 bits, `low` in the low bits."""
    ms = int((at - _EPOCH).total_seconds() * 1000)
    return str((ms << 22) | (low & 0x3FFFFF))


def user_id(nick: str) -> str:
    """A stable 18-digit id per account name."""
    digest = int(hashlib.sha256(nick.encode("utf-8")).hexdigest()[:16], 16)
    return str(10**17 + digest % (9 * 10**17))


def _stamp(at: datetime | None) -> str | None:
    return None if at is None else at.isoformat(timespec="milliseconds")


def _user(nick: str, account: str, *, bot: bool = False) -> dict[str, Any]:
    uid = user_id(account)
    role = {"id": "1" + uid[1:], "name": "Bots", "color": "#5865F2", "position": 3}
    return {
        "id": uid,
        "name": account.lower(),
        "discriminator": "0000",
        "nickname": nick,
        "color": "#5865F2" if bot else None,
        "isBot": bot,
        "roles": [role] if bot else [],
        "avatarUrl": f"https://cdn.discordapp.com/embed/avatars/{int(uid) % 5}.png",
    }


def _lines_with_times(raw_path: Path) -> list[tuple[int, str, datetime | None]]:
    """(index, line, time) for every raw line; times roll over midnight, anchored on line 1000."""
    name = _NAME.match(raw_path.name)
    if name is None:
        raise ValueError(f"{raw_path.name}: expected a name like 2009-10-01_17.raw.txt")
    lines = raw_path.read_text(encoding="utf-8").split("\n")  # not splitlines(): keeps numbering
    if lines and lines[-1] == "":
        lines.pop()
    offsets: list[timedelta | None] = []
    day, last, per_minute, anchor_day = 0, (-1, -1), 0, 0
    for index, line in enumerate(lines):
        m = re.match(r"^\[(\d\d):(\d\d)\]", line)
        if m is None:
            offsets.append(None)
            continue
        hm = (int(m.group(1)), int(m.group(2)))
        day += hm < last
        per_minute = per_minute + 1 if hm == last else 0  # seconds keep the lines in order
        last = hm
        if index <= ANCHOR_LINE:
            anchor_day = day
        offsets.append(timedelta(day, hours=hm[0], minutes=hm[1], seconds=min(per_minute, 59)))
    day0 = date.fromisoformat(name.group(1))
    base = datetime(day0.year, day0.month, day0.day, tzinfo=UTC) - timedelta(anchor_day)
    times = [None if o is None else base + o for o in offsets]
    return list(zip(range(len(lines)), lines, times))


def _reply_targets(annotation_path: Path) -> dict[int, int]:
    """Raw line -> the nearest earlier raw line it answers."""
    targets: dict[int, int] = {}
    if not annotation_path.is_file():
        return targets
    for row in annotation_path.read_text(encoding="utf-8").splitlines():
        parts = row.split()
        if len(parts) < 2:
            continue
        a, b = int(parts[0]), int(parts[1])
        if a < b:
            targets[b] = max(targets.get(b, a), a)
    return targets


def export_from_irc(
    sample_raw_path: Path,
    out_path: Path,
    *,
    guild_id: str = "700000000000000042",
    channel_id: str | None = None,
) -> None:
    """Write a DiscordChatExporter JSON export of one IRC sample to `out_path`."""
    sample_raw_path = Path(sample_raw_path)
    stem = sample_raw_path.name.removesuffix(".raw.txt")
    channel_id = channel_id or user_id(f"channel:{stem}")
    targets = _reply_targets(sample_raw_path.with_name(f"{stem}.annotation.txt"))
    account: dict[str, str] = {}  # current nick -> the nick it started as (ids survive renames)
    known: set[str] = set()  # nicks seen so far, for mentions
    channel_name, last_at = "irc-" + stem, None
    by_line: dict[int, dict[str, Any]] = {}
    messages: list[dict[str, Any]] = []

    def user(nick: str) -> dict[str, Any]:
        return _user(nick, account.get(nick, nick), bot=nick in IRC_BOT_NICKS)

    for index, line, at in _lines_with_times(sample_raw_path):
        if (rename := _RENAME.match(line)) is not None:
            account[rename.group(2)] = account.get(rename.group(1), rename.group(1))
            known.add(rename.group(2))
            continue
        if (join := _JOIN.match(line)) is not None:
            channel_name = join.group(2).lstrip("#")
            if last_at is not None:
                joined = user(join.group(1))
                text = "Joined the server."
                messages.append(_message(snowflake(last_at, index), "GuildMemberJoin", last_at, text, joined))
            continue
        m = _SAY.match(line) or _ACT.match(line)
        if m is None or at is None:
            continue
        last_at, nick, text = at, m.group(3), m.group(4)
        known.add(nick)
        if m.re is _ACT:
            text = f"_{text}_"  # how Discord renders /me
        msg = _message(snowflake(at, index), "Default", at, text, user(nick))
        said = len(by_line) + 1
        if (addressed := _ADDRESS.match(text)) and addressed.group(1) in known - {nick}:
            msg["mentions"].append(user(addressed.group(1)))
        target = by_line.get(targets.get(index, -1))
        if target is not None:
            msg["type"] = "Reply"
            msg["reference"] = _reference(target["id"], channel_id, guild_id)
        _decorate(msg, said, index, at, channel_id, next(iter(by_line.values()), None))
        by_line[index] = msg
        messages.append(msg)
        if said in (40, 120):
            messages.append(_bot_message(msg, channel_id, guild_id, slash=said == 120))
    _write(out_path, guild_id, channel_id, channel_name, stem, messages)


def _decorate(msg: dict[str, Any], said: int, index: int, at: datetime, channel_id: str, first: dict[str, Any] | None) -> None:
    """What real exports hold now and then, on a fixed share of the messages: an edit, an attachment, a reaction
    (by the first message's author), a pin."""
    if said % 50 == 7:
        msg["timestampEdited"] = _stamp(at + timedelta(seconds=40 + index % 7 * 11))
    if said % 97 == 13:
        msg["attachments"].append(_attachment(msg["id"], channel_id, index, at))
    if said % 61 == 5 and first is not None:
        msg["reactions"].append(_thumbs_up(first["author"]))
    msg["isPinned"] = said == 3


def _message(mid: str, kind: str, at: datetime, content: str, author: dict[str, Any]) -> dict[str, Any]:
    return {
        "id": mid, "type": kind, "timestamp": _stamp(at), "timestampEdited": None,
        "callEndedTimestamp": None, "isPinned": False, "content": content, "author": author,
        "attachments": [], "embeds": [], "stickers": [], "reactions": [], "mentions": [],
        "inlineEmojis": [],
    }  # fmt: skip


def _reference(message_id: str, channel_id: str, guild_id: str) -> dict[str, Any]:
    return {
        "type": "Default", "messageId": message_id, "channelId": channel_id, "guildId": guild_id
    }  # fmt: skip


def _attachment(message_id: str, channel_id: str, index: int, at: datetime) -> dict[str, Any]:
    name = f"screenshot-{index}.png"
    return {
        "id": snowflake(at, 0x300000 + index),
        "url": f"https://cdn.discordapp.com/attachments/{channel_id}/{message_id}/{name}",
        "fileName": name,
        "fileSizeBytes": 48_213 + index,
    }


def _thumbs_up(fan: dict[str, Any]) -> dict[str, Any]:
    svg = "https://cdn.jsdelivr.net/gh/twitter/twemoji@latest/assets/svg/1f44d.svg"
    emoji = {"id": "", "name": "👍", "code": "thumbsup", "isAnimated": False, "imageUrl": svg}
    users = [{k: v for k, v in fan.items() if k != "roles"}]  # reactions list users without roles
    return {"emoji": emoji, "count": 1, "users": users}


def _bot_message(after: dict[str, Any], channel_id: str, guild_id: str, *, slash: bool) -> dict[str, Any]:
    """The Discord bot: an announcement with an embed, or a `/docs` reply to `after`."""
    at = datetime.fromisoformat(after["timestamp"]) + timedelta(milliseconds=500)
    bot = _user(BOT_NICK, BOT_NICK, bot=True)
    if not slash:
        text = "Reminder: this channel is archived for the community wiki."
        msg = _message(snowflake(at, 0x200001), "Default", at, text, bot)
        wiki = {"name": "Wiki", "value": "https://help.ubuntu.com", "isInline": False}
        msg["embeds"].append({
            "title": "Channel rules", "url": None, "timestamp": None, "color": "#5865F2",
            "description": "Be kind. Search the wiki before asking.", "images": [],
            "footer": {"text": "Grapevine", "iconUrl": None}, "fields": [wiki], "inlineEmojis": [],
        })  # fmt: skip
        return msg
    asker = after["author"]
    text = f"@{asker['nickname']} see https://help.ubuntu.com/community for guides."
    msg = _message(snowflake(at, 0x200002), "Reply", at, text, bot)
    msg["reference"] = _reference(after["id"], channel_id, guild_id)
    msg["interaction"] = {"id": snowflake(at, 0x200003), "name": "docs", "user": asker}
    msg["mentions"].append(asker)
    return msg


def _write(
    out_path: Path,
    guild_id: str,
    channel_id: str,
    channel_name: str,
    stem: str,
    messages: list[dict[str, Any]],
) -> None:
    last = datetime.fromisoformat(messages[-1]["timestamp"]) if messages else _EPOCH
    icon = "https://cdn.discordapp.com/embed/avatars/0.png"
    document = {
        "guild": {"id": guild_id, "name": "Ubuntu (IRC replay)", "iconUrl": icon},
        "channel": {
            "id": channel_id,
            "type": "GuildTextChat",
            "category": "Support",
            "categoryId": user_id(f"category:{guild_id}"),
            "name": channel_name,
            "topic": f"Replay of the IRC log {stem}",
        },  # fmt: skip
        "dateRange": {"after": None, "before": None},
        "exportedAt": _stamp(last + timedelta(days=1)),
        "messages": messages,
        "messageCount": len(messages),
    }
    text = json.dumps(document, ensure_ascii=False, indent=2) + "\n"
    Path(out_path).write_text(text, encoding="utf-8")
