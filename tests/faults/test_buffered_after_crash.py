"""Messages an import stored but never put in a window (the import crashed between
the two) stayed `buffered` for good: `ingest --pending` said "still pending 0" and `stats` did not show
them. The state is made here as a crashed import leaves it: guild, channel, users and messages written,
no window closed; then the CLI is run on that data directory as an operator would."""

from __future__ import annotations

import asyncio
import os
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from common.settings import Settings
from grapevine.config import load_settings
from grapevine.runtime import open_store
from graph.models import Channel, Guild, Message, User
from graph.writes.discord_records import upsert_channel, upsert_guild, upsert_users
from graph.writes.messages import record_messages
from tests.faults.test_cli_faults import grapevine
from tests.support.ports import free_port
from tests.support.prompt_reader import Prompt, batch_parts
from tests.support.scripted import answer, batch_aware, fact, graph_facts
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


def _settings(env: dict[str, str]) -> Settings:
    saved = dict(os.environ)
    os.environ.update(env)
    try:
        return load_settings()
    finally:
        os.environ.clear()
        os.environ.update(saved)


async def _crashed_import(env: dict[str, str]) -> None:
    async with open_store(_settings(env)) as rt:
        await upsert_guild(rt.store, Guild(id=GUILD, name="g"))
        await upsert_channel(rt.store, Channel(id=CHANNEL, guild_id=GUILD, name="general"))
        await upsert_users(rt.store, [ALICE])
        await record_messages(rt.store, _messages(datetime.now(UTC)))


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
        llm.responder = batch_aware(lambda request: answer("Alice talked."))
        done = grapevine(tmp_path, "ingest", "--pending", **env, LLM_BASE_URL=llm.base_url, LLM_API_KEY="k",
                         LLM_MODEL="m")  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert "12 messages in no window yet made 3 windows; 1 wait in windows still open" in done.stdout, done.stdout
    assert "done 3," in done.stdout, done.stdout
    assert llm.calls == 1  # the batch count: the three closed windows of the guild go in one call

    after = grapevine(tmp_path, "stats", **env)
    rows = [line.split("│") for line in after.stdout.splitlines() if CHANNEL in line]
    assert [cell.strip() for cell in rows[0][1:4]] == [GUILD, CHANNEL, "1"], after.stdout  # the open one waits


def first_line(request: dict[str, Any]) -> dict[str, Any]:
    """One window's answer: a fact from its first message, so each episode's facts show whose they are."""
    prompt = Prompt(request)
    first = next(iter(prompt.messages.values()))
    return answer("Alice talked.", facts=[fact(f"Alice said {first.content}", about=[first.author_ref], source=[first.ref])])


async def facts_by_episode(env: dict[str, str]) -> dict[str, set[str]]:
    async with open_store(_settings(env)) as rt:
        found: dict[str, set[str]] = {}
        for f in await graph_facts(rt.store, GUILD):
            for episode in f.episodes:
                found.setdefault(episode, set()).add(f.text)
        return found


def test_ingest_pending_extracts_three_pending_windows_of_a_guild_in_one_call(tmp_path: Path) -> None:
    env = {
        "GRAPEVINE_DATA_DIR": str(tmp_path / "data"),
        "ARCADEDB_BOLT_PORT": str(free_port()),
        "ARCADEDB_HTTP_PORT": str(free_port()),
        "WINDOW_QUIET_SECONDS": "3600",
    }
    asyncio.run(_crashed_import(env))

    with ScriptedLLMServer() as llm:
        llm.responder = batch_aware(first_line)
        done = grapevine(tmp_path, "ingest", "--pending", **env, LLM_BASE_URL=llm.base_url, LLM_API_KEY="k",
                         LLM_MODEL="m")  # fmt: skip
    assert done.returncode == 0, done.stderr
    said = " ".join(done.stdout.split())  # the console wraps lines
    assert "done 3," in said and "; 1 calls," in said, done.stdout
    assert llm.calls == 1
    assert [head for head, _ in batch_parts(llm.requests[0])] == ["W1", "W2", "W3"]
    by_episode = asyncio.run(facts_by_episode(env))
    wanted = [{f"Alice said conversation {c} message 0"} for c in range(3)]  # three episodes, each its own window's
    assert sorted(by_episode.values(), key=sorted) == wanted, by_episode
