"""A moderator's forget: Manage Server forgets another member in this server only, by mention or raw id
(also one who left), with the confirmation pressed by the moderator, the guild's residue audit, and an
audit log event; members without the permission are refused in one line."""

from __future__ import annotations

import json
import logging
from dataclasses import replace
from pathlib import Path

import discord
import pytest
from discord import app_commands

from bot.listening import Listening
from bot.memory._forget_me import NOT_YOURS, ConfirmForget
from bot.memory._moderator import ASK, CONFIRM_LABEL, forget_member
from bot.memory._plain import NEEDS_MANAGE
from bot.services import Services
from common import events
from common.settings import WindowSettings
from graph.store import GraphStore
from ingest.live import LiveWindows
from ingest.recording import MessageRecorder
from tests.bot.harness import Harness
from tests.support.busy_server import G1, G2, GENERAL, OTHER, PEOPLE, populate
from tests.support.cli_process import grapevine
from tests.support.discord_doubles import (
    MockBot,
    MockClientUser,
    MockGuild,
    MockInteraction,
    MockMember,
    MockMessage,
    MockTextChannel,
    invoke,
    sent_texts,
)
from tests.support.erasure_audit import residue_everywhere, residue_in_guild
from tests.support.scripted import count

CHARLIE = PEOPLE["charlie"]
MANAGE = discord.Permissions(manage_guild=True)


async def _messages(store: GraphStore, guild_id: str, author_id: str = CHARLIE) -> int:
    return await count(
        store, "MATCH (m:Message {guild_id: $g}) WHERE m.author_id = $a RETURN count(m) AS n", g=guild_id, a=author_id
    )


async def test_members_without_manage_server_are_refused_in_one_line(store: GraphStore, harness: Harness) -> None:
    await populate(store)
    bob = harness.member("bob")
    ask = harness.message(bob, f"forget member <@{CHARLIE}>", to_bot=True)
    await harness.deliver(ask)
    assert sent_texts(ask.reply) == [NEEDS_MANAGE] and ask.reply.await_args.kwargs.get("view") is None

    memory = harness.memory
    interaction = MockInteraction(user=bob, guild=harness.guild, permissions=discord.Permissions.none())
    with pytest.raises(app_commands.MissingPermissions) as refused:
        await memory.forget_member_command._check_can_run(interaction)
    await memory.cog_app_command_error(interaction, refused.value)
    assert sent_texts(interaction.response.send_message) == [NEEDS_MANAGE]
    assert await _messages(store, G1) == 2


async def test_a_moderator_forgets_a_member_who_left_by_id_in_this_server_only(
    store: GraphStore, harness: Harness, tmp_path: Path
) -> None:
    await populate(store)
    gym = MockGuild(id=int(G2), name="Climbing Gym")
    gym.get_member.return_value = None  # Charlie left the gym's server
    oscar = harness.member("oscar", guild=gym, guild_permissions=MANAGE)
    memory = harness.memory
    slash = MockInteraction(user=oscar, guild=gym, permissions=MANAGE)
    await memory.forget_member_command._check_can_run(slash)
    await invoke(memory.forget_member_command, memory, slash, None, CHARLIE)
    call = slash.response.send_message.await_args
    assert call.args == (ASK.format(who=f"the member with id {CHARLIE}"),) and call.kwargs["ephemeral"] is True
    view = call.kwargs["view"]
    assert isinstance(view, ConfirmForget) and view.confirm.label == CONFIRM_LABEL
    g1_before = await _messages(store, G1)
    facts_g1 = await count(
        store, "MATCH (f:Fact {guild_id: $g})-[:ABOUT]->(:User {id: $id}) RETURN count(f) AS n", g=G1, id=CHARLIE
    )

    other = MockInteraction(user=harness.member("charlie", guild=gym))  # only the moderator may press
    await view._scheduled_task(view.confirm, other)
    assert sent_texts(other.response.send_message) == [NOT_YOURS] and await _messages(store, G2) == 1

    log = tmp_path / "events.jsonl"
    root = logging.getLogger()
    handlers, level = root.handlers[:], root.level
    try:
        events.configure("INFO", file=log)
        press = MockInteraction(user=oscar, guild=gym)
        await view._scheduled_task(view.confirm, press)
    finally:
        root.handlers, root.level = handlers, level
    [done] = sent_texts(press.followup.send)
    assert done.startswith("Done: I deleted 0 facts, 1 messages") and "found nothing left here" in done

    assert await _messages(store, G2) == 0
    assert await residue_in_guild(store, CHARLIE, G2) == []
    assert await count(store, "MATCH (m:Message {channel_id: $c}) RETURN count(m) AS n", c=OTHER) == 1  # Alice's stays
    assert await count(store, "MATCH (f:Fact {guild_id: $g}) RETURN count(f) AS n", g=G2) == 1  # "Alice is vegetarian"
    # the other server is not the moderator's: everything of Charlie there stays
    assert await _messages(store, G1) == g1_before == 2
    assert await count(store, "MATCH (f:Fact {guild_id: $g})-[:ABOUT]->(:User {id: $id}) RETURN count(f) AS n",
                       g=G1, id=CHARLIE) == facts_g1 == 1  # fmt: skip
    assert harness.bot.services.consent.allowed(CHARLIE)  # and only he can opt himself out everywhere

    lines = [json.loads(line) for line in log.read_text().splitlines()]
    [audit] = [e for e in lines if e["event"] == "moderator_forget"]
    assert audit["guild_id"] == G2 and audit["member_id"].startswith("u-") and audit["moderator_id"].startswith("u-")
    assert audit["residue"] == 0 and CHARLIE not in log.read_text() and PEOPLE["oscar"] not in log.read_text()


async def test_a_moderator_forgets_by_mention_in_plain_language(store: GraphStore, harness: Harness) -> None:
    p = await populate(store)
    harness.guild.get_member.return_value = None
    alice = harness.member("alice", guild_permissions=MANAGE)
    charlie = harness.member("charlie")
    bob = harness.member("bob")
    await harness.deliver(harness.message(bob, "Charlie, are you coming to the game?"))
    ask = harness.message(alice, f"forget member <@{CHARLIE}>", to_bot=True, mentions=[charlie])
    await harness.deliver(ask)
    call = ask.reply.await_args
    assert call.args == (ASK.format(who="**Charlie**"),)
    view = call.kwargs["view"]
    press = MockInteraction(user=alice, guild=harness.guild)
    await view._scheduled_task(view.confirm, press)
    [done] = sent_texts(press.followup.send)
    assert "found nothing left here" in done, done

    assert await _messages(store, G1) == 0
    assert await residue_in_guild(store, CHARLIE, G1) == []
    assert await count(store, "MATCH (f:Fact {uuid: $u}) RETURN count(f) AS n", u=p.facts["charlie_celtics"]) == 0
    said = await count(store, "MATCH (m:Message {guild_id: $g}) WHERE m.content = '[forgotten], are you coming to the game?' "
                              "RETURN count(m) AS n", g=G1)  # fmt: skip
    assert said == 1  # Bob's message stays, his name redacted ("Charlie": a given name no one else here carries)
    assert await _messages(store, G2) == 1  # his message in the other server stays
    assert await count(store, "MATCH (u:User {id: $id}) RETURN count(u) AS n", id=CHARLIE) == 1
    whole = await residue_everywhere(store, CHARLIE)
    assert whole and {r.node_key for r in whole} <= {CHARLIE, *[m.id for m in p.messages if m.guild_id == G2]}


async def test_a_message_still_in_the_recorders_memory_does_not_land_after_the_forget(
    store: GraphStore, services: Services
) -> None:
    """The bot records in ticks: Charlie's last message waits in memory when the moderator forgets him."""
    await populate(store)
    recorder = MessageRecorder(store, tick_seconds=3600)  # never ticks by itself
    live = LiveWindows(store, services.ingestor, services.consent, WindowSettings(), recorder=recorder)
    moderated = replace(services, live=live)
    listening = Listening(MockBot(services=moderated, user=MockClientUser(id=999)))
    general = MockTextChannel(id=int(GENERAL), name="general", guild=MockGuild(id=int(G1), name="Book Club"))
    charlie = MockMember(id=int(CHARLIE), name="charlie", display_name="Charlie")
    late = MockMessage(author=charlie, content="one more thing about the Celtics", channel=general)
    assert await listening.recorder.on_message(late, 999) and recorder.pending() == 1

    report = await forget_member(moderated, G1, CHARLIE, ["charlie", "Charlie"], PEOPLE["alice"])
    await live.flush()
    await live.drain()

    assert report.clean and await _messages(store, G1) == 0
    assert await residue_in_guild(store, CHARLIE, G1) == []


async def test_the_cli_forget_in_one_guild_is_the_moderators(store: GraphStore, tmp_path: Path) -> None:
    """`grapevine forget USER --guild G --yes` redacts and audits that guild as a moderator's forget does."""
    await populate(store)
    done = await grapevine(store, tmp_path, "forget", CHARLIE, "--guild", G2, "--yes")
    assert done.returncode == 0, done.stdout + done.stderr
    assert f"residue audit: 0 nodes or properties carry the user's id or name in guild {G2}" in done.stdout
    assert await _messages(store, G2) == 0 and await _messages(store, G1) == 2
    assert await residue_in_guild(store, CHARLIE, G2) == []
