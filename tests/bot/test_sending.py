"""Splitting answers for Discord's 2,000-character limit, the plain-language command parser, and a reply Discord
refuses."""

from __future__ import annotations

import logging

import discord
import pytest

from bot.memory._parse import TextCommand, parse
from bot.sending import split_message
from graph.store import GraphStore
from tests.bot.harness import Harness, events
from tests.support.busy_server import GENERAL, populate
from tests.support.discord_doubles import http_error
from tests.support.scripted_llm import ScriptedLLMServer


def test_short_text_is_one_message() -> None:
    assert split_message("  hello  ") == ["hello"]
    assert split_message("") == []


def test_splits_at_line_breaks_then_spaces_then_anywhere() -> None:
    lines = "\n".join(["a" * 1500, "b" * 1500, "c" * 100])
    assert split_message(lines) == ["a" * 1500, "b" * 1500 + "\n" + "c" * 100]
    words = " ".join(["word"] * 1000)  # 4,999 characters, no line break
    chunks = split_message(words)
    assert all(len(c) <= 2000 and not c.startswith(" ") and not c.endswith(" ") for c in chunks)
    assert " ".join(chunks) == words
    assert split_message("x" * 4500) == ["x" * 2000, "x" * 2000, "x" * 500]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("remember that gruzilkin is Sergey", TextCommand("remember", "gruzilkin is Sergey")),
        ("Remember: I like tea.", TextCommand("remember", "I like tea")),
        ("please forget me!", TextCommand("forget_me")),
        ("forget everything about me please", TextCommand("forget_me")),
        ("forget that I am moving to Austin", TextCommand("forget", "I am moving to Austin")),
        ("what do you know about @Alice?", TextCommand("about", "@Alice")),
        ("What do you remember about me", TextCommand("about", "me")),
        ("memory opt-out", TextCommand("opt_out")),
        ("opt in", TextCommand("opt_in")),
        ("memory status", TextCommand("status")),
        ("remember when we went hiking?", None),
        ("remembering is hard", None),
        ("do you remember me?", None),
        ("hello there", None),
    ],
)
def test_plain_language_commands(text: str, expected: TextCommand | None) -> None:
    assert parse(text) == expected


@pytest.mark.parametrize("text", ["what do you know about me?", "where is Alice moving to?"], ids=["memory", "replying"])
async def test_a_reply_discord_refuses_is_one_reply_failed_event(
    store: GraphStore, harness: Harness, llm_server: ScriptedLLMServer, caplog: pytest.LogCaptureFixture, text: str
) -> None:
    """The memory cog's plain-language answer and the replying cog's both: Discord refusing the reply (the message
    deleted meanwhile, the channel closed to the bot) is the operator's `reply_failed`, never an error of the
    listener, and nothing after it is said to have been sent."""
    await populate(store)
    llm_server.push("She's off to Austin next month.")
    caplog.set_level(logging.INFO)
    ask = harness.message(harness.member("bob"), text, to_bot=True)
    ask.reply.side_effect = http_error(discord.NotFound, 404, 10008, "Unknown Message")
    await harness.deliver(ask)

    ask.reply.assert_awaited_once()
    [failed] = events(caplog, "reply_failed")
    assert failed["channel_id"] == GENERAL and failed["status"] == 404 and failed["error"] == "NotFound"
    assert events(caplog, "memory_command") == [] and events(caplog, "reply_sent") == []
