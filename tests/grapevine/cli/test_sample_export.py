"""The sample export the README's quick start imports (examples/discord-export/) is shaped like a real
DiscordChatExporter export of a real server, with what real data does: replies (one to oneself), a thread
of a channel, an edit, mentions, an attachment without text, a system message, a bot, a member whose
name is a common word, and a fact that changes over time. Its ids are Discord snowflakes whose time is
the message's."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path

from graph.models import ChannelKind
from ingest.export_format import parse_export

REPO = Path(__file__).resolve().parents[3]
SAMPLE = REPO / "examples" / "discord-export"
DISCORD_EPOCH = datetime(2015, 1, 1, tzinfo=UTC)


def _snowflake_time(snowflake: str) -> datetime:
    return datetime.fromtimestamp(DISCORD_EPOCH.timestamp() + (int(snowflake) >> 22) / 1000, UTC)


def test_the_sample_is_a_channel_and_its_thread_of_one_guild() -> None:
    general, thread = parse_export(SAMPLE / "general.json"), parse_export(SAMPLE / "saturday-carpool.json")
    assert general.guild == thread.guild and not general.skipped and not thread.skipped
    assert general.channel.kind == ChannelKind.TEXT and thread.channel.kind == ChannelKind.THREAD
    assert thread.channel.parent_id == general.channel.id
    starter = next(m for m in general.messages if m.id == thread.channel.id)  # started from a message of #general
    assert starter.edited_at is not None  # and that message was edited


def test_the_sample_holds_what_real_conversations_do() -> None:
    parsed = [parse_export(SAMPLE / "general.json"), parse_export(SAMPLE / "saturday-carpool.json")]
    messages = [m for p in parsed for m in p.messages]
    by_id = {m.id: m for m in messages}
    users = {uid: u for p in parsed for uid, u in p.users.items()}
    replies = [m for m in messages if m.reply_to_id]
    assert len({m.author_id for m in messages if not users[m.author_id].is_bot}) >= 4
    assert any(users[m.author_id].is_bot for m in messages)
    assert len(replies) >= 5 and all(m.reply_to_id in by_id for m in replies)
    assert any(by_id[m.reply_to_id].author_id == m.author_id for m in replies if m.reply_to_id)  # a reply to oneself
    assert any("@Bob" in m.content for m in messages)  # DiscordChatExporter writes mentions as @names
    assert any(m.content.startswith("[attachment:") for m in messages)
    assert sum(p.system_messages for p in parsed) >= 1
    assert any(u.display_name == "May" for u in users.values()) and any(m.content.startswith("May I") for m in messages)
    bob = [m.content for m in messages if users[m.author_id].display_name == "Bob"]
    assert any("Berlin" in c for c in bob) and any("Munich" in c for c in bob)  # he moves, and says so later


def test_every_id_is_a_snowflake_of_its_own_time() -> None:
    for path in sorted(SAMPLE.glob("*.json")):
        document = json.loads(path.read_text(encoding="utf-8"))
        assert document["messageCount"] == len(document["messages"])
        for message in document["messages"]:
            stamped = datetime.fromisoformat(message["timestamp"])
            assert abs((_snowflake_time(message["id"]) - stamped).total_seconds()) < 1, (path.name, message["id"])
            reference = message.get("reference")
            if reference:
                assert reference["guildId"] == document["guild"]["id"] and reference["channelId"] == document["channel"]["id"]
