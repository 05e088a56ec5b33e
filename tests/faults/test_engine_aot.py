"""The JDK's AOT cache kept across engine starts (graph/engines/arcadedb_aot.py): a first run records it as the
engine stops, the next start maps it, and a cache the JVM cannot use (broken, or of other options) never stops
the engine from serving."""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest
from neo4j import GraphDatabase

from grapevine.runtime import aot_folder
from graph.engines.arcadedb import ArcadeDBEngine, ArcadeDBServer
from graph.engines.arcadedb_aot import AotCache, java_major
from graph.engines.arcadedb_child import jvm_args
from tests.support.ports import free_port


def test_the_java_version_is_read_from_the_jre_release_file() -> None:
    assert java_major('IMPLEMENTOR="x"\nJAVA_VERSION="25.0.4.1"\n') == 25
    assert java_major('JAVA_VERSION="24"') == 24
    assert java_major('JAVA_VERSION="1.8.0_402"') == 0
    assert java_major("MODULES=java.base") == 0


def test_other_jvm_options_mean_another_cache_and_the_old_one_goes(tmp_path: Path) -> None:
    first = AotCache(str(tmp_path), jvm_args("1g"))
    if not first.options():
        pytest.skip("the bundled JRE is older than 25: no AOT cache")
    Path(first.cache).write_bytes(b"recorded earlier")
    assert AotCache(str(tmp_path), jvm_args("2g")).options() == [f"-XX:AOTCache={first.cache}"]  # the heap is not in it
    other = AotCache(str(tmp_path), [*jvm_args("1g"), "-XX:+UseSerialGC"])
    assert other.options()[0] == "-XX:AOTMode=record" and other.training
    assert not Path(first.cache).exists()


def test_a_short_command_maps_a_cache_but_never_records_one(tmp_path: Path) -> None:
    short = AotCache(str(tmp_path), jvm_args("1g"), record=False)
    if not AotCache(str(tmp_path / "probe"), jvm_args("1g")).options():
        pytest.skip("the bundled JRE is older than 25: no AOT cache")
    assert short.options() == [] and not short.training
    Path(short.cache).write_bytes(b"recorded by the bot")
    assert AotCache(str(tmp_path), jvm_args("1g"), record=False).options() == [f"-XX:AOTCache={short.cache}"]


def test_recording_processes_keep_their_configurations_apart(tmp_path: Path) -> None:
    one = AotCache(str(tmp_path), jvm_args("1g"))
    if not one.options():
        pytest.skip("the bundled JRE is older than 25: no AOT cache")
    assert one.options()[1].endswith(f".{os.getpid()}.aotconf")


def test_the_runtime_keeps_one_cache_per_machine(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    assert aot_folder() == tmp_path / "grapevine" / "arcadedb-aot"


def _answers(engine: ArcadeDBEngine) -> bool:
    with GraphDatabase.driver(engine.uri, auth=("root", engine.password)) as driver:
        records, _, _ = driver.execute_query("RETURN 1 AS one", database_=engine.database)
        return bool(records[0]["one"] == 1)


def _maps(pid: int, name: str) -> bool:
    return name in Path(f"/proc/{pid}/maps").read_text()


@pytest.mark.slow
def test_a_cache_recorded_at_stop_is_mapped_by_the_next_start_and_a_broken_one_is_harmless(tmp_path: Path) -> None:
    engine = ArcadeDBEngine(password="aot-tests", database="aot", bolt_port=free_port(), http_port=free_port())
    folder = tmp_path / "aot"
    server = ArcadeDBServer(tmp_path / "engine", engine, heap="512m", aot=True, aot_dir=folder)
    with server:
        assert _answers(engine)
    deadline = time.monotonic() + 300  # the cache is created by a detached process after the engine stopped
    while not list(folder.glob("engine-*.aot")) and time.monotonic() < deadline:
        time.sleep(1)
    caches = list(folder.glob("engine-*.aot"))
    if not caches and not list(folder.glob("engine-*")):
        pytest.skip("the bundled JRE is older than 25: no AOT cache")
    assert len(caches) == 1, list(folder.iterdir())
    with server:
        assert _answers(engine) and _maps(server.pid, caches[0].name)
    caches[0].write_bytes(b"\0" * 4096)  # broken: the JVM says so and runs without it
    with server:
        assert _answers(engine)
