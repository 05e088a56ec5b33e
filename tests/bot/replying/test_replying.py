"""Replying: mentions, replies to the bot and DMs get an answer built from the graph; bots never do."""

from __future__ import annotations

import logging
import socket
from datetime import timedelta

import pytest
from neo4j import AsyncGraphDatabase

from bot.replying import Replying
from bot.replying._answer import LLM_DOWN
from bot.services import Services
from graph.engines.arcadedb import ArcadeDBEngine
from graph.reads import context as context_reads
from graph.store import GraphStore
from tests.bot.harness import AT, Harness, allowed_none
from tests.support.busy_server import G1, GENERAL, PEOPLE, populate
from tests.support.discord_doubles import (
    MockBot,
    MockClientUser,
    MockDMChannel,
    MockMember,
    MockMessage,
    MockThread,
    reply_to,
    sent_texts,
)
from tests.support.scripted import count
from tests.support.scripted_llm import Fault, ScriptedLLMServer


def prompt_of(srv: ScriptedLLMServer, i: int = -1) -> str:
    return str(srv.requests[i]["messages"][-1]["content"])


async def test_mention_gets_a_reply_with_what_alice_said(
    store: GraphStore, harness: Harness, llm_server: ScriptedLLMServer
) -> None:
    p = await populate(store)
    llm_server.push("She's off to Austin next month, Alice said!")
    ask = harness.message(harness.member("bob"), "where is Alice moving to?", to_bot=True)
    await harness.deliver(ask)

    assert llm_server.calls == 1
    request = llm_server.requests[0]
    assert request["model"] == "reply-model"
    prompt = prompt_of(llm_server)
    assert "- Alice said on 3 May 2024: Alice is moving to Austin next month" in prompt
    assert prompt.endswith("The message to reply to, from Bob:\nwhere is Alice moving to?")
    ask.reply.assert_awaited_once()
    call = ask.reply.await_args
    austin = next(m for m in p.messages if m.content == "Austin!")  # the message the fact was drawn from
    assert call.args == (
        f"She's off to Austin next month, Alice said!\n-# Sources: https://discord.com/channels/{G1}/{GENERAL}/{austin.id}",
    )
    assert allowed_none(call) and call.kwargs["mention_author"] is False
    assert await count(store, "MATCH (m:Message {id: $id}) RETURN count(m) AS n", id=str(ask.id)) == 1


async def test_thread_reply_sees_the_thread_tail(store: GraphStore, harness: Harness, llm_server: ScriptedLLMServer) -> None:
    await populate(store)
    thread = MockThread(name="lisbon trip", parent=harness.general)
    said = [("dave", "we land in Lisbon at 9"), ("eve", "I'll book the hostel near Alfama"), ("dave", "bring sunscreen")]
    for i, (who, text) in enumerate(said):
        await harness.deliver(harness.message(harness.member(who), text, channel=thread, at=AT + timedelta(seconds=10 * i)))
    assert llm_server.calls == 0  # nobody asked the bot anything yet
    llm_server.push("Sounds like a great trip!")
    await harness.deliver(
        harness.message(harness.member("bob"), "what's the plan?", channel=thread, to_bot=True, at=AT + timedelta(minutes=1))
    )

    prompt = prompt_of(llm_server)
    tail = prompt.split("## Latest messages of this thread", 1)[1]
    assert "Dave: we land in Lisbon at 9" in tail and "Eve: I'll book the hostel near Alfama" in tail
    assert "Dave: bring sunscreen" in tail
    rows = await count(
        store,
        "MATCH (c:Channel {id: $id}) WHERE c.kind = 'thread' AND c.parent_id = $parent RETURN count(c) AS n",
        id=str(thread.id),
        parent=GENERAL,
    )
    assert rows == 1


async def test_reply_to_the_bot_needs_no_mention_and_sees_the_chain(
    store: GraphStore, harness: Harness, llm_server: ScriptedLLMServer
) -> None:
    await populate(store)
    mine = harness.message(harness.bot.user, "Luna is a lovely name for a cat!", at=AT)
    await harness.deliver(mine)  # the bot's own message is stored, and not answered
    llm_server.push("She must be two by now.")
    answer = harness.message(
        harness.member("alice"), "she turns two next week", at=AT + timedelta(minutes=1), reference=reply_to(mine)
    )
    await harness.deliver(answer)

    assert llm_server.calls == 1
    chain = prompt_of(llm_server).split("## The messages this one replies to", 1)[1]
    assert ", you] grapevine: Luna is a lovely name for a cat!" in chain
    assert sent_texts(answer.reply) == ["She must be two by now."]


async def test_other_bots_and_itself_never_get_a_reply(
    store: GraphStore, harness: Harness, llm_server: ScriptedLLMServer
) -> None:
    await populate(store)
    other = MockMember(name="otherbot", bot=True, guild=harness.guild)
    mine = harness.message(harness.bot.user, "hello everyone", at=AT)
    messages = [
        harness.message(other, "hey, what do you know?", to_bot=True),
        harness.message(other, "replying to you", reference=reply_to(mine)),
        harness.message(harness.bot.user, "talking to myself", to_bot=True),
        mine,
    ]
    for message in messages:
        await harness.deliver(message)
    assert llm_server.calls == 0
    for message in messages:
        message.reply.assert_not_awaited()
        message.channel.send.assert_not_awaited()


async def test_a_message_that_is_not_for_the_bot_gets_no_reply(harness: Harness, llm_server: ScriptedLLMServer) -> None:
    chat = harness.message(harness.member("bob"), "grapevine is a nice name for a bot")
    await harness.deliver(chat)
    assert llm_server.calls == 0
    chat.reply.assert_not_awaited()


async def test_dm_gets_a_reply_in_the_members_own_memory(
    store: GraphStore, harness: Harness, llm_server: ScriptedLLMServer
) -> None:
    charlie = harness.member("charlie")
    dm = MockDMChannel(recipient=charlie)
    llm_server.push("Hi Charlie!")
    hello = harness.message(charlie, "hi there", channel=dm, guild=None)
    await harness.deliver(hello)
    assert sent_texts(hello.reply) == ["Hi Charlie!"]
    scope = f"dm:{PEOPLE['charlie']}"
    assert (
        await count(
            store, "MATCH (m:Message {id: $id}) WHERE m.guild_id = $scope RETURN count(m) AS n", id=str(hello.id), scope=scope
        )
        == 1
    )
    assert (
        await count(
            store,
            "MATCH (c:Channel {id: $id}) WHERE c.kind = 'dm' AND c.name = 'direct message' RETURN count(c) AS n",
            id=str(dm.id),
        )
        == 1
    )


async def test_long_answers_are_split_at_2000_characters(harness: Harness, llm_server: ScriptedLLMServer) -> None:
    paragraphs = [" ".join(f"word{i}-{j}" for j in range(120)) for i in range(5)]  # about 1,100 characters each
    answer = "\n".join(paragraphs)
    llm_server.push(answer)
    ask = harness.message(harness.member("bob"), "tell me a long story", to_bot=True)
    await harness.deliver(ask)

    chunks = sent_texts(ask.reply) + sent_texts(ask.channel.send)
    assert len(chunks) >= 3 and all(len(c) <= 2000 for c in chunks)
    assert " ".join(" ".join(chunks).split()) == " ".join(answer.split())
    assert all(allowed_none(call) for call in [*ask.reply.await_args_list, *ask.channel.send.await_args_list])
    assert len(ask.reply.await_args_list) == 1  # the first chunk replies, the rest follow in the channel


async def test_llm_down_gets_a_short_apology(harness: Harness, llm_server: ScriptedLLMServer) -> None:
    llm_server.push(Fault.status(503))
    ask = harness.message(harness.member("bob"), "are you there?", to_bot=True)
    await harness.deliver(ask)
    assert sent_texts(ask.reply) == [LLM_DOWN]


def _closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


async def test_graph_down_answers_without_memory(
    services: Services, llm_server: ScriptedLLMServer, caplog: pytest.LogCaptureFixture
) -> None:
    port = _closed_port()
    engine = ArcadeDBEngine(password="nothing-listens", bolt_port=port)
    driver = AsyncGraphDatabase.driver(engine.uri, auth=("root", "x"), connection_timeout=0.5, max_transaction_retry_time=0.0)
    down = GraphStore(driver, engine)
    down.runner.attempts = 1
    bot = MockBot(services=Services(**{**services.__dict__, "store": down}), user=MockClientUser(name="grapevine"))
    llm_server.push("Hello! (no memory today)")
    ask = MockMessage(
        author=MockMember(name="bob", display_name="Bob"), content=f"<@{bot.user.id}> hello", mentions=[bot.user], created_at=AT
    )
    with caplog.at_level(logging.INFO, logger="common.events"):
        await Replying(bot).on_message(ask)
    await driver.close()

    assert sent_texts(ask.reply) == ["Hello! (no memory today)"]
    assert "(nothing remembered bears on this message)" in prompt_of(llm_server)
    events = [getattr(r, "payload", {}) for r in caplog.records]
    assert any(e.get("event") == "graph_unavailable" for e in events)
    built = next(e for e in events if e.get("event") == "context_built")
    assert built["memory"] is False and "content" not in built


async def test_ten_mentions_in_five_seconds_make_one_call(
    store: GraphStore, harness: Harness, llm_server: ScriptedLLMServer
) -> None:
    """A burst of mentions does not cost one LLM call each: a member's cooldown answers the burst once,
    with one polite word, and stays silent after."""
    await populate(store)
    llm_server.responder = lambda request: "Hello!"
    bob = harness.member("bob")
    burst = [harness.message(bob, f"ping {i}", to_bot=True, at=AT + timedelta(seconds=i / 2)) for i in range(10)]
    for message in burst:
        await harness.deliver(message)
    assert llm_server.calls == 1
    told = [m for m in burst[1:] if m.reply.await_count]
    assert len(told) == 1 and "give me 10 seconds" in told[0].reply.await_args.args[0]
    later = harness.message(bob, "and now?", to_bot=True, at=AT + timedelta(seconds=30))
    await harness.deliver(later)
    assert llm_server.calls == 2


def test_a_guild_s_daily_budget_is_said_once_per_channel_and_resets_the_next_day() -> None:
    from datetime import UTC, datetime

    from bot.replying._limits import GUILD_SPENT, ReplyLimits
    from common.settings import ReplySettings

    limits = ReplyLimits(ReplySettings(member_cooldown_seconds=0, channel_cooldown_seconds=0, guild_daily_replies=2))
    day = datetime(2026, 1, 1, 12, tzinfo=UTC)
    assert [limits.check("g", "c", f"u{i}", day)[0] for i in range(3)] == [True, True, False]
    assert limits.check("g", "c", "u9", day) == (False, None)  # told once already in this channel
    assert limits.check("g", "c2", "u9", day) == (False, GUILD_SPENT)
    assert limits.check("other", "c3", "u9", day) == (True, None)  # another guild has its own budget
    assert limits.check("g", "c", "u1", day + timedelta(days=1)) == (True, None)


async def test_a_failed_read_is_logged_without_the_words_of_the_message(
    harness: Harness, llm_server: ScriptedLLMServer, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    async def aborted(*_: object, **params: object) -> None:  # what ArcadeDB said when a regex search timed out
        words = "|".join(str(w) for w in str(params["text"]).split())
        raise RuntimeError(
            f"Regular expression operation aborted (arcadedb.command.regexTimeout): pattern '(?isU).*\\b(?:{words})\\b.*'"
        )

    monkeypatch.setattr(context_reads, "conversation", aborted)
    llm_server.push("Sorry, I remember nothing right now.")
    ask = harness.message(harness.member("bob"), "where is the xylophone rehearsal", to_bot=True)
    with caplog.at_level(logging.INFO, logger="common.events"):
        await harness.deliver(ask)
    assert sent_texts(ask.reply) == ["Sorry, I remember nothing right now."]
    failed = next(getattr(r, "payload", {}) for r in caplog.records if getattr(r, "payload", {}).get("event") == "context_failed")
    assert failed["error"] == "RuntimeError"
    assert not [r for r in caplog.records if "xylophone" in r.getMessage() or "xylophone" in str(getattr(r, "payload", ""))]
