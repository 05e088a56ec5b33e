"""Memory commands end to end: said to the bot in plain language, and as slash commands."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import discord
import pytest

import bot.memory._cog
import bot.memory._status
import graph.privacy.channels
from bot.memory._status import OPTED_IN, OPTED_OUT
from graph.reads.stats import guild_counts
from graph.store import GraphStore
from tests.bot.harness import AT, Harness, allowed_none
from tests.support.busy_server import G1, PEOPLE, populate
from tests.support.discord_doubles import (
    MockDMChannel,
    MockInteraction,
    MockMember,
    invoke,
    sent_texts,
)
from tests.support.scripted import count, cypher
from tests.support.scripted_llm import ScriptedLLMServer

GRUZ = "300000000000000099"


async def _say(harness: Harness, who: str, text: str, minutes: int, **kwargs: object) -> list[str]:
    message = harness.message(harness.member(who), text, to_bot=True, at=AT + timedelta(minutes=minutes), **kwargs)
    await harness.deliver(message)
    return sent_texts(message.reply)


async def _command_facts(store: GraphStore) -> list[dict[str, Any]]:
    return await cypher(
        store,
        """
        MATCH (f:Fact {source: 'command'})-[:REPORTED_BY]->(r:User)
        RETURN f.text AS text, f.guild_id AS guild_id, r.id AS reporter,
               COLLECT { MATCH (f)-[:ABOUT]->(s) RETURN coalesce(s.id, s.name) } AS about,
               COLLECT { MATCH (f)-[:FROM]->(m:Message) RETURN m.id } AS sources
        ORDER BY text""",
    )


async def test_remember_what_do_you_know_and_forget(store: GraphStore, harness: Harness, llm_server: ScriptedLLMServer) -> None:
    await populate(store)
    gruz = harness.member("gruzilkin", id=int(GRUZ), display_name="gruzilkin")
    await harness.deliver(harness.message(gruz, "hi all", at=AT))  # a member who has written here

    [said] = await _say(harness, "alice", "remember that gruzilkin is Sergey", 1)
    assert said == "Got it, I'll remember that gruzilkin is Sergey (about gruzilkin)."
    [said] = await _say(harness, "alice", "remember: I love sourdough bread", 2)
    assert said == "Got it, I'll remember that I love sourdough bread (about Alice)."
    facts = await _command_facts(store)
    assert [(f["text"], f["about"], f["reporter"], f["guild_id"]) for f in facts] == [
        ("I love sourdough bread", [PEOPLE["alice"]], PEOPLE["alice"], G1),
        ("gruzilkin is Sergey", [GRUZ], PEOPLE["alice"], G1),
    ]
    assert all(len(f["sources"]) == 1 for f in facts)  # FROM the message that said it

    [about_gruz] = await _say(harness, "bob", f"what do you know about {gruz.mention}?", 3, mentions=[gruz])
    assert about_gruz.startswith("Here's what I remember about gruzilkin:")
    assert "• gruzilkin is Sergey (said by Alice on 7 May 2024)" in about_gruz
    [about_me] = await _say(harness, "alice", "what do you know about me", 4)
    assert "I love sourdough bread" in about_me and "Alice is moving to Austin next month" in about_me
    [about_name] = await _say(harness, "bob", "what do you know about gruzilkin", 5)
    assert "gruzilkin is Sergey" in about_name

    [refused] = await _say(harness, "bob", "forget that gruzilkin is Sergey", 6)
    assert refused.startswith("I found nothing about you or from you matching")
    [forgot] = await _say(harness, "alice", "forget that I love sourdough", 7)
    assert forgot == "Forgotten (1):\n• I love sourdough bread"
    [again] = await _say(harness, "alice", "forget sourdough", 8)
    assert again.startswith("I found nothing")
    assert [f["text"] for f in await _command_facts(store)] == ["gruzilkin is Sergey"]
    [about_me] = await _say(harness, "alice", "what do you know about me?", 9)
    assert "sourdough" not in about_me and "Austin" in about_me
    assert llm_server.calls == 0  # commands are not chat: no reply LLM call


async def test_forget_takes_the_facts_about_you_that_others_reported(store: GraphStore, harness: Harness) -> None:
    p = await populate(store)
    [forgot] = await _say(harness, "frank", "forget that I got engaged", 1)
    assert forgot == "Forgotten (1):\n• Frank got engaged to Heather"
    assert await count(store, "MATCH (f:Fact {uuid: $u}) RETURN count(f) AS n", u=p.facts["frank_engaged"]) == 0
    assert await count(store, "MATCH (e:Entity {name: 'Heather'}) RETURN count(e) AS n") == 0  # left with no facts


async def test_remember_about_an_entity(store: GraphStore, harness: Harness) -> None:
    await populate(store)
    [said] = await _say(harness, "bob", "remember that the Celtics play on Friday", 1)
    assert said.endswith("(about Celtics).")
    [facts] = [f for f in await _command_facts(store)]
    assert facts["about"] == ["Celtics"]


async def test_opted_out_members_never_reach_the_graph(
    store: GraphStore, harness: Harness, llm_server: ScriptedLLMServer
) -> None:
    await populate(store)
    assert await _say(harness, "judy", "memory opt-out", 1) == [OPTED_OUT]
    judy = harness.member("judy")
    quiet = [harness.message(judy, f"secret number {i}", at=AT + timedelta(minutes=2 + i)) for i in range(3)]
    dm = harness.message(judy, "a private hello", channel=MockDMChannel(recipient=judy), guild=None, at=AT + timedelta(minutes=6))
    llm_server.push("Hello Judy!")
    for message in [*quiet, dm]:
        await harness.deliver(message)
    assert sent_texts(dm.reply) == ["Hello Judy!"]  # still answered, just not remembered
    ids = [str(m.id) for m in [*quiet, dm]]
    assert await count(store, "MATCH (m:Message) WHERE m.id IN $ids RETURN count(m) AS n", ids=ids) == 0
    assert await count(store, "MATCH (n) WHERE n.guild_id = $g OR n.id = $g RETURN count(n) AS n", g=f"dm:{PEOPLE['judy']}") == 0
    assert harness.bot.services.live.stats()["buffered_messages"] == 0
    [refused] = await _say(harness, "judy", "remember that I like tea", 7)
    assert refused.startswith("You've opted out of memory")
    [blocked] = await _say(harness, "bob", "remember that Judy likes tea", 8)
    assert blocked == "Judy opted out of memory, so I won't keep that."

    assert await _say(harness, "judy", "opt in", 9) == [OPTED_IN]
    back = harness.message(judy, "I'm back", at=AT + timedelta(minutes=10))
    await harness.deliver(back)
    assert await count(store, "MATCH (m:Message {id: $id}) RETURN count(m) AS n", id=str(back.id)) == 1


async def test_status_needs_manage_server(store: GraphStore, harness: Harness) -> None:
    await populate(store)
    [denied] = await _say(harness, "bob", "memory status", 1)
    assert denied == "That needs the Manage Server permission."
    harness.member("grace", guild_permissions=discord.Permissions(manage_guild=True))
    [status] = await _say(harness, "grace", "memory status", 2)
    assert status.startswith("**Memory status**")
    assert "This server, last 7 days: 0 messages in 0 channels, 28 facts learned, 0 closed." in status  # written in 2024
    assert "Forget requests: none unfinished." in status and "LLM today" in status
    assert "#general: shared, everyone can view, 0 messages in 7 days" in status
    held = await guild_counts(store, G1)  # the totals kept as the writes happened, as a recount finds them
    assert held["facts"] >= 28
    assert (
        f"This server holds {held['messages']:,} messages in {held['episodes']:,} conversations, {held['facts']:,} facts "
        f"(current and closed) and {held['entities']:,} entities." in status
    )


async def test_slash_remember_and_status(store: GraphStore, harness: Harness) -> None:
    await populate(store)
    memory = harness.memory
    bob = harness.member("bob")
    interaction = MockInteraction(user=bob, guild=harness.guild, created_at=AT)
    await invoke(memory.remember_command, memory, interaction, fact=f"<@{PEOPLE['dave']}> starts at Acme in June")
    interaction.response.defer.assert_awaited_once()
    assert sent_texts(interaction.followup.send) == ["Got it, I'll remember that Dave starts at Acme in June (about Dave)."]
    assert all(allowed_none(c) and c.kwargs["ephemeral"] for c in interaction.followup.send.await_args_list)
    [fact] = await _command_facts(store)
    assert (fact["about"], fact["reporter"], fact["sources"]) == ([PEOPLE["dave"]], PEOPLE["bob"], [])

    mod = MockMember(name="mod", guild_permissions=discord.Permissions(manage_guild=True))
    asked = MockInteraction(user=mod, guild=harness.guild)
    await invoke(memory.status_command, memory, asked)
    [status] = sent_texts(asked.followup.send)
    assert "29 facts learned" in status

    in_dm = MockInteraction(user=mod, guild=None)
    await invoke(memory.status_command, memory, in_dm)
    assert sent_texts(in_dm.response.send_message) == ["That only works in a server."]


async def test_status_reads_the_guilds_activity_once(
    store: GraphStore, harness: Harness, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`memory status` and its channel listing show the same last days' activity, read once (its ranges are the
    part of the status whose cost follows the guild's traffic)."""
    await populate(store)
    reads = []

    def counted(read: Any) -> Any:
        async def wrapper(*args: Any, **kwargs: Any) -> Any:
            reads.append(args[1:])
            return await read(*args, **kwargs)

        return wrapper

    for module in (bot.memory._cog, bot.memory._status, graph.privacy.channels):
        monkeypatch.setattr(module, "recent_activity", counted(module.recent_activity), raising=False)
    harness.member("grace", guild_permissions=discord.Permissions(manage_guild=True))
    [status] = await _say(harness, "grace", "memory status", 2)
    assert "#general: shared, everyone can view, 0 messages in 7 days" in status
    assert reads == [(G1, 7)]
