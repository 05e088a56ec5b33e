"""`grapevine doctor` asks Discord whether it accepts the bot token and whether the privileged intent the bot
asks for (Message Content) is on, against a fake of Discord's REST API; an unreachable Discord is one line."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from pydantic import SecretStr

from bot.app import permissions
from common.settings import DiscordSettings
from grapevine.discord_check import Finding, check_discord
from tests.support.discord_api import APPLICATION_ID, GUILD_MEMBERS_LIMITED, MESSAGE_CONTENT, FakeDiscordAPI
from tests.support.ports import free_port

TOKEN = "MTMyMjIyMjIyMjIyMjIyMjIyMg.GfAkEt.a-token-that-must-never-be-printed"
REPO = Path(__file__).resolve().parents[3]


async def _check(api_url: str, token: str = TOKEN) -> list[Finding]:
    return await check_discord(DiscordSettings(token=SecretStr(token), api_url=api_url), timeout=5)


async def test_a_working_token_with_the_intent_on_gives_the_bot_and_the_invite_link() -> None:
    with FakeDiscordAPI(token=TOKEN) as api:
        found = await _check(api.api_url)
    assert all(f.ok for f in found), found
    texts = [f.text for f in found]
    assert texts[0] == "Discord accepts DISCORD_TOKEN: the bot grapevine (id 1322222222222222222)"
    assert texts[1].startswith("the Message Content intent is on for grapevine (3 servers)")
    assert texts[2] == (
        f"invite link: https://discord.com/oauth2/authorize?client_id={APPLICATION_ID}"
        "&scope=bot+applications.commands&permissions=274877975552"
    )
    assert [(path, headers["Authorization"]) for path, headers in api.requests] == [
        ("/api/v10/users/@me", f"Bot {TOKEN}"),
        ("/api/v10/applications/@me", f"Bot {TOKEN}"),
    ]


async def test_the_verified_intent_counts_as_on() -> None:
    with FakeDiscordAPI(token=TOKEN, flags=MESSAGE_CONTENT, guilds=250) as api:
        found = await _check(api.api_url)
    assert all(f.ok for f in found) and "(250 servers)" in found[1].text, found


async def test_a_refused_token_is_one_finding_that_does_not_show_it() -> None:
    with FakeDiscordAPI(token=TOKEN) as api:
        found = await _check(api.api_url, token=TOKEN[:-3] + "old")
    assert len(found) == 1 and not found[0].ok
    assert found[0].text.startswith("Discord refused DISCORD_TOKEN (HTTP 401 (401: Unauthorized))"), found
    assert "a-token" not in found[0].text and TOKEN[:20] not in found[0].text
    assert len(api.requests) == 1  # nothing more is asked with a token Discord refused


async def test_the_message_content_intent_off_is_named_with_where_to_turn_it_on() -> None:
    with FakeDiscordAPI(token=TOKEN, flags=GUILD_MEMBERS_LIMITED) as api:  # another intent on, not this one
        found = await _check(api.api_url)
    problems = [f.text for f in found if not f.ok]
    assert problems == [
        "the Message Content intent is off, so Discord would refuse the bot's connection: turn it on "
        "(Developer Portal > your application > Bot > Privileged Gateway Intents)"
    ]


async def test_an_unreachable_discord_is_one_finding() -> None:
    found = await _check(f"http://127.0.0.1:{free_port()}/api/v10")
    assert len(found) == 1 and not found[0].ok
    assert found[0].text.startswith("Discord unreachable at http://127.0.0.1:") and "not checked" in found[0].text


async def test_a_discord_outage_is_one_finding_with_its_status() -> None:
    with FakeDiscordAPI(token=TOKEN, status=503) as api:
        url = api.api_url
        found = await _check(url)
    assert [f.text for f in found] == [
        f"Discord answered HTTP 503 (503: scripted) at {url}; the token and intents were not checked"
    ]


async def test_no_token_asks_nothing() -> None:
    found = await check_discord(DiscordSettings(token=None, api_url=f"http://127.0.0.1:{free_port()}/api/v10"))
    assert [f.ok for f in found] == [False] and found[0].text.startswith("DISCORD_TOKEN is not set")


def test_the_permissions_of_the_invite_are_those_docs_discord_setup_gives() -> None:
    """The page a newcomer follows and the link doctor prints ask for the same permissions, by their names in
    Discord's settings."""
    page = (REPO / "docs" / "discord-setup.md").read_text(encoding="utf-8")
    labels = {"read_messages": "View Channels", "send_messages": "Send Messages", "read_message_history": "Read Message History",
              "send_messages_in_threads": "Send Messages in Threads"}  # fmt: skip
    assert {name for name, on in permissions() if on} == set(labels)  # discord.py names View Channels read_messages
    assert str(permissions().value) in page and all(f"**{label}**" in page for label in labels.values())


def _doctor(tmp_path: Path, **env: str) -> subprocess.CompletedProcess[str]:
    """`grapevine doctor` with an engine that is not there (a finding of its own, found fast) and no LLM."""
    clean = {k: v for k, v in os.environ.items() if not k.startswith(("GRAPEVINE_", "NEO4J_", "ARCADEDB_", "LLM_", "DISCORD_"))}
    engine = {"GRAPEVINE_ENGINE": "neo4j", "NEO4J_URI": f"bolt://127.0.0.1:{free_port()}", "NEO4J_PASSWORD": "x"}
    return subprocess.run([sys.executable, "-m", "grapevine", "doctor"], env={**clean, **engine, **env, "COLUMNS": "100"},
                          capture_output=True, text=True, timeout=300, cwd=tmp_path)  # fmt: skip


def _discord_lines(done: subprocess.CompletedProcess[str]) -> list[str]:
    lines = [
        line for line in (done.stdout + done.stderr).splitlines() if "Discord" in line or "intent" in line or "invite" in line
    ]
    return [" ".join(line.split()) for line in lines]


@pytest.mark.parametrize(
    ("flags", "token", "says"),
    [
        (MESSAGE_CONTENT, TOKEN, ["✓ Discord accepts DISCORD_TOKEN: the bot grapevine (id 1322222222222222222)",
                                  "✓ the Message Content intent is on for grapevine (3 servers)",
                                  "✓ invite link: https://discord.com/oauth2/authorize?client_id=1311111111111111111"
                                  "&scope=bot+applications.commands&permissions=274877975552"]),
        (MESSAGE_CONTENT, "an-old-token", ["✗ Discord: Discord refused DISCORD_TOKEN (HTTP 401 (401: Unauthorized)): copy the "
                                           "token again (Developer Portal > your application > Bot > Reset Token)"]),
        (0, TOKEN, ["✓ Discord accepts DISCORD_TOKEN: the bot grapevine (id 1322222222222222222)",
                    "✓ invite link: https://discord.com/oauth2/authorize?client_id=1311111111111111111"
                    "&scope=bot+applications.commands&permissions=274877975552",
                    "✗ Discord: the Message Content intent is off, so Discord would refuse the bot's connection: turn it on "
                    "(Developer Portal > your application > Bot > Privileged Gateway Intents)"]),
    ],
    ids=["ok", "bad-token", "intent-off"],
)  # fmt: skip
def test_doctor_prints_what_discord_says(tmp_path: Path, flags: int, token: str, says: list[str]) -> None:
    with FakeDiscordAPI(token=TOKEN, flags=flags) as api:
        done = _doctor(tmp_path, DISCORD_TOKEN=token, DISCORD_API_URL=api.api_url)
    assert done.returncode == 1  # the engine and the LLM are not there
    assert "Traceback" not in done.stdout + done.stderr
    assert _discord_lines(done) == says, done.stdout + done.stderr
    assert token not in done.stdout + done.stderr


def test_doctor_says_in_one_line_that_discord_is_unreachable(tmp_path: Path) -> None:
    done = _doctor(tmp_path, DISCORD_TOKEN=TOKEN, DISCORD_API_URL=f"http://127.0.0.1:{free_port()}/api/v10")
    assert done.returncode == 1 and "Traceback" not in done.stdout + done.stderr
    lines = _discord_lines(done)
    assert len(lines) == 1 and lines[0].startswith("✗ Discord: Discord unreachable at http://127.0.0.1:"), lines
    assert lines[0].endswith("; the token and intents were not checked")
    assert TOKEN not in done.stdout + done.stderr
