"""Splitting answers for Discord's 2,000-character limit, and the plain-language command parser."""

from __future__ import annotations

import pytest

from bot.memory._parse import TextCommand, parse
from bot.sending import split_message


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
