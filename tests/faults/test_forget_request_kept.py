"""`grapevine forget` keeps its request on disk before anything is written: a run that fails part-way says in one
line what did not happen and what comes next (no statement text, no traceback), exits 1, and the next run (or the
bot's upkeep) finishes the request, its audit included."""

from __future__ import annotations

import asyncio
import json
import os
from pathlib import Path

import pytest
from neo4j.exceptions import Neo4jError
from typer.testing import CliRunner

import graph.privacy.forget
from grapevine.cli import app
from grapevine.ownership import DataDirLock
from graph.engines.arcadedb import ArcadeDBEngine
from graph.privacy.requests import FILE_NAME
from graph.schema import setup_schema
from tests.faults.test_cli_faults import grapevine
from tests.support.busy_server import PEOPLE, populate
from tests.support.ports import free_port

CHARLIE = PEOPLE["charlie"]
REFUSED = (
    "Error executing Cypher command: // Forget-me, messages by id\nUNWIND $ids AS mid\nMATCH (m:Message {id: mid})\n"
    "DETACH DELETE m"
)


def _env(engine: ArcadeDBEngine, data: Path) -> dict[str, str]:
    clean = {k: v for k, v in os.environ.items() if not k.startswith(("GRAPEVINE_", "NEO4J_", "ARCADEDB_", "LLM_"))}
    return clean | {
        "GRAPEVINE_DATA_DIR": str(data),
        "ARCADEDB_EXTERNAL": "true",
        "ARCADEDB_HOST": engine.host,
        "ARCADEDB_BOLT_PORT": str(engine.bolt_port),
        "ARCADEDB_HTTP_PORT": str(engine.http_port),
        "ARCADEDB_DATABASE": engine.database,
        "ARCADEDB_PASSWORD": engine.password,
        "COLUMNS": "200",
    }


def test_a_cli_forget_that_fails_keeps_its_request_for_the_next_run(
    arcadedb_server: ArcadeDBEngine, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    engine = arcadedb_server.for_database(f"t{os.urandom(6).hex()}")

    async def create() -> None:
        await engine.create_database()
        from graph.store import GraphStore

        driver = engine.driver()
        store = GraphStore(driver, engine)
        await setup_schema(store)
        await populate(store)
        await driver.close()

    asyncio.run(create())
    try:
        env = _env(engine, tmp_path / "data")
        real = graph.privacy.forget.run_request

        async def refused(*args: object, **kwargs: object) -> object:
            raise Neo4jError._hydrate_neo4j(code="Neo.ClientError.Statement.EntityNotFound", message=REFUSED)

        monkeypatch.setattr(graph.privacy.forget, "run_request", refused)
        failed = CliRunner().invoke(app, ["forget", CHARLIE, "--yes", "--no-purge"], env=env)
        assert failed.exit_code == 1
        said = failed.stdout + failed.stderr
        assert "Traceback" not in said and "UNWIND" not in said and "MATCH" not in said, said
        lines = [line for line in failed.stderr.splitlines() if line.strip()]
        assert len(lines) == 1 and "did not finish" in lines[0] and FILE_NAME in lines[0], failed.stderr
        [kept] = [json.loads(line) for line in (tmp_path / "data" / FILE_NAME).read_text().splitlines()]
        assert kept["user_id"] == CHARLIE and kept["guild_id"] is None and "scope" in kept

        monkeypatch.setattr(graph.privacy.forget, "run_request", real)
        again = CliRunner().invoke(app, ["forget", CHARLIE, "--yes", "--no-purge"], env=env)
        assert again.exit_code == 0, again.stdout + again.stderr
        assert "residue audit: 0 nodes" in again.stdout
        assert not (tmp_path / "data" / FILE_NAME).exists()
    finally:
        asyncio.run(engine.drop_database())


def test_a_forget_on_a_data_directory_another_command_holds_keeps_its_request(tmp_path: Path) -> None:
    """The line says the request is kept: it is, though the engine was never opened."""
    data = tmp_path / "data"
    env = {"GRAPEVINE_DATA_DIR": str(data), "ARCADEDB_BOLT_PORT": str(free_port()), "ARCADEDB_HTTP_PORT": str(free_port()),
           "PYTHONPATH": str(Path(__file__).resolve().parents[2])}  # this checkout's code, not the one installed  # fmt: skip
    held = DataDirLock(data)
    assert held.acquire("grapevine import", shared=False)
    try:
        done = grapevine(tmp_path, "forget", CHARLIE, "--yes", **env)
    finally:
        held.release()
    assert done.returncode == 1 and "Traceback" not in done.stderr
    said = " ".join(done.stderr.split())
    assert "is in use by `grapevine import`" in said and "the request is kept in" in said, said
    [kept] = [json.loads(line) for line in (data / FILE_NAME).read_text().splitlines()]
    assert kept["user_id"] == CHARLIE and kept["guild_id"] is None


def test_a_forget_with_a_wrong_password_says_only_what_is_true(arcadedb_server: ArcadeDBEngine, tmp_path: Path) -> None:
    env = _env(arcadedb_server, tmp_path / "data") | {"ARCADEDB_PASSWORD": "not-the-password"}
    done = CliRunner().invoke(app, ["forget", CHARLIE, "--yes", "--no-purge"], env=env)
    assert done.exit_code == 1
    said = " ".join(done.stderr.split())
    assert "the request is kept in" in said, said
    [kept] = [json.loads(line) for line in (tmp_path / "data" / FILE_NAME).read_text().splitlines()]
    assert kept["user_id"] == CHARLIE
