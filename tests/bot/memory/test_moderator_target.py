"""A moderator's plain-language "forget member ..." acts on the member the moderator named (the id typed, or
the mention written in the text), never on someone a reply pinged: a reply with a ping adds its author to the
message's mentions, ahead of or beside the one named."""

from __future__ import annotations

import discord
import pytest

from bot.memory._moderator import ASK, WHOM
from graph.store import GraphStore
from tests.bot.harness import Harness
from tests.support.busy_server import PEOPLE, populate
from tests.support.discord_doubles import reply_to

MANAGE = discord.Permissions(manage_guild=True)
CHARLIE = PEOPLE["charlie"]


@pytest.fixture
async def setup(store: GraphStore, harness: Harness) -> Harness:
    await populate(store)
    members = {int(PEOPLE[n]): harness.member(n) for n in ("bob", "charlie")}
    harness.guild.get_member.side_effect = members.get
    return harness


async def ask(harness: Harness, text: str, *mentioned: str) -> str:
    """What the bot answers alice (Manage Server) who, replying to Bob's message with the ping on, writes `text`."""
    bob = harness.member("bob")
    said = await harness.deliver(harness.message(bob, "see you all at the game"))
    alice = harness.member("alice", guild_permissions=MANAGE)
    pinged = [bob, *(harness.member(n) for n in mentioned)]  # Discord adds the replied-to author to `mentions`
    message = harness.message(alice, text, to_bot=True, mentions=pinged, reference=reply_to(said))
    await harness.deliver(message)
    return str(message.reply.await_args.args[0])


async def test_the_id_typed_is_the_member(setup: Harness) -> None:
    assert await ask(setup, f"forget member {CHARLIE}") == ASK.format(who="**Charlie**")


async def test_the_mention_written_is_the_member(setup: Harness) -> None:
    assert await ask(setup, f"forget member <@{CHARLIE}>", "charlie") == ASK.format(who="**Charlie**")
    assert await ask(setup, f"please forget user <@!{CHARLIE}> thanks", "charlie") == ASK.format(who="**Charlie**")


async def test_a_name_without_a_mention_or_id_asks_whom(setup: Harness) -> None:
    """A name typed as plain text (no mention) names nobody for sure: the bot asks, it never picks Bob."""
    assert await ask(setup, "forget member @Charlie") == WHOM
