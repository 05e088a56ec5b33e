"""Issue 16, finding 1: messages an import stored but never put in a window (the import crashed between
the two) stayed `buffered` for good: `ingest --pending` said "still pending 0" and `stats` did not show
them. The state is made here as a crashed import leaves it: guild, channel, users and messages written,
no window closed; then the CLI is run on that data directory as an operator would."""

from __future__ import annotations

import asyncio
import os
from datetime import UTC, datetime, timedelta
from pathlib import Path

from grapevine.config import load_settings
from grapevine.runtime import open_store
from graph.models import Channel, Guild, Message, User
from tests.faults.test_cli_faults import grapevine
from tests.support.ports import free_port
from tests.support.scripted import answer
from tests.support.scripted_llm import ScriptedLLMServer

GUILD, CHANNEL = "800000000000000001", "810000000000000001"
ALICE = User(id="330000000000000001", name="alice", display_name="Alice")
T0 = datetime(2024, 9, 10, 9, 0, tzinfo=UTC)


def _messages(now: datetime) -> list[Message]:
    """Three old conversations a day apart, and one that is still going on (a minute ago)."""
    old = [
        Message(id=f"82000000000000{c}{i:02d}", guild_id=GUILD, channel_id=CHANNEL, author_id=ALICE.id,
                content=f"conversation {c} message {i}", created_at=T0 + timedelta(days=c, minutes=i))
        for c in range(3) for i in range(4)
    ]  # fmt: skip
    recent = Message(id="829999999999999999", guild_id=GUILD, channel_id=CHANNEL, author_id=ALICE.id,
                     content="still talking", created_at=now - timedelta(minutes=1))  # fmt: skip
    return [*old, recent]


async def _crashed_import(env: dict[str, str]) -> None:
    saved = dict(os.environ)
    os.environ.update(env)
    try:
        settings = load_settings()
    finally:
        os.environ.clear()
        os.environ.update(saved)
    async with open_store(settings) as rt:
        await rt.store.upsert_guild(Guild(id=GUILD, name="g"))
        await rt.store.upsert_channel(Channel(id=CHANNEL, guild_id=GUILD, name="general"))
        await rt.store.upsert_users([ALICE])
        await rt.store.record_messages(_messages(datetime.now(UTC)))


def test_ingest_pending_windows_what_a_crashed_import_left(tmp_path: Path) -> None:
    env = {
        "GRAPEVINE_DATA_DIR": str(tmp_path / "data"),
        "ARCADEDB_BOLT_PORT": str(free_port()),
        "ARCADEDB_HTTP_PORT": str(free_port()),
        "WINDOW_QUIET_SECONDS": "3600",
    }  # the open one stays open however slow the run
    asyncio.run(_crashed_import(env))

    shown = grapevine(tmp_path, "stats", **env)
    assert shown.returncode == 0, shown.stderr
    assert "no window yet" in shown.stdout and "13" in shown.stdout, shown.stdout

    with ScriptedLLMServer() as llm:
        llm.responder = lambda request: answer("Alice talked.")
        done = grapevine(tmp_path, "ingest", "--pending", **env, LLM_BASE_URL=llm.base_url, LLM_API_KEY="k",
                         LLM_MODEL="m")  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert "12 messages in no window yet made 3 windows; 1 wait in windows still open" in done.stdout, done.stdout
    assert "done 3," in done.stdout, done.stdout
    assert llm.calls == 3

    after = grapevine(tmp_path, "stats", **env)
    rows = [line.split("│") for line in after.stdout.splitlines() if CHANNEL in line]
    assert [cell.strip() for cell in rows[0][1:4]] == [GUILD, CHANNEL, "1"], after.stdout  # the open one waits
