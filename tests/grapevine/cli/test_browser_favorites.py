"""docker/browser-favorites.md lists every operator query, word for word.

Regenerate it after changing queries/operator/: `python -m tests.grapevine.cli.test_browser_favorites`.
"""

from __future__ import annotations

from pathlib import Path

from graph.reads.operator import OperatorQuery, list_queries

FAVORITES = Path(__file__).resolve().parents[3] / "docker" / "browser-favorites.md"
REGENERATE = "python -m tests.grapevine.cli.test_browser_favorites"
EXAMPLES = {
    "string": "'...'",
    "int": "7",
    "float": "0.5",
    "bool": "true",
    "words": "'kubernetes'",
    "datetime": "datetime('2024-05-10T00:00:00Z')",
}

INTRO = """# Operator queries as Neo4j Browser favorites

Generated from `queries/operator/*.cypher` by `python -m tests.grapevine.cli.test_browser_favorites`;
a test fails when this page and the query files disagree. The same queries run from the command line,
read-only, on either engine: `grapevine query --list`, then
`grapevine query who_reported -p guild_id=... -p user_id=...` (add `--json` for JSON lines).

In Browser (http://localhost:7474 with `docker compose --env-file .env -f docker/compose.yml up -d`):

1. Load the style once: drag `docker/grapevine.grass` anywhere onto the Browser window (or type
   `:style`, a space, and paste the file). Closed facts (label `Closed`) are drawn small and grey.
2. Keep the queries: drag the files of `queries/operator/` onto the window too; Browser saves dropped
   `.cypher` files as favorites (the `//` header becomes the favorite's description).
3. Set the parameters with `:param`. Browser sends only the parameters that are set and Neo4j refuses
   a query that uses an unset one, so set every optional parameter too, to `null` for its default.
   Datetimes are datetimes, not strings (`:param since => datetime('2024-05-10T00:00:00Z')`), as
   `grapevine query` sends them: a range over a datetime index needs one.
4. Run a favorite from the sidebar (or paste the query below).

Discord ids are strings: quote them (`:param guild_id => '100000000000000001'`).
"""


def render(queries: list[OperatorQuery]) -> str:
    parts = [INTRO]
    for q in queries:
        body = q.text.rstrip() + "\n"
        params = (
            "\n".join(f"- `{p.name}` ({p.type}, {'required' if p.required else 'optional'}): {p.description}" for p in q.params)
            or "- none"
        )
        setters = "\n".join(f":param {p.name} => {EXAMPLES[p.type] if p.required else 'null'}" for p in q.params)
        parts.append(f"## {q.name}: {q.title}\n\n{q.answers}\n\n{params}\n\n```\n{setters}\n```\n\n```cypher\n{body}```\n")
    return "\n".join(parts)


def test_every_operator_query_is_listed_word_for_word() -> None:
    text = FAVORITES.read_text(encoding="utf-8")
    queries = list_queries()
    assert queries
    for q in queries:
        assert f"## {q.name}: " in text, f"{q.name} is missing from {FAVORITES.name}: run {REGENERATE}"
        assert q.text.rstrip() in text, f"{q.name} changed since {FAVORITES.name} was written: run {REGENERATE}"
    listed = {line[3:].split(":", 1)[0] for line in text.splitlines() if line.startswith("## ")}
    assert listed == {q.name for q in queries}, f"the page lists a query that no longer exists: run {REGENERATE}"


def test_the_page_is_what_render_makes() -> None:
    assert FAVORITES.read_text(encoding="utf-8") == render(list_queries()), f"run {REGENERATE}"


if __name__ == "__main__":
    FAVORITES.write_text(render(list_queries()), encoding="utf-8")
    print(f"wrote {FAVORITES}")
