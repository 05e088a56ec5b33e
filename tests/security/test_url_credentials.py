"""Credentials written into a URL (LLM_BASE_URL=http://user:pass@host/v1, NEO4J_URI=bolt://user:pass@host) are
masked wherever a URL is printed or logged: `grapevine doctor`, a command's error line, the LLM's error lines,
every log event, and the settings' repr."""

from __future__ import annotations

import json
import logging
from pathlib import Path

import pytest

from common import events
from common.settings import LLMSettings, Neo4jSettings, Settings
from common.urls import mask_credentials
from llm.probe import check_reachable
from tests.security.cli import grapevine
from tests.support.event_log import events_to
from tests.support.ports import free_port

LLM_SECRET = "llm-url-secret-7f3a"
NEO_SECRET = "neo-url-secret-9c1d"


@pytest.mark.parametrize(
    ("text", "masked"),
    [
        ("http://user:pass@host/v1", "http://***@host/v1"),
        ("https://token@api.example.com:8443/v1?x=1", "https://***@api.example.com:8443/v1?x=1"),
        ("bolt://neo4j:p@ss@db:7687", "bolt://***@db:7687"),  # an @ in the password: masked whole
        ("neo4j+s://u:p@x.databases.neo4j.io", "neo4j+s://***@x.databases.neo4j.io"),
        ("failed at http://a:b@h/v1 then http://c:d@g/v2.", "failed at http://***@h/v1 then http://***@g/v2."),
        ("http://host/v1 and mail bob@example.com", "http://host/v1 and mail bob@example.com"),
        ("http://host/path@v1", "http://host/path@v1"),  # an @ in the path is no credential
    ],
)
def test_mask_credentials(text: str, masked: str) -> None:
    assert mask_credentials(text) == masked


def test_cli_lines_never_show_url_credentials(tmp_path: Path) -> None:
    env = {
        "GRAPEVINE_DATA_DIR": str(tmp_path / "data"),
        "GRAPEVINE_ENGINE": "neo4j",
        "NEO4J_URI": f"bolt://neo4j:{NEO_SECRET}@127.0.0.1:{free_port()}",
        "NEO4J_PASSWORD": "x",
        "LLM_BASE_URL": f"http://user:{LLM_SECRET}@127.0.0.1:{free_port()}/v1",
        "LLM_TIMEOUT": "2",
    }
    for command in (["doctor"], ["stats"]):
        done = grapevine(tmp_path, *command, **env)
        shown = done.stdout + done.stderr + "".join(p.read_text() for p in (tmp_path / "data").rglob("*.log"))
        assert done.returncode != 0 and "Traceback" not in shown
        assert "127.0.0.1" in shown and "***@" in shown, shown  # the URL is still named, its credentials are not
        assert LLM_SECRET not in shown and NEO_SECRET not in shown, shown


async def test_the_llm_check_names_the_endpoint_without_its_credentials() -> None:
    url = f"http://user:{LLM_SECRET}@127.0.0.1:{free_port()}/v1"
    message = await check_reachable(LLMSettings(base_url=url, timeout=2))
    assert message and "127.0.0.1" in message and LLM_SECRET not in message, message


def test_log_events_mask_url_credentials(tmp_path: Path) -> None:
    with events_to(tmp_path / "events.jsonl") as log:
        url = f"http://user:{LLM_SECRET}@127.0.0.1:9/v1"
        events.emit("llm", "call_failed", error=f"refused by {url}", nested={"url": [f"bolt://n:{NEO_SECRET}@db"]})
        logging.getLogger("somewhere").warning("retrying %s", url)
    text = log.read_text()
    assert LLM_SECRET not in text and NEO_SECRET not in text, text
    assert [json.loads(line)["subsystem"] for line in text.splitlines()] == ["llm", "somewhere"]


def test_no_secret_in_the_settings_repr() -> None:
    settings = Settings(
        llm=LLMSettings(base_url=f"http://user:{LLM_SECRET}@host/v1", api_key="sk-abc123"),
        neo4j=Neo4jSettings(uri=f"bolt://neo4j:{NEO_SECRET}@db:7687", password="hunter22", reader_password="r3ader"),
    )
    for shown in (repr(settings), str(settings), repr(settings.llm), repr(settings.neo4j)):
        for secret in (LLM_SECRET, NEO_SECRET, "sk-abc123", "hunter22", "r3ader"):
            assert secret not in shown, shown
    assert "host/v1" in repr(settings.llm)
