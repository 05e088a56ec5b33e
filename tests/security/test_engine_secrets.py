"""The embedded engine gets its secrets by a channel no other local user can read: no process grapevine starts
shows a password, key or token in its arguments or its environment (both readable in /proc)."""

from __future__ import annotations

import asyncio
import os
import secrets
from pathlib import Path

import pytest

from graph.engines.arcadedb import ArcadeDBEngine, ArcadeDBServer
from tests.support.ports import free_port


def descendants(pid: int) -> list[int]:
    """Every living process below `pid` (children, their children...)."""
    parents: dict[int, int] = {}
    for proc in Path("/proc").iterdir():
        if not proc.name.isdigit():
            continue
        try:
            parents[int(proc.name)] = int((proc / "stat").read_text().rsplit(")", 1)[1].split()[1])
        except (OSError, IndexError, ValueError):
            continue
    found, frontier = [], [pid]
    while frontier:
        current = frontier.pop()
        children = [child for child, parent in parents.items() if parent == current]
        found += children
        frontier += children
    return found


def shown(pid: int) -> bytes:
    """What /proc shows of a process's arguments and environment."""
    text = b""
    for name in ("cmdline", "environ"):
        try:
            text += Path(f"/proc/{pid}/{name}").read_bytes() + b"\0"
        except OSError:
            pass
    return text


@pytest.mark.slow
async def test_no_process_grapevine_starts_shows_a_secret(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    password = "root-" + secrets.token_hex(12)
    others = {
        "ARCADEDB_PASSWORD": password,  # the operator's configuration, in grapevine's own environment
        "NEO4J_PASSWORD": "neo-" + secrets.token_hex(8),
        "LLM_API_KEY": "sk-" + secrets.token_hex(8),
        "DISCORD_TOKEN": "discord-" + secrets.token_hex(8),
        "LLM_BASE_URL": f"http://user:url-{secrets.token_hex(6)}@127.0.0.1:9/v1",
    }
    for key, value in others.items():
        monkeypatch.setenv(key, value)
    engine = ArcadeDBEngine(password=password, database="secrets", bolt_port=free_port(), http_port=free_port())
    server = ArcadeDBServer(tmp_path / "engine", engine, heap="512m")
    await asyncio.to_thread(server.start)
    try:
        reader = await engine.reader_driver()  # the read-only user exists now, with its own password
        try:
            await reader.verify_connectivity()
        finally:
            await reader.close()
        _, reader_password = engine.reader_auth()
        pids = [server.pid, *descendants(server.pid)]
        assert all(Path(f"/proc/{pid}").exists() for pid in pids)  # noqa: ASYNC240 - /proc answers from memory
        secret_values = [password, reader_password, *others.values(), "url-"]
        for pid in pids:
            listing = shown(pid)
            assert b"arcadedb_child" in listing or pid != server.pid
            leaked = [value for value in secret_values if value.encode() in listing]
            assert leaked == [], f"process {pid} shows {len(leaked)} secret(s) in /proc/{pid}/cmdline or environ"
    finally:
        await asyncio.to_thread(server.stop)
    assert "ARCADEDB_PASSWORD" in os.environ  # the test changed only grapevine's children, not itself
    written = [p for p in (tmp_path / "engine").rglob("*") if p.is_file() and password.encode() in p.read_bytes()]
    assert written == []  # nor in the engine's logs or files (its users file keeps a salted hash)


def test_no_secret_in_a_repr(tmp_path: Path) -> None:
    from grapevine.ownership import OwnerRecord
    from graph.engines.neo4j import Neo4jEngine

    engine = ArcadeDBEngine(password="root-secret-1", database="d")
    shown = [
        repr(engine),
        repr(engine.for_database("other")),
        repr(ArcadeDBServer(tmp_path, engine)),
        repr(
            Neo4jEngine("bolt://u:uri-secret-2@db:7687", "neo4j", "neo-secret-3", reader_user="r", reader_password="r-secret-4")
        ),
        repr(OwnerRecord(pid=1, command="grapevine run", shared=True, token="token-secret-5")),
    ]
    secrets_given = ("root-secret-1", "uri-secret-2", "neo-secret-3", "r-secret-4", "token-secret-5")
    for text in shown:
        assert not [value for value in secrets_given if value in text], text
