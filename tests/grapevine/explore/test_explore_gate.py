"""The explorer's door (gate.py): the token, the Host header, the response headers; and the
command's refusal to listen beyond loopback (server.py, command.py). No database."""

from __future__ import annotations

import hmac

import httpx
import pytest
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import PlainTextResponse
from starlette.routing import Route
from typer.testing import CliRunner

from grapevine.cli import app as cli
from grapevine.explore.gate import LOOPBACK_HOSTS, TokenGate, host_of
from grapevine.explore.server import bind, check_host, is_loopback
from tests.grapevine.explore.conftest import TOKEN


def behind_gate(hosts: frozenset[str] | None = LOOPBACK_HOSTS) -> httpx.AsyncClient:
    async def hello(request: Request) -> PlainTextResponse:
        return PlainTextResponse(f"hello from {request.url.path}")

    app = TokenGate(Starlette(routes=[Route("/", hello), Route("/api/x", hello)]), token=TOKEN, hosts=hosts)
    return httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://127.0.0.1:8474")


async def test_only_the_token_opens_the_door() -> None:
    async with behind_gate() as client:
        assert (await client.get(f"/{TOKEN}/api/x")).status_code == 200
        for path in (
            "/",
            "/api/x",
            "/favicon.ico",
            f"/{TOKEN[:-1]}/api/x",
            f"/{TOKEN}x/api/x",
            "/static/js/main.js",
            f"/x/{TOKEN}/api/x",
            f"/api/x?token={TOKEN}",
        ):
            response = await client.get(path)
            assert response.status_code == 403, path
            assert "open the explorer with the address `grapevine explore` printed" in response.text
        redirect = await client.get(f"/{TOKEN}")
        assert redirect.status_code == 307 and redirect.headers["location"] == f"/{TOKEN}/"


async def test_the_token_is_compared_in_constant_time(monkeypatch: pytest.MonkeyPatch) -> None:
    seen = []

    def compare(a: bytes, b: bytes) -> bool:
        seen.append((a, b))
        return a == b

    monkeypatch.setattr(hmac, "compare_digest", compare)  # the module the gate compares with
    async with behind_gate() as client:
        assert (await client.get("/guess/api/x")).status_code == 403
    assert seen == [(b"guess", TOKEN.encode())]


async def test_a_foreign_host_header_is_refused_unless_any_host_is_allowed() -> None:
    async with behind_gate() as client:
        for host in ("localhost:8474", "127.0.0.1", "[::1]:8474"):
            assert (await client.get(f"/{TOKEN}/", headers={"host": host})).status_code == 200, host
        refused = await client.get(f"/{TOKEN}/", headers={"host": "evil.example:8474"})
        assert refused.status_code == 403 and "is not this loopback server" in refused.text
    async with behind_gate(hosts=None) as client:
        assert (await client.get(f"/{TOKEN}/", headers={"host": "grapevine.lan:8474"})).status_code == 200


async def test_every_answer_carries_the_safety_headers() -> None:
    async with behind_gate() as client:
        for response in (await client.get(f"/{TOKEN}/"), await client.get("/nope")):
            assert response.headers["content-security-policy"].startswith("default-src 'none'; script-src 'self';")
            assert "unsafe" not in response.headers["content-security-policy"]
            assert response.headers["cache-control"] == "no-store"
            assert response.headers["x-content-type-options"] == "nosniff"
            assert response.headers["referrer-policy"] == "no-referrer"


def test_host_of_strips_the_port() -> None:
    assert [host_of(h) for h in ("127.0.0.1:80", "localhost", "[::1]:8474", "[::1]")] == [
        "127.0.0.1",
        "localhost",
        "[::1]",
        "[::1]",
    ]


def test_short_tokens_are_refused() -> None:
    with pytest.raises(ValueError, match="too short"):
        TokenGate(Starlette(), token="abc")


def test_loopback_only_unless_told() -> None:
    assert all(map(is_loopback, ["127.0.0.1", "127.0.0.2", "localhost", "::1", "[::1]"]))
    assert not any(map(is_loopback, ["0.0.0.0", "192.168.1.5", "::", "example.org", ""]))
    check_host("127.0.0.1", allow_remote=False)
    check_host("0.0.0.0", allow_remote=True)
    with pytest.raises(ValueError, match="0.0.0.0 is not a loopback address.*--allow-remote"):
        check_host("0.0.0.0", allow_remote=False)


def test_the_command_refuses_a_non_loopback_host_before_starting_anything() -> None:
    result = CliRunner().invoke(cli, ["explore", "--host", "0.0.0.0"])
    assert result.exit_code == 2
    assert "is not a loopback address" in result.output and "--allow-remote" in result.output


def test_a_port_in_use_is_reported() -> None:
    first = bind("127.0.0.1", 0)
    try:
        with pytest.raises(OSError, match=r"cannot listen on 127.0.0.1:\d+: .*--port"):
            bind("127.0.0.1", first.getsockname()[1])
    finally:
        first.close()
