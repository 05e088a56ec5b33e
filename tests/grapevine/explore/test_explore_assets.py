"""What the explorer ships: the vendored graph library as the lockfile pins it, a page that never
parses user content as HTML, and read-only statements that each take the guild. No database."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

import queries
from grapevine.explore.app import STATIC
from grapevine.explore.reads import AROUND, EXPLORE_DIR, HISTORY
from grapevine.explore.style import style_rules
from graph.reads.operator import OperatorQuery, ReadOnlyViolation, check_read_only, read_only_statements

REPO = Path(__file__).resolve().parents[3]
ASSETS = REPO / "tools" / "explore-assets"


def test_the_vendored_bundle_is_built_from_the_locked_versions() -> None:
    lock = json.loads((ASSETS / "package-lock.json").read_text(encoding="utf-8"))["packages"]
    head = (STATIC / "vendor" / "graph.js").read_text(encoding="utf-8")[:600]
    for name in ("cytoscape", "cytoscape-fcose", "cose-base", "layout-base"):
        entry = lock[f"node_modules/{name}"]
        assert f" * {name}@{entry['version']} ({entry['license']})" in head, f"rebuild: cd {ASSETS} && npm ci && npm run build"
        assert entry["license"] == "MIT"
    licences = (STATIC / "vendor" / "graph.LICENSES.txt").read_text(encoding="utf-8")
    assert licences.count("Permission is hereby granted, free of charge") >= 4


def test_the_page_never_parses_text_as_html() -> None:
    scripts = sorted((STATIC / "js").glob("*.js"))
    assert scripts
    for path in scripts:
        code = path.read_text(encoding="utf-8")
        for sink in ("innerHTML", "outerHTML", "insertAdjacentHTML", "document.write", "eval(", "new Function"):
            assert sink not in re.sub(r"//.*", "", code), f"{path.name} uses {sink}"
    page = (STATIC / "index.html").read_text(encoding="utf-8")
    assert re.findall(r"<script\b[^>]*>", page) == [
        '<script src="static/vendor/graph.js">',
        '<script type="module" src="static/js/main.js">',
    ]
    assert not re.search(r"\son[a-z]+\s*=", page), "inline event handlers"
    assert "style=" not in page, "inline styles (the CSP allows none)"


def test_explore_statements_are_read_only_and_take_the_guild() -> None:
    found = read_only_statements(EXPLORE_DIR)
    assert set(AROUND.values()) | set(HISTORY.values()) | {"guilds", "start_points", "search_facts", "time_bounds"} == set(found)
    for name, text in found.items():
        if name != "guilds":
            assert "$guild_id" in text, f"explore/{name} reads without the guild"
        assert not re.search(r"\bLIMIT\s+\d", text), f"explore/{name}: limits are parameters"
    with pytest.raises(ReadOnlyViolation, match="DELETE"):
        check_read_only(OperatorQuery("explore/x", "x", "", [], "MATCH (n) DETACH DELETE n"))
    assert (queries.ROOT / "explore").is_dir()


def test_the_page_draws_with_the_browser_style_file() -> None:
    rules: dict[object, Any] = {r["selector"]: r["properties"] for r in style_rules()}
    assert rules["node.User"]["caption"] == "{display_name}" and rules["node.Fact"]["caption"] == "{text}"
    assert list(rules).index("node.Closed") > list(rules).index("node.Fact")
    assert rules["node.Closed"]["color"] == "#DDDDDD"
