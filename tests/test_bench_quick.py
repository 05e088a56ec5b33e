"""Each benchmark runs in quick mode, or at its even smaller smoke size where it has one, and prints its table rows
(figures are printed, never asserted)."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
SHARED = REPO.parent / "shared" / "data"

pytestmark = pytest.mark.slow


def run_bench(name: str, *args: str, timeout: float = 300, pythonpath: Path | None = None, size: str = "--quick") -> str:
    env = {**os.environ, "GRAPHITI_TELEMETRY_ENABLED": "false", "COLUMNS": "200"}
    if pythonpath is not None:
        env["PYTHONPATH"] = os.pathsep.join([str(pythonpath), str(REPO), env.get("PYTHONPATH", "")]).rstrip(os.pathsep)
    result = subprocess.run(
        [sys.executable, "-m", f"bench.{name}", size, *args],
        cwd=REPO,
        env=env,
        capture_output=True,
        text=True,
        timeout=timeout,
    )
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]
    return result.stdout


def _graphiti_installed() -> bool:
    try:
        import graphiti_core  # noqa: F401
        import kuzu  # noqa: F401
    except ImportError:
        return False
    return True


@pytest.mark.skipif(not (SHARED / "irc" / "dev").is_dir(), reason="the shared IRC samples are not next to the repository")
def test_economy_quick_prints_every_contender() -> None:
    out = run_bench("economy")
    assert "LLM cost per 100 messages" in out
    assert "grapevine (one call per closed window)" in out
    assert "per-message extraction" in out
    assert "ratio per-message extraction / grapevine" in out
    assert "facts per window" in out
    if _graphiti_installed():
        assert "graphiti-core add_episode (same windows)" in out
        assert "NOT RUN" not in out, out
        assert "calls by response model" in out and "ExtractedEdges" in out and "embedder" in out
    else:
        assert "graphiti-core add_episode (same windows): NOT RUN: graphiti-core" in out


@pytest.mark.skipif(not (SHARED / "irc" / "dev").is_dir(), reason="the shared IRC samples are not next to the repository")
def test_economy_without_graphiti_runs_the_others_and_says_why(tmp_path: Path) -> None:
    fake = tmp_path / "graphiti_core"  # shadows an installed graphiti-core: as if it were not installed
    fake.mkdir()
    (fake / "__init__.py").write_text("raise ImportError('graphiti-core hidden by the test')\n", encoding="utf-8")
    out = run_bench("economy", pythonpath=tmp_path)
    assert "grapevine (one call per closed window)" in out and "per-message extraction" in out
    assert "ratio per-message extraction / grapevine" in out
    assert "graphiti-core add_episode (same windows): NOT RUN: graphiti-core with its Kuzu driver is not installed" in out


@pytest.mark.skipif(not (SHARED / "locomo" / "locomo-dev.json").is_file(), reason="the shared LoCoMo file is absent")
def test_locomo_quick_prints_recall_rows() -> None:
    out = run_bench("locomo")
    assert "LoCoMo evidence recall" in out
    for budget in ("500", "1000", "2000"):
        assert any(line.lstrip("│ ").startswith(budget) and "grapevine context" in line for line in out.splitlines()), out
    assert "BM25 over raw messages" in out and "last messages of the channel" in out
    assert "nearest messages (all-MiniLM-L6-v2)" in out or "nearest messages by embedding: skipped" in out
    assert "measure storage and retrieval, not extraction" in out
    assert "Evidence turns missing from the context without a budget" in out  # the misses by kind
    assert "a quiet channel's older windows searched for recalled messages:" in out  # a line per lever
    assert "recalled candidates chosen by the rarity of the words they hold (idf), not their count:" in out
    assert "LoCoMo recall at k, % of questions with any/all evidence turns" in out
    for k in ("R@5", "R@10"):
        rows = [line for line in out.splitlines() if line.lstrip("│ ").startswith(k)]
        assert any("chunks: BM25" in line for line in rows) and any("grapevine context" in line for line in rows), out
    assert "No reranker: no package on the registries ships a cross-encoder" in out
    assert "By sessions, as the published figures count" in out


def test_locomo_names_the_levers_it_knows() -> None:
    result = subprocess.run(
        [sys.executable, "-m", "bench.locomo", "--levers", "older,nonsense"],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 2 and "unknown lever nonsense; the levers are stems," in result.stderr, result.stderr
    assert "Traceback" not in result.stderr


def test_scale_quick_prints_engine_rows() -> None:
    out = run_bench("scale", "--no-neo4j", size="--smoke")
    assert "Scale: 20 users, 200 entities, 2,000 facts" in out
    assert "ArcadeDB (embedded, Bolt)" in out
    assert re.search(r"the member waits for: one write transaction of \d+ statements, \d+\.\d+ s .*: clean", out)
    assert re.search(r"after their answer, the thorough audit \(every property of every node and relationship\): .*: clean", out)
    assert "Neo4j 5 (Docker): SKIPPED: switched off with --no-neo4j" in out
    assert "facts (REPORTED_BY, FROM, EXTRACTED_FROM)" in out
    assert re.search(r"reference work before the run: \d+ ms", out)
    assert re.search(r"CPU time stolen by the hypervisor during the run \d+\.\d%; reference work \d+ ms", out)
    assert re.search(r"while the context builds were timed: \d+\.\d% after 150 builds, \d+\.\d% after 300", out)
    assert re.search(r"CPU per reply build, the headline \(load average [\d.]+ / [\d.]+ on \d+ CPUs, CPU stolen", out)
    assert re.search(r"2,000 facts: CPU per reply build \d+\.\d ms \(engine \d+\.\d \+ client \d+\.\d\)", out)
    assert re.search(r"the reply's read model of the guild: 2,000 facts in [\d.]+ MB \([\d,]+ MB per 100,000 facts", out)
    assert re.search(r"a reply's fact read, CPU from the read model .* against one statement .*: \d+\.\d\dx \(new/base", out)


def test_scale_loads_the_generated_guild() -> None:
    out = run_bench("scale_check")
    assert re.search(r"the loaded guild is the generated one: [\d,]+ facts, [1-9][\d,]* of them closed by a successor", out), out


def test_bounded_reads_quick_prints_cpu_per_call_at_both_sizes() -> None:
    out = run_bench("bounded_reads", size="--smoke")
    assert "1,000 facts, CPU ms" in out and "2,000 facts, CPU ms" in out
    for name in (
        "memory status: last 7 days",
        "memory status' fact counts (created_key",
        "memory status' fact counts as before (datetime ranges)",
        "whole-guild totals",
        "operator closed_facts_marked, last 7 days",
        "operator superseded_recently as before (whole guild)",
        "upkeep fact cap, a pass",
        "earlier messages",
    ):
        assert name in out
    assert re.search(r"CPU time stolen by the hypervisor during the run \d+\.\d%", out)


def test_recording_quick_prints_the_rate_and_that_nothing_is_lost() -> None:
    out = run_bench("recording", size="--smoke")
    assert "Recording: 20 channels, 50 members, offered rates at tick 50 ms" in out
    for load in ("500/s ", "flat out 50 ms ", "one by one (no recorder)"):
        row = next(line for line in out.splitlines() if line.startswith("│ " + load))
        sent, stored = (cell.strip() for cell in row.split("│")[2:4])
        assert sent == stored, out  # every message handed over is in the graph
    assert re.search(r"sustained at 500/s offered: \d+ messages/s written while offered, .*none lost", out)
    assert re.search(r"CPU time stolen by the hypervisor during the run \d+\.\d%", out)


def test_quickstart_prints_each_command_of_the_readme_with_its_time() -> None:
    out = run_bench("quickstart", timeout=900)
    rows = re.findall(r"^\s*[\d.]+ s  exit (\d+)  grapevine (\S+)", out, re.MULTILINE)
    assert [name for _, name in rows] == [
        "demo",
        "stats",
        "facts",
        "who-knows",
        "timeline",
        "context",
        "export",
        "forget",
        "serve-db",
    ]
    assert {code for code, _ in rows} == {"0"}, out
    assert "load average before" in out and "load average after" in out


def test_bookmarks_quick_prints_both_kinds_of_session() -> None:
    out = run_bench("bookmarks")
    for name in ("chained (driver's manager)", "not chained (no bookmarks)"):
        assert re.search(re.escape(name) + r" +│ +\d+\.\d\d / \d+\.\d\d │ +\d+\.\d\d / \d+\.\d\d", out), out
    assert re.search(r"CPU time stolen by the hypervisor while the rounds were timed: \d+\.\d%", out)
