"""A moderator's forget acts on the member named for sure, and says only what it did.

- An id in other digits than 0-9 ("forget member ３０００…０３") is refused: `int()` would read it as Charlie's id
  for the confirmation while the forget ran on the full-width text and matched nothing.
- "forget member @Charlie, as <@Bob> asked": a name and a mention that disagree name no one for sure: the bot
  asks which, and offers no confirmation.
- The answer is made from what the forget deleted: when it deleted nothing, it says so, never "Done"."""

from __future__ import annotations

import discord
import pytest

from bot.memory._forget_me import describe_report
from bot.memory._moderator import ASK, WHICH, describe, target
from graph.privacy.deletion import ForgetReport
from graph.store import GraphStore
from tests.bot.conftest import harness, llm_server, services  # noqa: F401 - the bot's fixtures, for these tests too
from tests.bot.harness import Harness
from tests.support.busy_server import G1, PEOPLE, populate
from tests.support.discord_doubles import MockInteraction, invoke, reply_to
from tests.support.scripted import count

MANAGE = discord.Permissions(manage_guild=True)
CHARLIE, BOB = PEOPLE["charlie"], PEOPLE["bob"]
WIDE_CHARLIE = "".join(chr(ord(c) + 0xFEE0) for c in CHARLIE)


@pytest.fixture
async def setup(store: GraphStore, harness: Harness) -> Harness:
    await populate(store)
    members = {int(PEOPLE[n]): harness.member(n) for n in ("bob", "charlie")}
    harness.guild.get_member.side_effect = members.get
    return harness


async def ask(harness: Harness, text: str, *mentioned: str) -> tuple[str, object]:
    """What the bot answers alice (Manage Server), replying to Bob's message with the ping on, who writes `text`;
    and the confirmation it offers (None: none)."""
    bob = harness.member("bob")
    said = await harness.deliver(harness.message(bob, "see you all at the game"))
    alice = harness.member("alice", guild_permissions=MANAGE)
    pinged = [bob, *(harness.member(n) for n in mentioned)]
    message = harness.message(alice, text, to_bot=True, mentions=pinged, reference=reply_to(said))
    await harness.deliver(message)
    call = message.reply.await_args
    return str(call.args[0]), call.kwargs.get("view")


async def _charlies_messages(store: GraphStore) -> int:
    return await count(store, "MATCH (m:Message {guild_id: $g, author_id: $a}) RETURN count(m) AS n", g=G1, a=CHARLIE)


async def test_an_id_in_full_width_digits_is_refused(store: GraphStore, setup: Harness) -> None:
    before = await _charlies_messages(store)
    answer, view = await ask(setup, f"forget member {WIDE_CHARLIE}")
    assert view is None and "digits 0-9" in answer and "I did nothing" in answer, answer
    assert "Charlie" not in answer  # no member was looked up by `int()` of it
    answer, view = await ask(setup, f"forget member <@{WIDE_CHARLIE}>")
    assert view is None and "digits 0-9" in answer, answer
    assert await _charlies_messages(store) == before > 0


async def test_a_slash_command_id_in_full_width_digits_is_refused(setup: Harness) -> None:
    alice = setup.member("alice", guild_permissions=MANAGE)
    slash = MockInteraction(user=alice, guild=setup.guild, permissions=MANAGE)
    await invoke(setup.memory.forget_member_command, setup.memory, slash, None, WIDE_CHARLIE)
    call = slash.response.send_message.await_args
    assert "digits 0-9" in str(call.args[0]) and call.kwargs.get("view") is None


async def test_a_name_and_a_mention_that_disagree_ask_which(setup: Harness) -> None:
    answer, view = await ask(setup, f"forget member @Charlie, as <@{BOB}> asked")
    assert view is None and answer == WHICH.format(names=f"“@Charlie” or <@{BOB}>"), answer
    answer, view = await ask(setup, f"forget member <@{CHARLIE}>, as <@{BOB}> asked", "charlie")
    assert view is None and answer == WHICH.format(names=f"<@{CHARLIE}> or <@{BOB}>"), answer
    answer, view = await ask(setup, f"forget member {CHARLIE}, as <@{BOB}> asked")
    assert view is None and answer.startswith("You named"), answer


async def test_a_name_that_agrees_with_the_mention_is_the_member(setup: Harness) -> None:
    answer, view = await ask(setup, f"forget member @Charlie <@{CHARLIE}>", "charlie")
    assert answer == ASK.format(who="**Charlie**") and view is not None


def test_the_target_is_one_member_for_sure() -> None:
    names = {CHARLIE: ["charlie", "Charlie Brown"], BOB: ["bob"]}.get
    assert target(f"<@{CHARLIE}>", names_of=lambda i: names(i) or []).user_id == CHARLIE
    assert target(f"@charlie <@{CHARLIE}>", names_of=lambda i: names(i) or []).user_id == CHARLIE
    assert target(f"@Charlie <@{CHARLIE}>", names_of=lambda i: names(i) or []).user_id == CHARLIE  # "Charlie Brown"
    assert target(f"@Bobby <@{BOB}>", names_of=lambda i: names(i) or []).user_id is None
    assert target(f"<@{BOB}> <@{CHARLIE}>", me_id=BOB).user_id == CHARLIE  # the bot's own mention is no one
    assert target("@Charlie").user_id is None


def test_a_forget_that_deleted_nothing_says_so() -> None:
    nothing = ForgetReport(user_id=CHARLIE, guild_id=G1)
    said = describe(nothing, "**Charlie**")
    assert not said.startswith("Done") and "Nothing was deleted" in said and "residue audit" not in said, said
    assert not describe_report(nothing).startswith("Done"), describe_report(nothing)
    something = ForgetReport(user_id=CHARLIE, guild_id=G1, deleted={"Message": 2})
    assert describe(something, "**Charlie**").startswith("Done: I deleted 0 facts, 2 messages")
