"""Listening: Discord messages become graph records (guild, channel kind, user, reply link) in LiveWindows;
edits and deletes follow; guild and channel are written once per process."""

from __future__ import annotations

from datetime import timedelta
from unittest import mock

import discord

import bot.listening._channels
import bot.listening._recorder
from bot.convert import place_of, to_message
from graph.models import ChannelKind
from graph.store import GraphStore
from graph.writes.discord_records import upsert_channel
from tests.bot.harness import AT, Harness
from tests.support.discord_doubles import (
    MockClientUser,
    MockDMChannel,
    MockForumChannel,
    MockGuild,
    MockMember,
    MockMessage,
    MockTextChannel,
    MockThread,
    raw_edit,
    reply_to,
)
from tests.support.scripted import count, cypher

ME = 777


def test_places_of_text_thread_forum_post_and_dm() -> None:
    guild = MockGuild(id=1, name="Book Club")
    text = MockTextChannel(id=2, name="general", guild=guild)
    thread = MockThread(id=3, name="weekend", parent=text)
    post = MockThread(id=4, name="help: my sourdough", parent=MockForumChannel(id=5, name="help", guild=guild))
    alice = MockMember(id=10, name="alice", display_name="Alice")
    kinds = {}
    for channel in (text, thread, post):
        place = place_of(MockMessage(author=alice, channel=channel), ME)
        assert place is not None and place.guild.id == "1" and place.guild.name == "Book Club"
        kinds[channel.id] = (place.channel.kind, place.channel.parent_id, place.channel.name)
    assert kinds == {
        2: (ChannelKind.TEXT, None, "general"),
        3: (ChannelKind.THREAD, "2", "weekend"),
        4: (ChannelKind.FORUM_POST, "5", "help: my sourdough"),
    }

    dm = MockDMChannel(id=6, recipient=alice)
    mine = place_of(MockMessage(author=MockClientUser(id=ME), channel=dm, guild=None), ME)
    theirs = place_of(MockMessage(author=alice, channel=dm, guild=None), ME)
    assert mine == theirs and theirs is not None
    assert (theirs.guild.id, theirs.channel.kind, theirs.channel.guild_id) == ("dm:10", ChannelKind.DM, "dm:10")
    assert "alice" not in (theirs.guild.name + theirs.channel.name).casefold()  # no names in a DM's records
    assert place_of(MockMessage(author=MockClientUser(id=ME), channel=MockDMChannel(recipient=None), guild=None), ME) is None


def test_message_record_links_the_reply_and_names_attachments() -> None:
    parent = MockMessage(id=100, content="where to?")
    attachment = mock.NonCallableMagicMock(spec_set=discord.Attachment, filename="austin.png")
    message = MockMessage(
        id=101, content="Austin!", reference=reply_to(parent), attachments=[attachment], author=MockMember(id=11), created_at=AT
    )
    place = place_of(message, ME)
    assert place is not None
    record = to_message(message, place)
    assert (record.id, record.reply_to_id, record.author_id, record.created_at) == ("101", "100", "11", AT)
    assert record.content == "Austin!\n[attachment: austin.png]"


def test_message_record_names_stickers_as_the_import_does() -> None:
    sticker = mock.NonCallableMagicMock(spec_set=discord.StickerItem)
    sticker.name = "Wave"
    attachment = mock.NonCallableMagicMock(spec_set=discord.Attachment, filename="shot.png")
    message = MockMessage(content="look at this", attachments=[attachment], stickers=[sticker], created_at=AT)
    place = place_of(message, ME)
    assert place is not None
    assert to_message(message, place).content == "look at this\n[attachment: shot.png]\n[sticker: Wave]"


async def test_messages_edits_and_deletes_reach_the_graph(store: GraphStore, harness: Harness) -> None:
    bob = harness.member("bob")
    first = await harness.deliver(harness.message(bob, "I live in Berln", at=AT))
    second = await harness.deliver(
        harness.message(harness.member("alice"), "nice", at=AT + timedelta(seconds=5), reference=reply_to(first))
    )
    rows = await cypher(
        store,
        """
        MATCH (u:User)-[:SENT]->(m:Message)
        WHERE m.id IN $ids
        MATCH (u)-[mb:MEMBER_OF]->(:Guild {id: m.guild_id})
        RETURN m.id AS id, mb.display_name AS author, m.reply_to_id AS reply_to, m.guild_id AS guild
        ORDER BY id""",
        ids=[str(first.id), str(second.id)],
    )
    assert {(r["id"], r["author"], r["reply_to"], r["guild"]) for r in rows} == {
        (str(first.id), "Bob", None, str(harness.guild.id)),
        (str(second.id), "Alice", str(first.id), str(harness.guild.id)),
    }
    assert (
        await count(
            store,
            "MATCH (:Message {id: $a})-[:REPLIES_TO]->(:Message {id: $b}) RETURN count(*) AS n",
            a=str(second.id),
            b=str(first.id),
        )
        == 1
    )
    assert (
        await count(
            store,
            "MATCH (c:Channel {id: $c})-[:IN_GUILD]->(g:Guild {id: $g}) WHERE g.name = 'Book Club' RETURN count(c) AS n",
            c=str(harness.general.id),
            g=str(harness.guild.id),
        )
        == 1
    )
    assert harness.bot.services.live.stats()["buffered_messages"] == 2

    first.content, first.edited_at = "I live in Berlin", AT + timedelta(minutes=1)
    await harness.listening.on_raw_message_edit(raw_edit(first))
    assert (
        await count(
            store, "MATCH (m:Message {id: $id}) WHERE m.content = 'I live in Berlin' RETURN count(m) AS n", id=str(first.id)
        )
        == 1
    )
    await harness.listening.on_raw_message_delete(
        discord.RawMessageDeleteEvent(data={"id": second.id, "channel_id": harness.general.id, "guild_id": harness.guild.id})
    )
    assert await count(store, "MATCH (m:Message {id: $id}) RETURN count(m) AS n", id=str(second.id)) == 0
    assert harness.bot.services.live.stats()["buffered_messages"] == 1


async def test_guild_and_channel_are_written_once(harness: Harness) -> None:
    upsert = mock.AsyncMock(wraps=upsert_channel)
    with (
        mock.patch.object(bot.listening._recorder, "upsert_channel", upsert),
        mock.patch.object(bot.listening._channels, "upsert_channel", upsert),
    ):
        for i in range(3):
            await harness.deliver(harness.message(harness.member("bob"), f"message {i}", at=AT + timedelta(seconds=i)))
    assert upsert.await_count == 1


async def test_system_messages_are_not_stored(store: GraphStore, harness: Harness) -> None:
    pinned = harness.message(harness.member("bob"), "", type=discord.MessageType.pins_add)
    await harness.deliver(pinned)
    assert await count(store, "MATCH (m:Message {id: $id}) RETURN count(m) AS n", id=str(pinned.id)) == 0
