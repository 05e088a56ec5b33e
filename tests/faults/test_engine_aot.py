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


def _install(folder: Path, stamp: float) -> tuple[str, str]:
    """A bundled runtime as a package install lays it out: a JRE 25 `release` file and the engine's jars."""
    (folder / "jre").mkdir(parents=True)
    (folder / "jre" / "release").write_text('JAVA_VERSION="25.0.1"\n', encoding="utf-8")
    (folder / "jars").mkdir()
    for name in ("arcadedb-server.jar", "arcadedb-engine.jar"):
        jar = folder / "jars" / name
        jar.write_bytes(b"the same jar")
        os.utime(jar, (stamp, stamp))
    return str(folder / "jre"), str(folder / "jars")


def test_two_installs_of_the_same_jars_keep_a_cache_each(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # the JVM maps a cache only for the very jar files it was recorded from (their paths and times): another
    # install's, the same version at another path, is refused and the engine starts without any
    import graph.engines.arcadedb_aot as aot

    one, two = _install(tmp_path / "one", 1_700_000_000), _install(tmp_path / "two", 1_700_000_500)
    folder = str(tmp_path / "cache")
    monkeypatch.setattr(aot, "_runtime", lambda: one)
    first = AotCache(folder, jvm_args("1g"))
    first.options()
    Path(first.cache).write_bytes(b"recorded by the first install")
    monkeypatch.setattr(aot, "_runtime", lambda: two)
    second = AotCache(folder, jvm_args("1g"))
    assert second.options()[0] == "-XX:AOTMode=record"  # not the first install's cache
    Path(second.cache).write_bytes(b"recorded by the second install")
    monkeypatch.setattr(aot, "_runtime", lambda: one)
    assert AotCache(folder, jvm_args("1g")).options() == [f"-XX:AOTCache={first.cache}"]  # each keeps its own
    assert Path(second.cache).exists()


def test_a_cache_no_start_used_for_a_month_goes(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import graph.engines.arcadedb_aot as aot

    folder = tmp_path / "cache"
    folder.mkdir()
    gone, kept = folder / "engine-0badc0de-0123456789abcdef.aot", folder / "engine-0badc0de-fedcba9876543210.aot"
    for cache, days in ((gone, aot.UNUSED_DAYS + 1), (kept, aot.UNUSED_DAYS - 1)):
        cache.write_bytes(b"another install's")
        os.utime(cache, (time.time() - days * 86400,) * 2)
    runtime = _install(tmp_path / "install", 1_700_000_000)
    monkeypatch.setattr(aot, "_runtime", lambda: runtime)
    AotCache(str(folder), jvm_args("1g")).options()
    assert not gone.exists() and kept.exists()


def test_jars_written_again_mean_another_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import graph.engines.arcadedb_aot as aot

    runtime = _install(tmp_path / "install", 1_700_000_000)
    monkeypatch.setattr(aot, "_runtime", lambda: runtime)
    first = AotCache(str(tmp_path / "cache"), jvm_args("1g"))
    first.options()
    Path(first.cache).write_bytes(b"recorded earlier")
    for jar in Path(runtime[1]).iterdir():  # reinstalled: the same names and sizes, new times
        os.utime(jar, (1_700_009_000, 1_700_009_000))
    again = AotCache(str(tmp_path / "cache"), jvm_args("1g"))
    assert again.options()[0] == "-XX:AOTMode=record"
    assert not Path(first.cache).exists()  # this install's outdated cache goes


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
