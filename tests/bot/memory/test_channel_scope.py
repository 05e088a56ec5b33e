"""Recall follows what the audience could read: channel visibility from Discord's permissions,
memory modes, and every read path (reply context, "what do you know about", `/memory about`) scoped to the
channel it answers in. Real ArcadeDB; Discord doubled."""

from __future__ import annotations

from datetime import timedelta

import discord

from bot.memory._modes import HIDDEN
from common.settings import ContextSettings
from graph.privacy import channels
from graph.privacy.erasure import channel_residue, erase_channel
from graph.privacy.retention import apply_retention
from graph.store import GraphStore
from recall.assemble import ContextRequest, said_in_full
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
    return {line for part in ctx.parts if part.name in ("author", "related") for line in said_in_full(part.lines)}


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
    assert await _say(harness, "grace", "memory here shared", 14, channel=staff) == HIDDEN  # Discord hides #staff
    private = await _say(harness, "grace", "memory here private", 15, channel=staff)
    assert private.startswith("Memory here is now **private**")


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


async def test_a_channel_discord_hides_is_private_at_once_whatever_mode_was_set(store: GraphStore, harness: Harness) -> None:
    """Narrowing always wins: a moderator's `shared` gives way the moment Discord hides the channel from @everyone
    (its threads too), and only a moderator widens it again, once @everyone may view it."""
    seen_by_everyone(harness.general, True)
    staff = seen_by_everyone(MockTextChannel(id=120000000000000001, name="staff", guild=harness.guild), True)
    thread = MockThread(id=120000000000000002, name="staff-plans", parent=staff)
    harness.member("grace", guild_permissions=discord.Permissions(manage_guild=True))
    assert (await _say(harness, "carol", "remember that my secret word is zanzibar", 1, channel=staff)).startswith("Got it")
    await harness.deliver(harness.message(harness.member("dave"), "hello", channel=thread, at=AT + timedelta(minutes=2)))
    assert (await _say(harness, "grace", "memory here: shared", 3, channel=staff)).startswith("Memory here is now **shared**")
    interaction = MockInteraction(user=harness.member("grace"), guild=harness.guild, channel=thread)
    await invoke(harness.memory.mode_command, harness.memory, interaction, mode="shared")  # a thread set shared too
    carol = harness.member("carol")
    assert "zanzibar" in await _say(harness, "bob", f"what do you know about {carol.mention}?", 4, mentions=[carol])

    seen_by_everyone(staff, False)  # a moderator of the server hides #staff from @everyone on Discord
    await harness.listening.on_guild_channel_update(staff, staff)
    found = {c.name: c.mode for c in await channels.modes(store, G1)}
    assert found["staff"] == "private" and found["staff-plans"] == "private"
    assert "zanzibar" not in await _say(harness, "bob", f"what do you know about {carol.mention}?", 5, mentions=[carol])

    for minutes, channel in ((6, staff), (7, thread)):
        refused = await _say(harness, "grace", "memory here: shared", minutes, channel=channel)
        assert refused == HIDDEN, refused
    interaction = MockInteraction(user=harness.member("grace"), guild=harness.guild, channel=staff)
    await invoke(harness.memory.mode_command, harness.memory, interaction, mode="shared")
    assert "\n".join(sent_texts(interaction.response.send_message)) == HIDDEN
    assert "zanzibar" not in await _say(harness, "bob", f"what do you know about {carol.mention}?", 8, mentions=[carol])

    seen_by_everyone(staff, True)  # Discord shows it again: memory stays private until a moderator widens it
    await harness.listening.on_guild_channel_update(staff, staff)
    assert {c.name: c.mode for c in await channels.modes(store, G1)}["staff"] == "private"
    assert "zanzibar" not in await _say(harness, "bob", f"what do you know about {carol.mention}?", 9, mentions=[carol])
    assert (await _say(harness, "grace", "memory here: shared", 10, channel=staff)).startswith("Memory here is now **shared**")
    assert "zanzibar" in await _say(harness, "bob", f"what do you know about {carol.mention}?", 11, mentions=[carol])


async def test_switching_a_channel_off_deletes_what_retention_left_without_a_source(store: GraphStore, harness: Harness) -> None:
    """Facts told in #staff's thread, their messages removed by retention, then #staff switched off and its content
    deleted: every fact whose audience lies only in #staff and its threads goes, sourced or not, and the audit
    looks for exactly that. A fact also told in #general stays, recalled only where #general's may be."""
    staff, thread = await _setup(harness)
    harness.member("grace", guild_permissions=discord.Permissions(manage_guild=True))
    said = await _say(harness, "carol", "remember that the vault code is 4417", 4, channel=thread)
    assert said.startswith("Got it")
    both = harness.message(harness.member("carol"), "I love sourdough bread, said it in staff too", channel=thread)
    await harness.deliver(both)
    await cypher(  # the #general fact also came from a message in #staff's thread, as extraction would record it
        store,
        "MATCH (f:Fact {text: 'I love sourdough bread'}), (m:Message {id: $mid}) MERGE (f)-[:FROM]->(m) "
        "SET f.audience = f.audience + [$thread]",
        mid=str(both.id),
        thread=str(thread.id),
    )
    await apply_retention(store, messages_days=1, closed_facts_days=0, now=AT + timedelta(days=30))
    assert await count(store, "MATCH (f:Fact) WHERE f.text CONTAINS 'vault' RETURN count(f) AS n") == 1  # retention keeps facts

    ask = harness.message(harness.member("grace"), "memory here: off", to_bot=True, at=AT + timedelta(minutes=20), channel=staff)
    await harness.deliver(ask)
    view = ask.reply.await_args.kwargs["view"]
    press = MockInteraction(user=harness.member("grace"))
    await view._scheduled_task(view.confirm, press)
    [done] = sent_texts(press.followup.send)

    in_staff = [str(staff.id), str(thread.id)]
    left = await cypher(store, "MATCH (f:Fact) RETURN f.text AS text, f.audience AS audience")
    assert not [f for f in left if "vault" in f["text"] or "zanzibar" in f["text"]], left
    [sourdough] = [f for f in left if "sourdough" in f["text"]]
    assert not set(sourdough["audience"]) & set(in_staff)
    assert "the residue audit found nothing left" in done, done
    erased = await erase_channel(store, G1, str(staff.id))  # again: the audit finds nothing, and says so truthfully
    assert erased.residue == []
    await cypher(store, "CREATE (:Fact {uuid: 'planted', guild_id: $g, text: 'x', audience: [$t]})", g=G1, t=str(thread.id))
    assert await channel_residue(store, G1, in_staff, []) == ["fact planted told in the channel"]  # the audit sees it
    assert (await erase_channel(store, G1, str(staff.id))).residue == []  # and the erasure deletes it
    assert await count(store, "MATCH (f:Fact {uuid: 'planted'}) RETURN count(f) AS n") == 0


async def test_a_public_thread_of_a_private_channel_switched_off_and_on_again_records_again(
    store: GraphStore, harness: Harness
) -> None:
    """A thread no one set follows its parent: off with it, and private again when a moderator switches the parent
    back to private, a public thread of a channel @everyone cannot view too (it stayed off: nothing said there
    was recorded again)."""
    staff, thread = await _setup(harness)
    grace = harness.member("grace", guild_permissions=discord.Permissions(manage_guild=True))
    for mode in ("off", "private"):
        _, view = await harness.memory.set_mode(G1, str(staff.id), mode, grace.id)
        if view is not None:
            await view.on_confirm()
    assert {c.name: c.mode for c in await channels.modes(store, G1)}["staff-plans"] == "private"
    await harness.deliver(harness.message(harness.member("dave"), "the plan is on", channel=thread, at=AT + timedelta(minutes=9)))
    assert await count(store, "MATCH (m:Message) WHERE m.content CONTAINS 'plan is on' RETURN count(m) AS n") == 1
