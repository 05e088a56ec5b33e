"""Numbers, dates and ids from the four front doors (CLI, explorer, MCP, bot) are read strictly, once
(common.bounds, common.ids), each with one clear message: `9_223_372_036_854_775_808` (underscores) is no number,
a limit past what a read needs is refused before ArcadeDB takes 4294967297 for 1, a negative count is refused,
a datetime out of range is named as a date (not "a whole number"), full-width digits are no id. The explorer
answers 400 with the message, the CLI one line and a non-zero exit, an MCP tool says what was wrong."""

from __future__ import annotations

import re
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any, cast

import httpx
import pytest
from mcp.server.mcpserver.exceptions import ToolError, UnexpectedToolError

from common import bounds, ids
from grapevine.explore.app import create_app
from grapevine.explore.reads import ExploreReader
from grapevine.mcp_server import Reader, build
from graph.privacy.guards.consent import keyed
from graph.privacy.opted_out import opted_out_reader
from graph.reads.operator import coerce_params, get_query
from graph.store import GraphStore
from tests.security.cli import grapevine
from tests.support.busy_server import G1, PEOPLE, populate

TOKEN = "strict-token-0123456789abcdef"
UNDERSCORED = "9_223_372_036_854_775_808"
WRAPS = str(2**32 + 1)  # ArcadeDB reads this limit as 1
PAST_INT32 = str(2**31)
FAR_DATE = "9999-12-31T23:59:59-23:59"  # a valid ISO text, past year 9999 once in UTC
CHARLIE = PEOPLE["charlie"]
WIDE_CHARLIE = "".join(chr(ord(c) + 0xFEE0) for c in CHARLIE)  # "３０００…０３": full-width digits


@pytest.mark.parametrize(
    ("value", "says"),
    [
        (UNDERSCORED, "written without underscores"),
        ("１０", "written with the digits 0-9"),
        ("-1", "from 1 to 10,000"),
        ("0", "from 1 to 10,000"),
        (WRAPS, "from 1 to 10,000"),
        (PAST_INT32, "from 1 to 10,000"),
        ("1e3", "a whole number"),
        ("9" * 5000, "from 1 to 10,000"),
    ],
)
def test_a_count_is_a_plain_whole_number_within_bounds(value: str, says: str) -> None:
    with pytest.raises(bounds.BoundsError, match=says) as info:
        bounds.count(value, "limit")
    assert str(info.value).startswith(("limit must be a whole number", "limit is out of range")) and len(str(info.value)) < 300


def test_whole_numbers_stay_within_64_bits_without_underscores() -> None:
    assert bounds.whole_number(str(2**63 - 1), "x") == 2**63 - 1
    assert bounds.whole_number(f" {-(2**63)} ", "x") == -(2**63)
    for value in (UNDERSCORED, "1_000", "９"):
        with pytest.raises(bounds.BoundsError, match="x must be a whole number"):
            bounds.whole_number(value, "x")
    with pytest.raises(bounds.BoundsError, match=re.escape("x is out of range, got '9223372036854775808' (a whole number")):
        bounds.whole_number(str(2**63), "x")


@pytest.mark.parametrize(
    ("value", "says"),
    [
        (FAR_DATE, "a date from 0001-01-01 to 9999-12-31 once in UTC"),
        ("0001-01-01T00:00:00+01:00", "a date from 0001-01-01 to 9999-12-31 once in UTC"),
        ("soon", "not an ISO date or datetime"),
        ("2024-13-01", "not a date: month must be in 1..12"),
        ("２０２４-05-03", "written with the digits 0-9"),
    ],
)
def test_a_date_out_of_range_is_named_as_a_date(value: str, says: str) -> None:
    with pytest.raises(bounds.BoundsError, match=says) as info:
        bounds.instant(value, "at")
    assert "whole number" not in str(info.value)


def test_ids_are_ascii_digits() -> None:
    assert ids.user_id(f" {CHARLIE} ") == CHARLIE
    assert ids.guild_id(f"dm:{CHARLIE}") == f"dm:{CHARLIE}"
    assert ids.channel_id("") == ""
    with pytest.raises(ids.IdError, match="digits 0-9.*full-width"):
        ids.user_id(WIDE_CHARLIE)
    for value in ("123", CHARLIE + "x", f"<@{CHARLIE}>", "9" * 21):
        with pytest.raises(ids.IdError, match="must be a Discord id"):
            ids.user_id(value)
    assert ids.mentioned(f"<@{WIDE_CHARLIE}> <@!{CHARLIE}> <@{CHARLIE}>") == [CHARLIE]


def test_operator_query_parameters_are_read_strictly() -> None:
    who, mine, topic = (get_query(n) for n in ("who_knows", "user_timeline", "topic_timeline"))
    asked = {"guild_id": G1, "topic": "kubernetes"}
    assert coerce_params(who, asked | {"hits": "200"})["hits"] == 200
    cases = [
        (
            who,
            asked | {"hits": PAST_INT32},
            re.escape("hits is out of range, got '2147483648' (a whole number from 1 to 10,000)"),
        ),
        (who, asked | {"hits": "-5"}, "parameter hits is out of range"),
        (
            who,
            asked | {"hits": "20000"},
            re.escape("parameter hits is out of range, got '20000' (a whole number from 1 to 10,000)"),
        ),
        (who, asked | {"hits": "many"}, "parameter hits must be int, got 'many'"),
        (who, asked | {"hits": UNDERSCORED}, "written without underscores"),
        (who, asked | {"guild_id": WIDE_CHARLIE}, "parameter guild_id must be written with the digits 0-9"),
        (mine, {"guild_id": G1, "user_id": WIDE_CHARLIE}, "parameter user_id must be written with the digits 0-9"),
        (topic, {"guild_id": G1, "entity_key": "k", "at": FAR_DATE}, "parameter at must be datetime, got .* \\(a date from"),
        (topic, {"guild_id": G1, "entity_key": "k", "limit": WRAPS}, "parameter limit is out of range"),
    ]
    for query, params, says in cases:
        with pytest.raises(ValueError, match=says):
            coerce_params(query, params)


# --- the explorer: 400 and its message, before any read (no engine needed: the reader is never reached) ----------


@pytest.fixture
async def api() -> AsyncIterator[httpx.AsyncClient]:
    app = create_app(ExploreReader(cast(Any, None)), TOKEN, style=[])
    async with httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://127.0.0.1:8474") as client:
        yield client


@pytest.mark.parametrize(
    ("path", "params", "says"),
    [
        ("around", {"guild_id": G1, "label": "User", "key": CHARLIE, "limit": UNDERSCORED}, "without underscores"),
        ("around", {"guild_id": G1, "label": "User", "key": CHARLIE, "limit": WRAPS}, "from 1 to 500"),
        ("history", {"guild_id": G1, "label": "User", "key": CHARLIE, "limit": "-1"}, "from 1 to 500"),
        ("start", {"guild_id": WIDE_CHARLIE, "q": "x"}, "guild_id must be written with the digits 0-9"),
        ("queries/who_knows", {"guild_id": G1, "topic": "kubernetes", "hits": PAST_INT32}, "hits is out of range"),
        ("queries/most_connected_entities", {"guild_id": G1, "limit": UNDERSCORED}, "without underscores"),
        ("queries/topic_timeline", {"guild_id": G1, "entity_key": "k", "at": FAR_DATE}, "at must be datetime"),
    ],
)
async def test_the_explorer_answers_400_with_the_reason(
    api: httpx.AsyncClient, path: str, params: dict[str, str], says: str
) -> None:
    response = await api.get(f"/{TOKEN}/api/{path}", params=params)
    assert response.status_code == 400, response.text[:500]
    assert says in response.json()["error"], response.json()


# --- MCP: every tool error says what was wrong -------------------------------------------------------------------


async def _tool_error(name: str, arguments: dict[str, Any]) -> str:
    server = build(Reader(store=cast(Any, None), guild_id=G1, opted_out=cast(Any, None)))
    with pytest.raises(ToolError) as info:
        await server.call_tool(name, arguments)
    assert not isinstance(info.value, UnexpectedToolError), f"an opaque error: {info.value}"
    return str(info.value)


@pytest.mark.parametrize(
    ("name", "arguments", "says"),
    [
        ("run_query", {"name": "who_knows", "params": {"topic": "kubernetes", "hits": PAST_INT32}}, "hits is out of range"),
        ("run_query", {"name": "who_knows", "params": {"topic": "kubernetes", "hits": "-1"}}, "from 1 to 10,000"),
        ("run_query", {"name": "who_knows", "params": {"topic": "kubernetes", "hits": UNDERSCORED}}, "without underscores"),
        ("run_query", {"name": "topic_timeline", "params": {"entity_key": "k", "at": FAR_DATE}}, "at must be datetime"),
        ("facts", {"subject": "Bob", "at": FAR_DATE}, "at must be a date, got"),
        ("timeline", {"subject": "Bob", "at": "soon"}, "not an ISO date"),
        ("facts", {"subject": WIDE_CHARLIE}, "subject must be written with the digits 0-9"),
        ("who_knows", {"topic": "k", "limit": -3}, "limit is out of range"),
        ("who_knows", {"topic": "k", "limit": 2**40}, "from 1 to 50"),
    ],
)
async def test_every_mcp_tool_error_says_what_was_wrong(name: str, arguments: dict[str, Any], says: str) -> None:
    assert says in await _tool_error(name, arguments)


# --- the CLI: one line, a non-zero exit (nothing here reaches the engine: the arguments are read first) ----------


@pytest.mark.parametrize(
    ("args", "says"),
    [
        (["query", "most_connected_entities", f"-pguild_id={G1}", f"-plimit={UNDERSCORED}"], "without underscores"),
        (["query", "who_knows", f"-pguild_id={G1}", "-ptopic=kubernetes", f"-phits={WRAPS}"], "hits is out of range"),
        (["query", "topic_timeline", f"-pguild_id={G1}", "-pentity_key=k", f"-pat={FAR_DATE}"], "a date from"),
        (["timeline", "--guild", G1, "--user", CHARLIE, "--at", FAR_DATE], "--at must be a date"),
        (["who-knows", "k", "--guild", G1, "--limit", UNDERSCORED], "--limit must be a whole number"),
        (["forget", WIDE_CHARLIE, "--yes"], "USER_ID must be written with the digits 0-9"),
        (["export", WIDE_CHARLIE], "USER_ID must be written with the digits 0-9"),
        (["facts", "--guild", WIDE_CHARLIE, "--user", CHARLIE], "--guild must be written with the digits 0-9"),
        (["channels", "--guild", G1, "--set", "１２３", "--mode", "off"], "--set must be written with the digits 0-9"),
    ],
)
def test_the_cli_says_it_in_one_line(tmp_path: Path, args: list[str], says: str) -> None:
    done = grapevine(tmp_path, *args, GRAPEVINE_DATA_DIR=str(tmp_path / "data"))
    lines = [line for line in done.stderr.splitlines() if line.strip()]
    assert done.returncode != 0 and "Traceback" not in done.stdout + done.stderr, done.stderr[-2000:]
    assert len(lines) == 1 and says in lines[0], done.stderr[-2000:]
    assert not (tmp_path / "data").exists()  # refused before anything was opened


@pytest.mark.parametrize(
    ("name", "arguments"),
    [
        ("who_knows", {"topic": "guild_id:*"}),
        ("run_query", {"name": "who_knows", "params": {"topic": "guild_id:*"}}),
        ("run_query", {"name": "who_knows", "params": {"topic": "(unclosed AND"}}),
    ],
)
async def test_a_topic_the_engine_may_refuse_answers_or_says_why(store: GraphStore, name: str, arguments: dict[str, Any]) -> None:
    """Full-text syntax in a topic (`guild_id:*`): rows, or the engine's refusal in words, never a bare error."""
    await populate(store)
    reader = Reader(store, G1, opted_out_reader(store, keyed(store)))
    failed: ToolError | None = None
    try:
        await build(reader).call_tool(name, arguments)
    except ToolError as exc:
        failed = exc
    if failed is not None:
        assert not isinstance(failed, UnexpectedToolError), f"an opaque error: {failed}"
        assert len(str(failed)) > len(f"Error executing tool {name}: "), str(failed)
