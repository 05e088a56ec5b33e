"""The floors point down: read every module's imports (with `ast`) and fail on an import cycle, on a
lower floor importing a higher one, on the pure core importing an adapter, or on test code shipped in a
runtime package. The graph keeps one way in: a store that only opens and closes, rooms of at most a dozen
modules, no runner outside graph/, no private name taken from another module, no Cypher row of positions. Tests
stand where their module is: every source package has its twin under tests/, and no test file is a suite over
several rooms at once."""

from __future__ import annotations

import ast
import functools
import re
from collections.abc import Callable
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
RUNTIME = ("common", "graph", "llm", "ingest", "recall", "bot", "grapevine", "queries")
# A module may import its own floor and the floors below it, never one above. The graph and the LLM are the
# adapters ingest, recall and the bot stand on.
FLOOR = {"common": 0, "queries": 0, "graph": 1, "llm": 1, "ingest": 2, "recall": 2, "bot": 3, "grapevine": 4}
# The pure core: rules and text only; it reaches no engine, LLM, Discord or environment.
PURE_CORE = (
    "common.settings",
    "common.events",
    "common.tokens",
    "common.text",
    "ingest.windows",
    "ingest.extraction.resolution",
    "ingest.extraction.window_prompt",
    "recall.assemble",
    "recall.ranking",
    "recall.when",
)
PURE_MAY_IMPORT = (
    "common.",
    "graph.models",
    "ingest.windows",
    "ingest.extraction.window_prompt",
    "recall.ranking",
    "recall.when",
)
ADAPTER_LIBRARIES = ("neo4j", "openai", "discord", "pydantic_settings", "arcadedb_embedded", "jpype", "httpx", "os")
# Where what a reply recalls is decided: no module-level tuning there; the levers are fields of
# common.settings.RecallTuning, passed in. A tuning global is an UPPER_CASE name bound at module level to a number, a
# bool, a timedelta, arithmetic on them (a derived size), or a tuple or list of those. These are not tuning: a
# format, an outside limit, or the bound of an operation that is not a reply's recall.
TUNED = ("graph", "recall")
TRUE_CONSTANTS = {
    "graph.schema.SCHEMA_VERSION": "the graph's format version",
    "graph.privacy.guards.consent.CONSENT_KEYS_KEPT": "how many consent keys the memo holds before it starts again (memory)",
    "graph.reads.backlog.MESSAGES_BEFORE_SPANS": "the widening steps of the extraction prompt's earlier-messages read",
    "graph.keys._OFFSET": "the digits of the time keys' encoding",
    "graph.engines.neo4j.MAX_VECTOR_DIMENSIONS": "Neo4j 5's vector index limit",
    "graph.engines.arcadedb_aot.MIN_JAVA": "the JDK that records the AOT cache's profiles",
    "graph.engines.arcadedb_aot.UNUSED_DAYS": "how long another install's AOT cache is kept unused",
    "graph.engines.arcadedb_child.REGEX_TIMEOUT_MS": "the engine's guard against a runaway regex",
    "graph.engines.arcadedb_purge.REBUILD_TIMEOUT_S": "how long an index rebuild of the purge may take",
    "graph.engines.arcadedb.REOPEN_WAIT_S": "how long a request waits for a purge's reopen of the database",
    "graph.engines.arcadedb.REOPEN_POLL_S": "how often it asks again meanwhile",
    "graph.privacy.retention.BATCH": "records per retention transaction",
    "graph.privacy.guards.scope.BACKFILL_BATCH": "facts per transaction of the audience backfill at start",
    "graph.privacy.deletion.NAMED_LIMIT": "full-text hits read per forget-me",
    "graph.privacy.user_cap.OVERLAP": "the clock overlap of the per-member cap's passes",
    "recall.assemble.MAX_NAME_CHARS": "the longest name a line shows",
    "recall.assemble.MAX_MESSAGE_CHARS": "the longest text a line shows",
    "recall.when.SLACK": "the day either side of a named day: time zones",
    "recall.rehearsal.CHANNELS": "the start-up rehearsal's channels",
    "recall.rehearsal.PER_CHANNEL": "the start-up rehearsal's messages per channel",
    "graph.session.CONFLICT_PATIENCE": "how long a unit of work that keeps losing write conflicts is replayed",
    "graph.session.GATE_POLL_S": "how often a writer or a purge waiting for the writers' gate tries its file lock again",
    "graph.reads.fact_model.VIEWS_HELD": "a guild's reply views of its facts kept for the next replies (memory)",
    "graph.reads.talk_model.HELD_EPISODES": "a channel's windows the read model holds (memory: its answers are the statement's either way)",
    "graph.reads.topics.HALF_LIFE": "who-knows ranking rule: what was said this long ago counts half",
    "graph.reads.topics.FACT_WEIGHT": "who-knows ranking rule: a reported fact counts as three messages",
    "graph.reads.topics.MESSAGE_WEIGHT": "who-knows ranking rule: a message counts once",
    "graph.reads.topics.HITS": "full-text hits read per index by who-knows",
    "graph.reads.topics.TIMELINE_FACTS": "facts a timeline shows at most",
    "recall.sources.WORDS": "content words of a text compared when citing: more than any fact or quote holds",
    "graph.reads.operator.MAX_STRING_CHARS": "an operator query's text parameter: far longer than any id, name or word",
}
_UPPER = re.compile(r"_?[A-Z][A-Z0-9_]*")


def module_name(path: Path) -> str:
    parts = list(path.relative_to(REPO).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


@functools.cache
def modules(packages: tuple[str, ...] = RUNTIME) -> dict[str, Path]:
    return {module_name(p): p for pkg in packages for p in sorted((REPO / pkg).rglob("*.py"))}


def imports_of(path: Path, name: str) -> set[str]:
    """Absolute names of everything a module imports (relative imports resolved); `from pkg import mod`
    counts as importing `pkg.mod`, not the package's `__init__`."""
    known = set(modules())
    found: set[str] = set()
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.rsplit(".", node.level - 1)[0] if node.level > 1 else package
                base = f"{anchor}.{base}" if base else anchor
            names = [f"{base}.{alias.name}" for alias in node.names]
            found.update(names)
            if not all(n in known for n in names):
                found.add(base)
    return found


def project_graph(packages: tuple[str, ...] = RUNTIME) -> dict[str, set[str]]:
    mods = modules(packages)
    graph: dict[str, set[str]] = {}
    for name, path in mods.items():
        graph[name] = {i for i in imports_of(path, name) if i in mods and i != name}
    return graph


@pytest.mark.parametrize("packages", [RUNTIME, ("bench",)], ids=["runtime", "bench"])
def test_no_import_cycle(packages: tuple[str, ...]) -> None:
    graph = project_graph(packages)
    state: dict[str, int] = {}
    stack: list[str] = []

    def visit(node: str) -> None:
        state[node] = 1
        stack.append(node)
        for nxt in sorted(graph[node]):
            if state.get(nxt) == 1:
                cycle = stack[stack.index(nxt) :] + [nxt]
                pytest.fail("import cycle: " + " -> ".join(cycle))
            if nxt not in state:
                visit(nxt)
        stack.pop()
        state[node] = 2

    for node in sorted(graph):
        if node not in state:
            visit(node)


def test_no_floor_imports_a_higher_one() -> None:
    wrong = [
        f"{mod} imports {dep}"
        for mod, deps in project_graph().items()
        for dep in sorted(deps)
        if FLOOR[dep.split(".")[0]] > FLOOR[mod.split(".")[0]]
    ]
    assert wrong == []


def test_the_pure_core_imports_no_adapter() -> None:
    mods = modules()
    wrong = []
    for name in PURE_CORE:
        for dep in sorted(imports_of(mods[name], name)):
            top = dep.split(".")[0]
            if top in FLOOR and not dep.startswith(PURE_MAY_IMPORT) and dep != top:
                wrong.append(f"{name} imports {dep}")
            if top in ADAPTER_LIBRARIES:
                wrong.append(f"{name} imports {dep}")
    assert wrong == []


def test_runtime_packages_import_no_tests_or_bench() -> None:
    wrong = [
        f"{name} imports {dep}"
        for name, path in modules().items()
        for dep in sorted(imports_of(path, name))
        if dep.split(".")[0] in ("tests", "bench")
    ]
    assert wrong == []


def test_tests_do_not_import_bench() -> None:
    tests = {module_name(p): p for p in sorted((REPO / "tests").rglob("*.py"))}
    wrong = [
        f"{name} imports {dep}"
        for name, path in tests.items()
        for dep in sorted(imports_of(path, name))
        if dep.split(".")[0] == "bench"
    ]
    assert wrong == []


def _tuning_value(node: ast.expr) -> bool:
    if isinstance(node, ast.Constant):
        return isinstance(node.value, bool | int | float)
    if isinstance(node, ast.UnaryOp):
        return _tuning_value(node.operand)
    if isinstance(node, ast.BinOp):  # a size derived from others; `+` of two names may be strings, so not that alone
        numeric = isinstance(node.op, ast.FloorDiv | ast.Div | ast.Mult | ast.Sub | ast.Pow)
        return numeric or _tuning_value(node.left) or _tuning_value(node.right)
    if isinstance(node, ast.Call):
        func = node.func
        return (func.id if isinstance(func, ast.Name) else func.attr if isinstance(func, ast.Attribute) else "") == "timedelta"
    if isinstance(node, ast.Tuple | ast.List):
        items = [e for e in node.elts if not (isinstance(e, ast.Constant) and e.value is None)]
        return bool(items) and all(_tuning_value(e) for e in items)
    return False


def tuning_globals(source: str) -> list[str]:
    """The UPPER_CASE names a module binds at its top level to a number, bool, timedelta or tuple of them."""
    found = []
    for node in ast.parse(source).body:
        targets, value = (
            (node.targets, node.value)
            if isinstance(node, ast.Assign)
            else ([node.target], node.value)
            if isinstance(node, ast.AnnAssign) and node.value is not None
            else ([], None)
        )
        for target in targets:
            if isinstance(target, ast.Name) and _UPPER.fullmatch(target.id) and value is not None and _tuning_value(value):
                found.append(target.id)
    return found


def test_no_module_level_tuning_in_graph_and_recall() -> None:
    found = {
        f"{name}.{glob}" for name, path in modules(TUNED).items() for glob in tuning_globals(path.read_text(encoding="utf-8"))
    }
    assert sorted(found - TRUE_CONSTANTS.keys()) == []
    assert sorted(TRUE_CONSTANTS.keys() - found) == []  # an allowance for a name that is gone goes too


def test_the_tuning_check_catches_a_lever() -> None:
    levers = "RECALL_SPAN = timedelta(days=30)\nFLAG: bool = True\nOLDER = WINDOW // Settings().max\nSPANS = (1.5, None)\n"
    kept = "PART_ORDER = ('author', 'thread')\nPATTERN = re.compile('x')\nJOINED = _DAY + _YEAR\nlower = 3\n"
    assert tuning_globals(levers + kept) == ["RECALL_SPAN", "FLAG", "OLDER", "SPANS"]


def test_the_bot_holds_no_cypher() -> None:
    for path in sorted((REPO / "bot").rglob("*.py")):
        text = path.read_text(encoding="utf-8")
        assert "session.run" not in text and ".cypher" not in text and "graph.session" not in text, path


@pytest.mark.parametrize("check", [test_no_floor_imports_a_higher_one, test_the_pure_core_imports_no_adapter])
def test_the_checks_catch_a_violation(check: Callable[[], None], monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """The rules above fail on a planted violation, so a passing run means something."""
    original = imports_of

    def planted(path: Path, name: str) -> set[str]:
        found = original(path, name)
        return found | {"bot.app"} if name in ("graph.store", "ingest.windows") else found

    monkeypatch.setitem(globals(), "imports_of", planted)
    with pytest.raises(AssertionError):
        check()


@pytest.mark.slow
def test_the_wheel_ships_no_test_double_and_no_bench_query(tmp_path: Path) -> None:
    import shutil
    import subprocess
    import sys
    import zipfile

    source = tmp_path / "source"  # a copy: setuptools leaves build/ and *.egg-info/ beside what it builds
    skip = (".venv", ".git", "node_modules", "data", "log", "build", "__pycache__", ".pytest_cache", ".mypy_cache")
    shutil.copytree(REPO, source, ignore=shutil.ignore_patterns(*skip))  # caches: other workers write them meanwhile
    built = subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", "-w", str(tmp_path), str(source)],
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert built.returncode == 0, built.stderr[-2000:]
    [wheel] = tmp_path.glob("grapevine-*.whl")
    names = zipfile.ZipFile(wheel).namelist()
    tops = {n.split("/")[0] for n in names if not n.startswith("grapevine-")}
    assert tops == {"common", "graph", "llm", "ingest", "recall", "bot", "grapevine", "queries"}
    assert not [n for n in names if "scripted" in n or "doubles" in n or "/bench/" in n or n.startswith(("tests/", "bench/"))]
    assert "queries/store/record_messages.cypher" in names


# --- the graph's rooms and its one way in --------------------------------------------------------------
STORE_LINES = 150  # graph/store.py opens and closes; what it reads and writes lives in graph/'s rooms
ROOM_MODULES = 12  # modules a folder of graph/ holds at most, its __init__ counted
GUARDS = "graph.privacy.guards"  # what a write checks inside its transaction: opt-outs, consent keys, audiences
OUTSIDE_GRAPH = (*(p for p in RUNTIME if p != "graph"), "bench")  # tests may fake the engine at the runner
# A module outside graph/ that holds a driver, and why.
DRIVER_ALLOWED = {"bench.bookmarks": "times graph.session.Runner itself on a store's driver, with and without bookmarks"}
# A private name one module takes from another; a package's own private submodules are its own.
PRIVATE_ALLOWED: dict[tuple[str, str, str], str] = {}
# A Cypher list literal built per row: `RETURN [a, b]` in a subquery, or `| [a, b]` in a comprehension.
_POSITIONAL = re.compile(r"RETURN\s+\[|\|\s*\[")
POSITIONAL_ALLOWED: dict[str, str] = {}


def test_the_store_only_opens_and_closes() -> None:
    assert len((REPO / "graph" / "store.py").read_text(encoding="utf-8").splitlines()) <= STORE_LINES


def test_no_folder_of_graph_holds_more_than_a_room() -> None:
    folders = [REPO / "graph", *(p for p in (REPO / "graph").iterdir() if p.is_dir() and p.name != "__pycache__")]
    crowded = {f.name: n for f in folders if (n := len(list(f.glob("*.py")))) > ROOM_MODULES}
    assert crowded == {}


def room_of(name: str) -> str | None:
    """The room of graph/ a module is in: its folder (graph/privacy/guards/ a room of its own, the floor below
    writes/); None for graph/'s own modules (the store, the session, the models), which every room stands on."""
    parts = name.split(".")
    if parts[0] != "graph" or len(parts) < 3:
        return None
    return GUARDS if name.startswith(GUARDS + ".") else ".".join(parts[:2])


def room_arrows(graph: dict[str, set[str]]) -> dict[tuple[str, str], list[str]]:
    """(room, room it imports): the imports that make that arrow."""
    arrows: dict[tuple[str, str], list[str]] = {}
    for name, deps in graph.items():
        for dep in sorted(deps):
            here, there = room_of(name), room_of(dep)
            if here is not None and there is not None and here != there:
                arrows.setdefault((here, there), []).append(f"{name} imports {dep}")
    return arrows


def two_way_arrows(graph: dict[str, set[str]]) -> list[str]:
    """Each pair of rooms that import each other, with the imports of both ways."""
    arrows = room_arrows(graph)
    return [f"{a} <-> {b}: {arrows[a, b] + arrows[b, a]}" for a, b in sorted(arrows) if a < b and (b, a) in arrows]


def test_no_two_rooms_of_graph_import_each_other() -> None:
    """writes/ runs the privacy guards inside its transactions and privacy/'s operations write through writes/:
    one way each, never both."""
    assert two_way_arrows(project_graph()) == []


def guards_climbing(graph: dict[str, set[str]]) -> list[str]:
    """Imports of the guards that reach another room of graph/: they are the floor below every room."""
    return [found for (here, _), imports in room_arrows(graph).items() if here == GUARDS for found in imports]


def test_the_privacy_guards_stand_below_every_room() -> None:
    assert guards_climbing(project_graph()) == []


def runner_uses(source: str) -> list[int]:
    """Lines that reach for a runner: an attribute `.runner` read anywhere."""
    return [n.lineno for n in ast.walk(ast.parse(source)) if isinstance(n, ast.Attribute) and n.attr == "runner"]


def test_nothing_outside_graph_touches_a_runner() -> None:
    found = [
        f"{name}:{line}"
        for name, path in modules(OUTSIDE_GRAPH).items()
        for line in runner_uses(path.read_text(encoding="utf-8"))
    ]
    assert found == []


def driver_uses(source: str) -> list[int]:
    """Lines that reach for a driver: an attribute `.driver` or `.reader_driver` read anywhere (a store's, an
    engine's)."""
    return [
        n.lineno for n in ast.walk(ast.parse(source)) if isinstance(n, ast.Attribute) and n.attr in ("driver", "reader_driver")
    ]


def test_nothing_outside_graph_touches_a_driver() -> None:
    """A store opens on an engine (`graph.store.writer`, `graph.store.reader`) and every read takes it."""
    found = {
        name: lines for name, path in modules(OUTSIDE_GRAPH).items() if (lines := driver_uses(path.read_text(encoding="utf-8")))
    }
    assert sorted(found.keys() - DRIVER_ALLOWED.keys()) == []
    assert sorted(DRIVER_ALLOWED.keys() - found.keys()) == []  # an allowance for a module that no longer needs it goes


def private_imports(name: str, source: str) -> list[tuple[str, str]]:
    """(module, name) of each `from module import _name` that reaches into another module: a package importing
    its own private submodule (`from bot.memory import _cog` inside bot.memory) is not one."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.ImportFrom) and node.module:
            for alias in node.names:
                private = alias.name.startswith("_") and not alias.name.startswith("__")
                inside = name.startswith(node.module + ".") and (node.module + "." + alias.name) in modules()
                if private and not inside:
                    found.append((node.module, alias.name))
    return found


def test_no_private_name_is_imported_across_modules() -> None:
    found = {
        (name, module, private)
        for name, path in modules((*RUNTIME, "bench", "tests")).items()
        for module, private in private_imports(name, path.read_text(encoding="utf-8"))
    }
    assert sorted(found - PRIVATE_ALLOWED.keys()) == []


def cypher_code(text: str) -> str:
    """A .cypher file without its comments (// to the line's end, outside strings is all this project writes)."""
    return "\n".join(line.split("//")[0] for line in text.splitlines())


def test_no_cypher_file_returns_a_positional_list() -> None:
    """Every statement returns named fields, and maps rather than lists of values inside them."""
    found = [
        str(path.relative_to(REPO))
        for path in sorted((REPO / "queries").rglob("*.cypher"))
        if _POSITIONAL.search(cypher_code(path.read_text(encoding="utf-8")))
    ]
    assert sorted(set(found) - POSITIONAL_ALLOWED.keys()) == []
    assert sorted(POSITIONAL_ALLOWED.keys() - set(found)) == []  # an allowance for a file changed since goes too


def test_the_room_checks_catch_a_violation() -> None:
    assert runner_uses("async def f(store):\n    return await store.runner.read('x')\n") == [2]
    assert driver_uses("async def f(rt):\n    d = rt.engine.driver()\n    r = await rt.engine.reader_driver()\n") == [2, 3]
    planted = {
        "graph.writes.messages": {"graph.privacy.guards.optout_guard", "graph.privacy.erasure"},
        "graph.privacy.erasure": {"graph.writes.message_deletes", "graph.store"},
        "graph.privacy.guards.consent": {"graph.privacy.guards.name_scope", "graph.reads.operator", "graph.models"},
        "graph.reads.topics": {"graph.privacy.guards.consent"},
    }
    assert two_way_arrows(planted) == [
        "graph.privacy <-> graph.writes: ['graph.privacy.erasure imports graph.writes.message_deletes', "
        "'graph.writes.messages imports graph.privacy.erasure']",
        "graph.privacy.guards <-> graph.reads: ['graph.privacy.guards.consent imports graph.reads.operator', "
        "'graph.reads.topics imports graph.privacy.guards.consent']",
    ]
    assert guards_climbing(planted) == ["graph.privacy.guards.consent imports graph.reads.operator"]
    assert driver_uses("async def f(store, name):\n    return await read(store, name, driver=None)\n") == []
    assert private_imports("bot.upkeep", "from bot.memory import _unfinished\nfrom x.y import _z\n") == [
        ("bot.memory", "_unfinished"),
        ("x.y", "_z"),
    ]
    assert private_imports("bot.memory._cog", "from bot.memory import _cog\n") == []
    assert _POSITIONAL.search(cypher_code("RETURN COLLECT { MATCH (f)-[:ABOUT]->(s) RETURN [s.id, s.name] } AS about"))
    assert _POSITIONAL.search("RETURN [(f)-[:FROM]->(m) | [m.id, m.channel_id]] AS shown")
    assert not _POSITIONAL.search(cypher_code("RETURN {id: s.id} AS about // RETURN [a, b]"))


# Packages whose tests stand elsewhere, and why: the statements are data, linted whole by tests/test_cypher_lint.py and
# executed by the tests of the reads and writes that load them.
NO_TWIN = {"queries": "statements, not code: tests/test_cypher_lint.py and every read's and write's tests"}


def missing_twins(root: Path) -> list[str]:
    """Source packages with no folder of tests at the same path under tests/ (holding a test module)."""
    packages = sorted(
        init.parent.relative_to(root).as_posix()
        for pkg in RUNTIME
        if (root / pkg).is_dir()
        for init in (root / pkg).rglob("__init__.py")
    )
    return [p for p in packages if p.split("/")[0] not in NO_TWIN and not any((root / "tests" / p).glob("test_*.py"))]


def test_every_source_package_has_its_twin_in_tests() -> None:
    assert missing_twins(REPO) == []


def test_the_twin_check_catches_a_package_without_tests(tmp_path: Path) -> None:
    for folder in ("bot/memory", "bot/replying", "tests/bot/memory", "queries/store"):
        (tmp_path / folder).mkdir(parents=True)
    for init in ("bot/__init__.py", "bot/memory/__init__.py", "bot/replying/__init__.py", "queries/__init__.py"):
        (tmp_path / init).write_text("")
    (tmp_path / "tests/bot/memory/test_forget.py").write_text("")
    (tmp_path / "tests/bot/replying").mkdir()
    (tmp_path / "tests/bot/replying/helpers.py").write_text("")  # a folder of helpers is not a twin

    assert missing_twins(tmp_path) == ["bot", "bot/replying"]


# A test file beside the rooms of its package (in tests/graph/, not tests/graph/reads/) that reaches into more than
# one of them, and why: it tests a module of the package itself, standing on the rooms to reach it.
FACADE_ALLOWED = {
    "tests/graph/test_session_bookmarks.py": "graph/session.py's bookmarks: an engine to run on, one write to chain after",
    "tests/graph/test_counts.py": "graph/counts.py follows the statements of every room's writers: its machine drives them all",
}


def imported(source: str) -> set[str]:
    """Every dotted name a module imports, and each `from a import b` as `a.b` too."""
    found: set[str] = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            found.add(node.module)
            found.update(f"{node.module}.{alias.name}" for alias in node.names)
    return found


def facades(root: Path) -> dict[str, list[str]]:
    """Test files that stand beside the rooms (sub-packages) of the package they twin and import from two or more
    rooms: a suite of the rooms' surface, whose tests belong in each room's twin. Path: the rooms it reaches."""
    found: dict[str, list[str]] = {}
    for test in sorted((root / "tests").rglob("test_*.py")):
        folder = test.parent.relative_to(root / "tests")
        package = root / folder
        if not folder.parts or folder.parts[0] not in RUNTIME or not (package / "__init__.py").is_file():
            continue
        rooms = {p.name for p in package.iterdir() if (p / "__init__.py").is_file()}
        prefix = ".".join(folder.parts) + "."
        reached = sorted(
            {
                name[len(prefix) :].split(".")[0]
                for name in imported(test.read_text(encoding="utf-8"))
                if name.startswith(prefix) and name[len(prefix) :].split(".")[0] in rooms
            }
        )
        if len(reached) > 1:
            found[test.relative_to(root).as_posix()] = reached
    return found


def test_no_test_file_is_a_facade_over_several_rooms() -> None:
    found = facades(REPO)
    assert sorted(found.keys() - FACADE_ALLOWED.keys()) == [], found
    assert sorted(FACADE_ALLOWED.keys() - found.keys()) == []  # an allowance for a file that no longer needs it goes


def test_the_facade_check_catches_a_suite_across_rooms(tmp_path: Path) -> None:
    for folder in ("graph/reads", "graph/writes", "graph/privacy/guards", "tests/graph/reads", "tests/graph/privacy"):
        (tmp_path / folder).mkdir(parents=True)
    for init in ("graph", "graph/reads", "graph/writes", "graph/privacy", "graph/privacy/guards"):
        (tmp_path / init / "__init__.py").write_text("")
    (tmp_path / "tests/graph/test_store.py").write_text(
        "from graph.reads.facts import facts_about\nfrom graph.writes import episodes\nimport graph.privacy.forget\n"
        "from graph.store import GraphStore\n"
    )
    (tmp_path / "tests/graph/test_schema.py").write_text("from graph.schema import setup_schema\nfrom graph.writes import x\n")
    (tmp_path / "tests/graph/reads/test_facts.py").write_text("from graph.reads import facts\nfrom graph.writes import e\n")
    (tmp_path / "tests/graph/privacy/test_forget.py").write_text("from graph.privacy.guards.consent import opt_out\n")
    (tmp_path / "tests/graph/privacy/test_leaks.py").write_text("from graph.privacy.guards import scope\nimport graph.x\n")

    assert facades(tmp_path) == {"tests/graph/test_store.py": ["privacy", "reads", "writes"]}
