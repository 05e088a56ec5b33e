"""Shared fixtures: a real ArcadeDB server for the session, a fresh database per test, and
Neo4j 5 through testcontainers wherever a Docker engine answers (skipped with the reason here).

`bash scripts/test` runs the suite on every core (pytest-xdist). Each worker is a process with a session of its
own: its own ArcadeDB server, its own temporary folders (tmp_path, tmp_path_factory) and its own slice of ports
(tests/support/ports.py), so a test built on these fixtures needs nothing more to run beside others. A test
that must have the machine to itself (kill -9 at a moment, a time bound, a real LLM server, CPU figures) says
`@pytest.mark.serial`: scripts/test runs those afterwards, one at a time, in a second pytest."""

from __future__ import annotations

import os
from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import pytest

from graph.engines.arcadedb import ArcadeDBEngine, ArcadeDBServer
from graph.engines.neo4j import Neo4jEngine
from graph.schema import setup_schema
from graph.store import GraphStore
from tests.support import machine_profiles  # noqa: F401 - registers the machines' profiles before pytest reads --hypothesis-profile
from tests.support.fresh_store import fresh_arcadedb_store
from tests.support.ports import docker_missing, free_port

REPO = Path(__file__).resolve().parents[1]
SHARED_DATA = REPO.parent / "shared" / "data"
# Every command a test runs starts and stops its own engine: none is left serving in the background after the
# test (tests/grapevine/cli/test_warm_engine.py sets it for the commands it runs).
os.environ["ENGINE_IDLE_MINUTES"] = "0"


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Under `--dist loadgroup` (scripts/test) the tests of a module that has a module- or class-scoped fixture
    (a browser, a populated graph, a server of its own) run on one worker, so that fixture is set up once.
    A test that uses the worker's ArcadeDB server, itself or through a fixture, is marked `engine`."""
    for item in items:
        if {"arcadedb_server", "store"} & set(getattr(item, "fixturenames", ())):  # `store` asks for it by name
            item.add_marker(pytest.mark.engine)
        info = getattr(item, "_fixtureinfo", None)
        if info is None or item.get_closest_marker("xdist_group"):
            continue
        scopes = {defs[-1].scope for defs in info.name2fixturedefs.values() if defs}
        if scopes & {"module", "class", "package"}:
            item.add_marker(pytest.mark.xdist_group(item.nodeid.split("::")[0]))


@pytest.fixture(scope="session")
def arcadedb_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ArcadeDBEngine]:
    engine = ArcadeDBEngine(password="grapevine-tests", database="grapevine", bolt_port=free_port(), http_port=free_port())
    # every worker starts its engine at the same moment, on a machine that may be shared: a generous bound
    server = ArcadeDBServer(tmp_path_factory.mktemp("arcadedb"), engine, heap="1g", start_timeout=300)
    server.start()
    yield engine
    server.stop()


@pytest.fixture(scope="session")
def neo4j_engine() -> Iterator[Neo4jEngine]:
    reason = docker_missing()
    if reason:
        pytest.skip(reason)
    from testcontainers.neo4j import Neo4jContainer

    with Neo4jContainer("neo4j:5-community", password="grapevine-tests") as container:
        yield Neo4jEngine(container.get_connection_url(), "neo4j", "grapevine-tests")


@pytest.fixture(params=["arcadedb", pytest.param("neo4j", marks=pytest.mark.neo4j)])
async def store(request: pytest.FixtureRequest) -> AsyncIterator[GraphStore]:
    """A GraphStore with its schema set up on an empty database of each engine."""
    if request.param == "arcadedb":
        server: ArcadeDBEngine = request.getfixturevalue("arcadedb_server")
        async with fresh_arcadedb_store(server) as graph:
            yield graph
    else:
        neo: Neo4jEngine = request.getfixturevalue("neo4j_engine")
        driver = neo.driver()
        await driver.execute_query("MATCH (n) DETACH DELETE n", database_=neo.database)
        graph = GraphStore(driver, neo)
        await setup_schema(
            graph,
        )
        yield graph
        await driver.close()
