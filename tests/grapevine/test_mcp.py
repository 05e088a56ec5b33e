"""`grapevine mcp --guild G` started as a process and called through the official SDK's own client over stdio:
every tool answers, reads one guild's shared channels only, leaves opted-out members out, and writes nothing."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client
from mcp.types import CallToolResult, TextContent

from graph.reads.stats import backfill
from graph.store import GraphStore
from tests.support.busy_server import G1, GENERAL, PEOPLE
from tests.support.cli_process import cli_env
from tests.support.scripted import count
from tests.support.topics_graph import STAFF, topical

TOOLS = {"facts", "who_knows", "timeline", "list_queries_here", "run_query"}


def text_of(called: CallToolResult) -> str:
    """A tool's answer as text (its one text content)."""
    [content] = called.content
    assert isinstance(content, TextContent), content
    return content.text


def result(called: Any) -> Any:
    """A tool's answer: its structured content (the SDK wraps a list as {"result": [...]})."""
    assert not called.is_error, called.content
    data = called.structured_content
    return data["result"] if isinstance(data, dict) and set(data) == {"result"} else data


async def _graph_size(store: GraphStore) -> tuple[int, int]:
    return (
        await count(store, "MATCH (n) RETURN count(n) AS n"),
        await count(store, "MATCH ()-[r]->() RETURN count(r) AS n"),
    )


async def test_every_tool_over_stdio_reads_the_shared_channels_of_one_guild(store: GraphStore, tmp_path: Path) -> None:
    t = await topical(store)
    await backfill(store)  # the set-up every command's start runs keeps the guild's counts: not the tools' writing
    before = await _graph_size(store)
    params = StdioServerParameters(
        command=sys.executable, args=["-m", "grapevine", "mcp", "--guild", G1], env=cli_env(store, tmp_path), cwd=tmp_path
    )
    with (tmp_path / "mcp.err").open("w") as errlog:
        async with stdio_client(params, errlog=errlog) as (read, write), ClientSession(read, write) as session:
            await session.initialize()
            listed = (await session.list_tools()).tools
            assert {tool.name for tool in listed} == TOOLS
            assert all(tool.annotations and tool.annotations.read_only_hint for tool in listed)

            knowers = result(await session.call_tool("who_knows", {"topic": "kubernetes"}))
            assert [k["member"] for k in knowers] == ["Alice", "Eve"]  # not Charlie (#staff), not Dave (opted out)
            assert knowers[0]["example"] == f"https://discord.com/channels/{G1}/{GENERAL}/{t.links['alice']}"

            facts = result(await session.call_tool("facts", {"subject": PEOPLE["bob"]}))
            assert [f["text"] for f in facts] == ["Bob moved to Munich"]
            assert facts[0]["reported_by"][0]["member"] == "Bob" and facts[0]["supersedes"] == ["Bob lives in Berlin"]
            assert facts[0]["links"] == [f"https://discord.com/channels/{G1}/{GENERAL}/{t.links['munich']}"]
            then = result(await session.call_tool("facts", {"subject": "bob", "at": "2024-05-04T23:00:00Z"}))
            assert [f["text"] for f in then] == ["Bob lives in Berlin"]

            line = result(await session.call_tool("timeline", {"subject": "Bob"}))
            assert [(f["text"], f["held"]) for f in line] == [("Bob lives in Berlin", False), ("Bob moved to Munich", True)]
            celtics = result(await session.call_tool("timeline", {"subject": "the celtics"}))
            assert [f["text"] for f in celtics] == ["Charlie is a Celtics fan"]

            queries = result(await session.call_tool("list_queries_here", {}))
            assert {q["name"] for q in queries} >= {"who_knows", "topic_timeline"}
            assert all(p["name"] not in ("guild_id", "channel_id") for q in queries for p in q["params"])
            rows = result(await session.call_tool("run_query", {"name": "who_knows", "params": {"topic": "kubernetes"}}))
            assert {r["member"] for r in rows} == {"Alice", "Eve"}  # Dave opted out: left out of the rows too
            assert STAFF not in {r["channel_id"] for r in rows}
            refused = await session.call_tool("run_query", {"name": "who_reported", "params": {"user_id": PEOPLE["bob"]}})
            assert refused.is_error and "not an operator query this server runs" in text_of(refused)
            unknown = await session.call_tool("facts", {"subject": "nobody at all"})
            assert unknown.is_error and "no member or entity called" in text_of(unknown)
    assert await _graph_size(store) == before  # nothing written


async def test_an_empty_answer_says_why_and_how_to_change_it(store: GraphStore, tmp_path: Path) -> None:
    """The sample's channels are imported, so private: every read answers nothing, and says so, with the way out."""
    from tests.support.cli_process import grapevine

    assert (await grapevine(store, tmp_path, "demo")).returncode == 0
    guild = "833055463833731073"
    params = StdioServerParameters(
        command=sys.executable, args=["-m", "grapevine", "mcp", "--guild", guild], env=cli_env(store, tmp_path), cwd=tmp_path
    )
    with (tmp_path / "mcp.err").open("w") as errlog:
        async with stdio_client(params, errlog=errlog) as (read, write), ClientSession(read, write) as session:
            await session.initialize()
            calls: list[tuple[str, dict[str, Any]]] = [
                ("who_knows", {"topic": "Berlin"}),
                ("facts", {"subject": "Bob"}),
                ("timeline", {"subject": "Bob"}),
                ("run_query", {"name": "who_knows", "params": {"topic": "Berlin"}}),
            ]
            for tool, arguments in calls:
                [answer] = result(await session.call_tool(tool, arguments))
                note = answer["note"]
                assert "0 of this server's 2 channels are shared" in note, (tool, note)
                assert "imported channels start private" in note and f"grapevine channels --guild {guild}" in note, note
