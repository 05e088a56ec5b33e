"""Answers that show their sources: message links on replies and on "what do you know about", only to channels the
asker may open (the channel-scope rule, then Discord's permissions); a DM's memory never links into a guild. Real
ArcadeDB, the scripted LLM, Discord doubled."""

from __future__ import annotations

import re
from datetime import timedelta

import discord

from common.links import JUMP_URL
from graph.models import EpisodeWrite
from graph.privacy import channels
from graph.store import GraphStore
from graph.writes.episodes import write_episode
from tests.bot.harness import AT, Harness
from tests.bot.memory.test_channel_scope import seen_by_everyone
from tests.support.busy_server import G1, GENERAL, U, populate
from tests.support.discord_doubles import MockDMChannel, MockInteraction, MockTextChannel, invoke, sent_texts
from tests.support.scripted_llm import ScriptedLLMServer

STAFF = "120000000000000001"
MODS = "120000000000000003"
SOURCES = re.compile(r"^-# Sources: (.+)$", re.M)


def links(text: str) -> list[str]:
    """The links of an answer's sources line, each in the shape Discord opens (its jump URL)."""
    found = SOURCES.findall(text)
    assert len(found) <= 1, text
    urls = found[0].split(" · ") if found else []
    assert all(JUMP_URL.fullmatch(u) for u in urls), urls
    return urls


def url(channel_id: str | int, message_id: str | int, guild: str = G1) -> str:
    return f"https://discord.com/channels/{guild}/{channel_id}/{message_id}"


async def _ask(harness: Harness, who: str, text: str, minutes: int, channel: object = None, **kwargs: object) -> str:
    message = harness.message(
        harness.member(who), text, to_bot=True, at=AT + timedelta(minutes=minutes), channel=channel, **kwargs
    )
    await harness.deliver(message)
    return "\n".join(sent_texts(message.reply))


async def _staff_secret(store: GraphStore, harness: Harness) -> tuple[MockTextChannel, str, str]:
    """#general public (the populated guild), #staff restricted: a fact drawn from a message in each, both about Carol
    and both holding the word "sourdough". Returns #staff and the two source message ids (general, staff)."""
    p = await populate(store)
    seen_by_everyone(harness.general, True)
    staff = seen_by_everyone(MockTextChannel(id=int(STAFF), name="staff", guild=harness.guild), False)
    await harness.deliver(harness.message(harness.member("dave"), "morning", channel=staff, at=AT))  # recorded: private
    out = await p.say(GENERAL, "charlie", "I bake sourdough every sunday", AT)
    secret = await p.say(STAFF, "charlie", "sourdough starter recipe: the secret is rye", AT + timedelta(seconds=5))
    key = await p.episode(GENERAL, [out])
    await write_episode(
        store,
        EpisodeWrite(key=key, guild_id=G1, facts=(p.fact("bakes", "Charlie bakes sourdough every sunday", [U("charlie")], out),)),
    )
    key = await p.episode(STAFF, [secret])
    await write_episode(
        store,
        EpisodeWrite(key=key, guild_id=G1, facts=(p.fact("rye", "Charlie's sourdough secret is rye", [U("charlie")], secret),)),
    )
    return staff, out.id, secret.id


async def test_a_reply_ends_with_the_links_of_what_it_drew_on(
    store: GraphStore, harness: Harness, llm_server: ScriptedLLMServer
) -> None:
    staff, general_id, staff_id = await _staff_secret(store, harness)
    llm_server.push("Charlie bakes sourdough every sunday, he said.")
    in_general = await _ask(harness, "bob", "what does charlie bake?", 1)
    assert in_general.startswith("Charlie bakes sourdough every sunday, he said.\n-# Sources: ")
    assert links(in_general) == [url(GENERAL, general_id)]

    llm_server.push("Hey Bob, not much going on!")  # an answer that uses no memory ends with no sources
    assert links(await _ask(harness, "bob", "what does charlie bake?", 2)) == []

    llm_server.push("Charlie bakes sourdough every sunday, and his secret is rye.")
    in_staff = await _ask(harness, "bob", "what does charlie bake, and his secret?", 3, channel=staff)
    assert set(links(in_staff)) == {url(GENERAL, general_id), url(STAFF, staff_id)}


async def test_a_restricted_channel_link_is_never_shown_in_general(
    store: GraphStore, harness: Harness, llm_server: ScriptedLLMServer
) -> None:
    staff, general_id, staff_id = await _staff_secret(store, harness)
    llm_server.push("Charlie bakes sourdough every sunday, and his secret is rye.")  # as if the LLM guessed it
    answer = await _ask(harness, "bob", "what is charlie's sourdough secret?", 1)
    assert STAFF not in answer and links(answer) == [url(GENERAL, general_id)]
    assert "secret is rye" not in llm_server.requests[-1]["messages"][-1]["content"]  # nor was it in the context

    charlie = harness.member("charlie")
    about = await _ask(harness, "bob", f"what do you know about {charlie.mention}?", 2, mentions=[charlie])
    assert f"• Charlie bakes sourdough every sunday (said by Charlie on {AT.day} May 2024) {url(GENERAL, general_id)}" in about
    assert STAFF not in about and "rye" not in about
    about_in_staff = await _ask(
        harness, "bob", f"what do you know about {charlie.mention}?", 3, channel=staff, mentions=[charlie]
    )
    assert url(STAFF, staff_id) in about_in_staff and url(GENERAL, general_id) in about_in_staff

    interaction = MockInteraction(user=harness.member("bob"), guild=harness.guild, channel=harness.general)
    await invoke(harness.memory.about_command, harness.memory, interaction, member=charlie)
    slash = "\n".join(sent_texts(interaction.followup.send))
    assert url(GENERAL, general_id) in slash and STAFF not in slash
    assert all(JUMP_URL.fullmatch(u) for u in re.findall(r"https://\S+", slash))


async def test_a_shared_channel_the_asker_cannot_view_gets_no_link(
    store: GraphStore, harness: Harness, llm_server: ScriptedLLMServer
) -> None:
    """A moderator made #mods shared: its facts are recalled everywhere, but a member who cannot view #mods (an
    overwrite of their own: Discord shows #mods to @everyone, so it may be shared) gets no link into it (Discord's
    permissions, as the bot sees them)."""
    p = await populate(store)
    seen_by_everyone(harness.general, True)
    mods = MockTextChannel(id=int(MODS), name="mods", guild=harness.guild)
    bob = harness.member("bob")
    mods.permissions_for.side_effect = lambda who: discord.Permissions(view_channel=who is not bob)
    await harness.deliver(harness.message(harness.member("dave"), "morning", channel=mods, at=AT))
    assert await channels.set_mode(store, G1, MODS, "shared")
    said = await p.say(MODS, "charlie", "the server move is on friday", AT + timedelta(seconds=5))
    key = await p.episode(MODS, [said])
    await write_episode(
        store, EpisodeWrite(key=key, guild_id=G1, facts=(p.fact("move", "The server move is on friday", [U("charlie")], said),))
    )
    harness.guild.get_channel_or_thread.side_effect = lambda i: {int(MODS): mods, int(GENERAL): harness.general}.get(i)
    llm_server.push("The server move is on friday.")
    answer = await _ask(harness, "bob", "when does charlie do the server move?", 1)
    assert "The server move is on friday" in llm_server.requests[-1]["messages"][-1]["content"]  # recalled: #mods is shared
    assert answer == "The server move is on friday."  # but not linked: Bob cannot open #mods

    mods.permissions_for.side_effect = None
    mods.permissions_for.return_value = discord.Permissions(view_channel=True)
    llm_server.push("The server move is on friday.")
    assert links(await _ask(harness, "grace", "when does charlie do the server move?", 2)) == [url(MODS, said.id)]


async def test_a_fact_told_in_a_dm_shows_no_link_in_a_guild(store: GraphStore, harness: Harness) -> None:
    p = await populate(store)
    seen_by_everyone(harness.general, True)
    bob = harness.member("bob")
    dm = MockDMChannel(recipient=bob)
    told = harness.message(bob, "remember that I keep bees on my roof", channel=dm, guild=None, at=AT)
    await harness.deliver(told)
    assert sent_texts(told.reply)[0].startswith("Got it")

    in_dm = harness.message(bob, "what do you know about me?", channel=dm, guild=None, at=AT + timedelta(minutes=1))
    await harness.deliver(in_dm)
    [dm_answer] = sent_texts(in_dm.reply)
    assert (
        f"I keep bees on my roof (said by Bob on {AT.day} May 2024) https://discord.com/channels/@me/{dm.id}/{told.id}"
        in dm_answer
    )

    in_guild = await _ask(harness, "bob", "what do you know about me?", 2)
    assert "bees" not in in_guild and "@me" not in in_guild and str(dm.id) not in in_guild
    berlin = next(m for m in p.messages if m.content == "I live in Berlin btw")
    assert f"Bob lives in Berlin (said by Bob on 4 May 2024) {url(GENERAL, berlin.id)}" in in_guild  # the guild's own, linked
