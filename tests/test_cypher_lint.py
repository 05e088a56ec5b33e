"""Every `.cypher` file passes Neo4j's own parser (tools/cypher-lint/lint.cjs, run with Node)."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
LINT_DIR = REPO / "tools" / "cypher-lint"
LINT = LINT_DIR / "lint.cjs"

pytestmark = [
    pytest.mark.skipif(
        not (LINT_DIR / "node_modules" / "@neo4j-cypher" / "language-support").is_dir(),
        reason="tools/cypher-lint/node_modules is absent: run `npm ci` in tools/cypher-lint "
        "(the CI script does) to lint Cypher with Neo4j's parser",
    ),
    pytest.mark.skipif(shutil.which("node") is None, reason="Node.js is not installed"),
]


def run_lint(*targets: Path | str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        ["node", str(LINT), *map(str, targets)],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=300,
    )


def test_repository_queries_pass() -> None:
    result = run_lint()  # default target: queries/
    files = sorted((REPO / "queries").rglob("*.cypher"))
    assert result.returncode == 0, result.stdout + result.stderr
    assert f"cypher-lint: {len(files)} files, 0 errors" in result.stdout


def test_syntax_error_fails_with_position(tmp_path: Path) -> None:
    bad = tmp_path / "bad.cypher"
    bad.write_text("MATCH (n) RETRUN n\n", encoding="utf-8")
    result = run_lint(bad)
    assert result.returncode == 1, result.stdout + result.stderr
    assert f"{bad}:1:11: Invalid input 'RETRUN'" in result.stdout
    assert "cypher-lint: 1 files, 2 errors" in result.stdout


def test_parameters_procedures_and_several_statements_pass(tmp_path: Path) -> None:
    (tmp_path / "sub").mkdir()
    good = tmp_path / "sub" / "search.cypher"
    good.write_text(
        "// header: facts about a user, then a search\n"
        "MATCH (u:User {id: $user_id})<-[:ABOUT]-(f:Fact)\n"
        "WHERE f.valid_at <= datetime($at) AND f.invalid_at IS NULL\n"
        "RETURN f.uuid AS uuid ORDER BY f.importance DESC LIMIT $limit;\n"
        "\n"
        "// full-text and vector search: procedures the schema does not declare\n"
        "CALL db.index.fulltext.queryNodes('fact_text', $q) YIELD node, score\n"
        "RETURN node.uuid AS uuid, score;\n"
        "CALL db.index.vector.queryNodes('fact_vec', $k, $embedding) YIELD node, score\n"
        "RETURN node.uuid AS uuid, score;\n"
        "// trailing comment after the last statement\n",
        encoding="utf-8",
    )
    result = run_lint(tmp_path)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "cypher-lint: 1 files, 0 errors" in result.stdout


def test_error_in_a_later_statement_is_placed_in_the_file(tmp_path: Path) -> None:
    bad = tmp_path / "two.cypher"
    bad.write_text(
        "// first\nMATCH (n:User {id: $id}) RETURN n;\n// second\nMATCH (m) RETRUN m;\n",
        encoding="utf-8",
    )
    result = run_lint(bad)
    assert result.returncode == 1
    assert f"{bad}:4:11: Invalid input 'RETRUN'" in result.stdout


def test_deprecation_is_a_warning_shown_but_not_failing(tmp_path: Path) -> None:
    old = tmp_path / "old.cypher"
    old.write_text("MATCH (n) RETURN id(n) AS i\n", encoding="utf-8")
    result = run_lint(old)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "warning: The query used a deprecated function" in result.stdout
    assert "1 warnings" in result.stdout
    strict = subprocess.run(["node", str(LINT), "--strict", str(old)], capture_output=True, text=True, timeout=300)
    assert strict.returncode == 1
