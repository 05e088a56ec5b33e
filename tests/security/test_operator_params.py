"""Operator-query parameters out of range (an integer past 64 bits, an oversized string) are bad input: one
clear line and a non-zero exit from `grapevine query`, HTTP 400 from the explorer, never a traceback or a 500."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from grapevine.explore.app import create_app
from grapevine.explore.reads import ExploreReader
from grapevine.explore.style import style_rules
from graph.reads.operator import MAX_STRING_CHARS, OperatorQuery, QueryParam, coerce_params, get_query
from graph.store import GraphStore
from tests.support.busy_server import G1, populate
from tests.support.cli_process import grapevine

TOKEN = "params-token-0123456789abcdef"
HUGE = str(2**64)
HUGE_NEGATIVE = str(-(2**63) - 1)
LONG = "x" * (MAX_STRING_CHARS + 1)


def test_integers_stay_within_64_bits_and_strings_within_bounds() -> None:
    q = OperatorQuery("n", "N", "A", [QueryParam("n", "int", True)], "RETURN $n AS n")
    assert coerce_params(q, {"n": str(2**63 - 1)})["n"] == 2**63 - 1
    assert coerce_params(q, {"n": str(-(2**63))})["n"] == -(2**63)
    for value in (HUGE, HUGE_NEGATIVE, "9" * 1000):
        with pytest.raises(ValueError, match="n is out of range, .*a whole number from -2\\^63 to 2\\^63-1") as info:
            coerce_params(q, {"n": value})
        assert len(str(info.value)) < 300  # the value is not echoed whole
    counted = get_query("most_connected_entities")  # a limit is a count: from 1 to what a read needs
    for value in (str(2**63 - 1), "0", "-1"):
        with pytest.raises(ValueError, match="limit is out of range, .*a whole number from 1 to 10,000"):
            coerce_params(counted, {"guild_id": G1, "limit": value})
    who = get_query("who_knows")
    with pytest.raises(ValueError, match=f"topic is longer than {MAX_STRING_CHARS} characters") as info:
        coerce_params(who, {"guild_id": G1, "topic": LONG})
    assert len(str(info.value)) < 300
    longest = ("kubernetes " * (MAX_STRING_CHARS // 11)).ljust(MAX_STRING_CHARS)  # a topic is words: sent as a query
    assert coerce_params(who, {"guild_id": G1, "topic": longest})["topic"] == "(kubernetes)"
    ratio = OperatorQuery("ratio", "R", "A", [QueryParam("x", "float", True)], "RETURN $x AS x")
    for value in ("1e400", "-inf", "nan"):
        with pytest.raises(ValueError, match="x must be float, .*a finite number"):
            coerce_params(ratio, {"x": value})


@pytest.mark.parametrize(("param", "value"), [("limit", HUGE), ("limit", HUGE_NEGATIVE), ("guild_id", LONG)])
async def test_the_cli_says_it_in_one_line(store: GraphStore, tmp_path: Path, param: str, value: str) -> None:
    await populate(store)
    params = {"guild_id": G1, "limit": "5", param: value}
    done = await grapevine(store, tmp_path, "query", "most_connected_entities", *(f"-p{k}={v}" for k, v in params.items()))
    assert done.returncode != 0 and "Traceback" not in done.stdout + done.stderr
    lines = [line for line in done.stderr.splitlines() if line.strip()]
    assert len(lines) == 1 and param in lines[0], done.stderr[-2000:]


@pytest.fixture
async def api(store: GraphStore) -> AsyncIterator[httpx.AsyncClient]:
    await populate(store)
    app = create_app(ExploreReader(store), TOKEN, style=style_rules())
    async with httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://127.0.0.1:8474") as client:
        yield client


@pytest.mark.parametrize(
    ("path", "params"),
    [
        ("queries/most_connected_entities", {"guild_id": G1, "limit": HUGE}),
        ("queries/most_connected_entities", {"guild_id": G1, "limit": HUGE_NEGATIVE}),
        ("queries/most_connected_entities", {"guild_id": LONG}),
        ("start", {"guild_id": G1, "q": LONG}),
        ("around", {"guild_id": G1, "label": "User", "key": LONG}),
        ("history", {"guild_id": LONG, "label": "User", "key": "1"}),
        ("around", {"guild_id": G1, "label": "User", "key": "1", "limit": "9" * 5000}),
    ],
)
async def test_the_explorer_answers_400(api: httpx.AsyncClient, path: str, params: dict[str, Any]) -> None:
    response = await api.get(f"/{TOKEN}/api/{path}", params=params)
    assert response.status_code == 400, response.text[:500]
    assert len(response.json()["error"]) < 300


def test_a_value_that_looks_like_markup_is_printed_as_it_is(tmp_path: Path) -> None:
    from tests.security.cli import grapevine as command

    done = command(tmp_path, "query", "most_connected_entities", f"-pguild_id={G1}", "-plimit=[/x]")
    assert done.returncode == 2 and "Traceback" not in done.stdout + done.stderr, done.stderr[-2000:]
    assert "limit must be int, got '[/x]'" in done.stderr
