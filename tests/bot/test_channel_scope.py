"""Recall follows what the audience could read: channel visibility from Discord's permissions,
memory modes, and every read path (reply context, "what do you know about", `/memory about`) scoped to the
channel it answers in. Real ArcadeDB; Discord doubled."""

from __future__ import annotations

from datetime import timedelta

import discord

from common.settings import ContextSettings
from graph import channels
from graph.store import GraphStore
from recall.assemble import ContextRequest
from recall.gather import build_context
from tests.bot.harness import AT, Harness
from tests.support.busy_server import G1
from tests.support.discord_doubles import MockInteraction, MockTextChannel, MockThread, invoke, sent_texts
from tests.support.scripted import count, cypher


def seen_by_everyone(channel: MockTextChannel, visible: bool) -> MockTextChannel:
    channel.permissions_for.return_value = discord.Permissions(view_channel=visible)
    return channel


async def _say(harness: Harness, who: str, text: str, minutes: int, channel: object = None, **kwargs: object) -> str:
    message = harness.message(
        harness.member(who), text, to_bot=True, at=AT + timedelta(minutes=minutes), channel=channel, **kwargs
    )
    await harness.deliver(message)
    return "\n".join(sent_texts(message.reply))


async def _context(store: GraphStore, channel_id: str, author_id: str, text: str) -> str:
    return "\n".join(await _fact_lines(store, channel_id, author_id, text))


async def _fact_lines(store: GraphStore, channel_id: str, author_id: str, text: str) -> set[str]:
    """The fact lines of the context `grapevine context --channel` prints (its author and related parts)."""
    req = ContextRequest(
        guild_id=G1, channel_id=channel_id, author_id=author_id, message_text=text, message_id=None, at=AT + timedelta(hours=1)
    )
    ctx = await build_context(store, req, ContextSettings())
    return {line for part in ctx.parts if part.name in ("author", "related") for line in part.lines}


async def _setup(harness: Harness) -> tuple[MockTextChannel, MockThread]:
    seen_by_everyone(harness.general, True)
    staff = seen_by_everyone(MockTextChannel(id=120000000000000001, name="staff", guild=harness.guild), False)
    thread = MockThread(id=120000000000000002, name="staff-plans", parent=staff)
    said = await _say(harness, "carol", "remember that my secret word is zanzibar", 1, channel=staff)
    assert said.startswith("Got it")
    said = await _say(harness, "carol", "remember that I love sourdough bread", 2)  # in #general
    assert said.startswith("Got it")
    await harness.deliver(harness.message(harness.member("dave"), "hello", channel=thread, at=AT + timedelta(minutes=3)))
    return staff, thread


async def test_channels_take_their_mode_from_what_everyone_can_see(store: GraphStore, harness: Harness) -> None:
    await _setup(harness)
    found = {c.name: (c.visibility, c.mode) for c in await channels.modes(store, G1)}
    assert found == {
        "general": ("public", "shared"),
        "staff": ("restricted", "private"),
        "staff-plans": ("restricted", "private"),  # a thread follows its parent
    }


async def test_a_restricted_channel_secret_is_recalled_only_there_and_in_its_threads(store: GraphStore, harness: Harness) -> None:
    staff, thread = await _setup(harness)
    carol = harness.member("carol")

    in_general = await _say(harness, "bob", f"what do you know about {carol.mention}?", 5, mentions=[carol])
    assert "sourdough" in in_general and "zanzibar" not in in_general
    in_staff = await _say(harness, "bob", f"what do you know about {carol.mention}?", 6, channel=staff, mentions=[carol])
    assert "sourdough" in in_staff and "zanzibar" in in_staff
    in_thread = await _say(harness, "bob", f"what do you know about {carol.mention}?", 7, channel=thread, mentions=[carol])
    assert "zanzibar" in in_thread

    memory = harness.memory
    for channel, shown in ((harness.general, False), (staff, True)):
        interaction = MockInteraction(user=harness.member("bob"), guild=harness.guild, channel=channel)
        await invoke(memory.about_command, memory, interaction, member=carol)
        answer = "\n".join(sent_texts(interaction.followup.send))
        assert "sourdough" in answer and ("zanzibar" in answer) is shown

    bob = str(harness.member("bob").id)
    general_ctx = await _context(store, str(harness.general.id), bob, "what is carol's secret word? zanzibar?")
    staff_ctx = await _context(store, str(staff.id), bob, "what is carol's secret word? zanzibar?")
    assert "my secret word is zanzibar" not in general_ctx and "I love sourdough bread" in general_ctx
    assert "my secret word is zanzibar" in staff_ctx
    public = await _fact_lines(store, str(harness.general.id), bob, "carol secret word sourdough")
    private = await _fact_lines(store, str(staff.id), bob, "carol secret word sourdough")
    assert public < private and len(private - public) == 1 and "zanzibar" in next(iter(private - public))


async def test_a_fact_said_in_a_shared_and_a_private_channel_shows_only_the_shared_reporter_outside(
    store: GraphStore, harness: Harness
) -> None:
    staff, _ = await _setup(harness)
    alice_said = harness.message(
        harness.member("alice"), "carol loves sourdough bread, true", channel=staff, at=AT + timedelta(minutes=4)
    )
    await harness.deliver(alice_said)
    await cypher(  # Alice corroborates the fact in #staff, as extraction would record it
        store,
        """
        MATCH (f:Fact {text: 'I love sourdough bread'}), (m:Message {id: $mid}), (u:User {id: $uid})
        MERGE (f)-[:REPORTED_BY {message_id: $mid}]->(u)
        MERGE (f)-[:FROM]->(m)
        """,
        mid=str(alice_said.id),
        uid=str(harness.member("alice").id),
    )
    carol = harness.member("carol")
    in_general = await _say(harness, "bob", f"what do you know about {carol.mention}?", 8, mentions=[carol])
    assert "I love sourdough bread (said by Carol" in in_general
    in_staff = await _say(harness, "bob", f"what do you know about {carol.mention}?", 9, channel=staff, mentions=[carol])
    assert "I love sourdough bread (said by Carol, Alice" in in_staff


async def test_an_off_channel_records_nothing(store: GraphStore, harness: Harness) -> None:
    staff, thread = await _setup(harness)
    assert await channels.set_mode(store, G1, str(staff.id), "off")
    harness.bot.services.channel_modes.clear()  # as after a restart: read again from the graph
    await harness.listening.recorder.channels.refresh(staff)
    await harness.listening.recorder.channels.refresh(thread)
    before = await count(store, "MATCH (m:Message) RETURN count(m) AS n")
    for channel in (staff, thread):
        await harness.deliver(
            harness.message(harness.member("dave"), "not for the record", channel=channel, at=AT + timedelta(minutes=9))
        )
    assert await count(store, "MATCH (m:Message) RETURN count(m) AS n") == before


async def test_memory_here_off_then_delete_leaves_a_clean_audit(store: GraphStore, harness: Harness) -> None:
    staff, thread = await _setup(harness)
    denied = await _say(harness, "bob", "memory here: off", 10, channel=staff)
    assert denied == "That needs the Manage Server permission."
    harness.member("grace", guild_permissions=discord.Permissions(manage_guild=True))

    ask = harness.message(harness.member("grace"), "memory here: off", to_bot=True, at=AT + timedelta(minutes=11), channel=staff)
    await harness.deliver(ask)
    call = ask.reply.await_args
    assert call.args[0].startswith("Memory is off here now")
    view = call.kwargs["view"]
    assert harness.bot.services.channel_modes[str(thread.id)] == "off"  # its thread follows
    await harness.deliver(
        harness.message(harness.member("dave"), "not for the record", channel=staff, at=AT + timedelta(minutes=12))
    )
    assert await count(store, "MATCH (m:Message {content: 'not for the record'}) RETURN count(m) AS n") == 0

    press = MockInteraction(user=harness.member("grace"))
    await view._scheduled_task(view.confirm, press)
    [done] = sent_texts(press.followup.send)
    assert "the residue audit found nothing left" in done, done
    assert (
        await count(store, "MATCH (m:Message) WHERE m.channel_id IN $c RETURN count(m) AS n", c=[str(staff.id), str(thread.id)])
        == 0
    )
    assert await count(store, "MATCH (f:Fact) WHERE f.text CONTAINS 'zanzibar' RETURN count(f) AS n") == 0
    assert await count(store, "MATCH (f:Fact) WHERE f.text CONTAINS 'sourdough' RETURN count(f) AS n") == 1  # #general's stays

    status = await _say(harness, "grace", "memory status", 13)
    assert "• #staff: off (set), restricted" in status and "• #general: shared, everyone can view" in status
    shared = await _say(harness, "grace", "memory here shared", 14, channel=staff)
    assert shared.startswith("Memory here is now **shared**")


async def test_two_members_named_alex_are_told_apart(store: GraphStore, harness: Harness) -> None:
    seen_by_everyone(harness.general, True)
    oslo, rome = harness.member("alexk", display_name="Alex"), harness.member("alexm", display_name="Alex")
    assert (await _say(harness, "alexk", "remember that I sail out of Oslo", 1)).startswith("Got it")
    assert (await _say(harness, "alexm", "remember that I sail out of Rome", 2)).startswith("Got it")

    answer = await _say(harness, "bob", "what do you know about Alex?", 3)
    assert answer.startswith("2 members here go by “Alex”"), answer
    about_k, about_m = answer.split("Here's what I remember about ")[1:]
    assert about_k.startswith("Alex (@alexk)") and "Oslo" in about_k and "Rome" not in about_k
    assert about_m.startswith("Alex (@alexm)") and "Rome" in about_m and "Oslo" not in about_m

    ctx = await _context(store, str(harness.general.id), str(harness.member("bob").id), "who sails out of Oslo or Rome?")
    assert "Alex (@alexk)" in ctx and "Alex (@alexm)" in ctx, ctx
    assert oslo.id != rome.id
