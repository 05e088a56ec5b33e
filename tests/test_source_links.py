"""The pure parts of answers with sources: jump URLs, which memories an answer cites, who-knows' ranking and the
plain-language topic questions (no database)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

from bot.memory._parse import parse as parse_command
from bot.memory._topics import TopicCommand, as_of, parse
from common.links import JUMP_URL, jump_url, sources_line
from graph.reads.topics import rank_knowers, topic_query
from recall.sources import cited

G, C, M = "100000000000000001", "110000000000000001", "500000000000000002"
NOW = datetime(2024, 5, 7, tzinfo=UTC)


def test_jump_urls_for_a_guild_and_a_dm() -> None:
    assert jump_url(G, C, M) == f"https://discord.com/channels/{G}/{C}/{M}"
    assert jump_url(f"dm:{G}", C, M) == f"https://discord.com/channels/@me/{C}/{M}"
    assert JUMP_URL.fullmatch(jump_url(G, C, M) or "") and JUMP_URL.fullmatch(jump_url(f"dm:{G}", C, M) or "")
    assert jump_url("g-irc", C, M) is None and jump_url(G, "c-1", M) is None and jump_url(G, C, None) is None  # imported
    assert sources_line([]) == "" and sources_line(["a", "b", "a"]) == "-# Sources: a · b"


def test_an_answer_cites_what_it_uses_and_nothing_else() -> None:
    facts = [
        ("Alice is moving to Austin next month", C, "1"),
        ("Charlie's sister lives in Austin", C, "2"),
        ("Bob lives in Berlin", C, "3"),
        ("Austin!", C, "1"),  # the recalled message the first fact came from: one link, not two
    ]
    assert cited(facts, "Alice is moving to Austin next month!", "Bob") == [(C, "1")]  # Charlie's sister: only "austin"
    assert cited(facts, "Hi Bob, how are you?", "Bob") == []  # a greeting uses no memory
    assert cited([("Bob lives in Berlin", C, "3")], "Bob, Berlin is lovely", "Bob") == []  # only the asker's name and one word
    assert cited([("Austin!", C, "9")], "She moved to Austin", "Bob") == [(C, "9")]  # a one-word message: its one word
    assert cited(facts, "Alice is moving to Austin next month", "Bob", can_open=lambda c: c != C) == []
    many = [(f"the kubernetes cluster number {i}", C, str(i)) for i in range(10)]
    assert len(cited(many, "the kubernetes cluster is fine", "Eve")) == 3


def test_who_knows_ranks_by_how_much_and_how_recently() -> None:
    def row(user: str, kind: str, ref: str, days: int) -> dict[str, Any]:
        return {"user_id": user, "member": user.title(), "kind": kind, "ref": ref, "at": (NOW - timedelta(days=days)).isoformat(),
                "message_id": ref, "channel_id": C}  # fmt: skip

    rows = [
        row("old", "message", "o1", 400), row("old", "message", "o2", 401), row("old", "message", "o3", 402),
        row("new", "message", "n1", 1),
        row("teller", "fact", "f1", 30), row("teller", "fact", "f1", 30),  # the same fact found twice counts once
        row("out", "fact", "f2", 1),
    ]  # fmt: skip
    ranked = rank_knowers(rows, NOW, {"out"})
    assert [k.user_id for k in ranked] == ["teller", "new", "old"]
    assert (ranked[0].facts, ranked[0].messages, ranked[2].messages) == (1, 0, 3)
    assert ranked[2].example == (C, "o1") and ranked[2].last == NOW - timedelta(days=400)


def test_topic_questions_in_plain_language() -> None:
    assert parse("who knows about kubernetes?") == TopicCommand("who_knows", "kubernetes")
    assert parse("hey, who here knows anything about the server move") == TopicCommand("who_knows", "the server move")
    assert parse("what happened with the server move?") == TopicCommand("timeline", "the server move")
    assert parse("What's happened to <@300000000000000002> as of 2024-05-04?") == TopicCommand(
        "timeline", "<@300000000000000002>", "2024-05-04"
    )
    assert parse("timeline of Bob at 2024-05-04T12:00Z") == TopicCommand("timeline", "Bob", "2024-05-04T12:00Z")
    assert parse("who won the game?") is None and parse("what happened?") is None and parse("remember that I like tea") is None
    assert parse_command("who knows about kubernetes?") is None  # not a memory command: the two never both claim a text
    assert topic_query("the server move") == "(server) AND (move)" and topic_query("the, a?") == ""
    assert as_of("2024-05-04") == datetime(2024, 5, 5, tzinfo=UTC) - timedelta(microseconds=1)  # by the day's end
    assert as_of("2024-05-04T12:00Z") == datetime(2024, 5, 4, 12, tzinfo=UTC) and as_of(None) is None
