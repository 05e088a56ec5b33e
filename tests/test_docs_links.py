"""The README and the pages of docs/ hold together: every relative link (and image) points at a file of the
repository, and at a heading of it when it names one; every page of docs/ is reachable from the README; the
README stays short enough to read (its detail belongs in docs/)."""

from __future__ import annotations

import re
from pathlib import Path
from urllib.parse import unquote

import pytest

REPO = Path(__file__).resolve().parents[1]
README_MAX_LINES = 250
PAGES = [REPO / "README.md", *sorted((REPO / "docs").glob("*.md"))]
# [text](target) and ![alt](target); the target ends at whitespace (a title may follow) or the closing bracket
LINK = re.compile(r"!?\[(?:[^\[\]]|\[[^\]]*\])*\]\(\s*<?([^)\s>]+)>?(?:\s+\"[^\"]*\")?\s*\)")
FENCE = re.compile(r"^(\s*)(```|~~~).*?^\1\2[ \t]*$", re.MULTILINE | re.DOTALL)
INLINE_CODE = re.compile(r"`[^`\n]*`")


def links(text: str) -> list[str]:
    """The link targets of a Markdown text, outside fenced blocks and inline code."""
    prose = INLINE_CODE.sub("", FENCE.sub("", text))
    return [m.group(1) for m in LINK.finditer(prose)]


def anchors(text: str) -> set[str]:
    """The anchors GitHub gives a page's headings: lower case, punctuation dropped, spaces as hyphens, and a
    repeated heading numbered (-1, -2, ...)."""
    found: set[str] = set()
    for line in FENCE.sub("", text).splitlines():
        if heading := re.match(r"^#{1,6}\s+(.*?)\s*#*\s*$", line):
            slug = re.sub(r"[^\w\- ]", "", INLINE_CODE.sub(lambda m: m.group(0).strip("`"), heading[1]).lower())
            slug = slug.replace(" ", "-")
            candidate, n = slug, 0
            while candidate in found:
                n += 1
                candidate = f"{slug}-{n}"
            found.add(candidate)
    return found


def broken_links(page: Path, repo: Path = REPO) -> list[str]:
    wrong = []
    for target in links(page.read_text(encoding="utf-8")):
        if re.match(r"^[a-z][a-z0-9+.-]*:", target, re.IGNORECASE):  # https:, mailto: ...: not the repository's
            continue
        path, _, fragment = target.partition("#")
        file = (page.parent / unquote(path)).resolve() if path else page
        where = f"{page.relative_to(repo)}: {target}"
        if not file.is_relative_to(repo):
            wrong.append(f"{where} leaves the repository")
        elif not file.exists():
            wrong.append(f"{where}: no such file")
        elif fragment and file.suffix == ".md" and fragment not in anchors(file.read_text(encoding="utf-8")):
            wrong.append(f"{where}: {file.relative_to(repo)} has no heading #{fragment}")
    return wrong


@pytest.mark.parametrize("page", PAGES, ids=[str(p.relative_to(REPO)) for p in PAGES])
def test_every_relative_link_resolves(page: Path) -> None:
    assert broken_links(page) == []


def test_every_docs_page_is_linked_from_the_readme() -> None:
    readme = REPO / "README.md"
    linked = {(readme.parent / t.partition("#")[0]).resolve() for t in links(readme.read_text(encoding="utf-8"))}
    assert [p.name for p in PAGES[1:] if p.resolve() not in linked] == []


def test_the_readme_is_short() -> None:
    lines = len((REPO / "README.md").read_text(encoding="utf-8").splitlines())
    assert lines <= README_MAX_LINES, f"README.md has {lines} lines; move detail into docs/"


def test_the_checks_catch_a_broken_link_and_a_missing_heading(tmp_path: Path) -> None:
    """A planted broken link, a link to a missing heading and a link inside code: the first two are found, the
    third is not a link."""
    (tmp_path / "other.md").write_text("# Other page\n\n## The bot's upkeep\n", encoding="utf-8")
    page = tmp_path / "page.md"
    page.write_text(
        "See [gone](gone.md), [ok](other.md#the-bots-upkeep), [bad](other.md#nowhere), ![pic](other.md),\n"
        "[web](https://example.com/x.md) and `[code](nowhere.md)`.\n\n```\n[fenced](nowhere.md)\n```\n",
        encoding="utf-8",
    )
    assert links(page.read_text(encoding="utf-8")) == [
        "gone.md", "other.md#the-bots-upkeep", "other.md#nowhere", "other.md", "https://example.com/x.md"
    ]  # fmt: skip
    assert anchors((tmp_path / "other.md").read_text(encoding="utf-8")) == {"other-page", "the-bots-upkeep"}
    assert broken_links(page, tmp_path) == [
        "page.md: gone.md: no such file",
        "page.md: other.md#nowhere: other.md has no heading #nowhere",
    ]


# Where a page names a file of the repository in code (`graph/reads/context.py`, `reads/context.py`, `context.py`,
# `graph.reads.context`, `graph.store.reader`): the folders the source stands in; a path under any other (a data directory's `data/`, a
# log) is made at run time.
SOURCE_FOLDERS = ("common", "graph", "llm", "ingest", "recall", "bot", "grapevine", "queries", "tests", "bench", "tools",
                  "scripts", "docker", "examples", "docs")  # fmt: skip
NAMED_FILES = (".py", ".cypher", ".sql")
_PATH = re.compile(r"[\w-]+(?:/[\w.-]+)*/?")
# three parts or more: `llm.call` is an event's name
_MODULE = re.compile(r"(?:common|graph|llm|ingest|recall|bot|grapevine|queries)(?:\.\w+){2,}")


def named_paths(text: str) -> list[str]:
    """What a page names in inline code as a file or folder of the source (a path from the repository's root or a
    shorter tail of one, a module file, a dotted module)."""
    found = []
    for code in INLINE_CODE.findall(FENCE.sub("", text)):
        for word in code.strip("`").split():
            word = word.strip(",;:()'\"")
            if any(c in word for c in "*<>{}$=") or word.startswith(("-", ".", "~")):
                continue
            if _PATH.fullmatch(word) and (word.split("/")[0] in SOURCE_FOLDERS or word.endswith(NAMED_FILES)):
                found.append(word)
            elif _MODULE.fullmatch(word):
                found.append(word)
    return found


def missing_paths(text: str, files: set[str]) -> list[str]:
    """Of what a page names, what no file or folder of `files` (paths from the root) is: a path must be one, or the
    tail of one; a dotted module must be a module, or a name in one."""
    known = set(files) | {"/".join(f.split("/")[:i]) for f in files for i in range(1, f.count("/") + 1)}
    wrong = []
    for name in named_paths(text):
        if _MODULE.fullmatch(name) and "/" not in name:
            parts = name.split(".")
            heads = ["/".join(parts[:i]) for i in range(len(parts), 0, -1)]  # a name in a package's __init__: none here
            if f"{heads[0]}/__init__.py" not in known and not any(f"{h}.py" in known for h in heads):
                wrong.append(name)
        elif (path := name.rstrip("/")) not in known and not any(k.endswith("/" + path) for k in known):
            wrong.append(name)
    return wrong


def repository_files() -> set[str]:
    skip = {".git", ".venv", "node_modules", "__pycache__", "data", "log", "build", ".mypy_cache", ".pytest_cache"}
    return {
        p.relative_to(REPO).as_posix()
        for p in REPO.rglob("*")
        if p.is_file() and not skip & set(p.relative_to(REPO).parts) and not p.name.endswith(".egg-info")
    }


def test_every_file_a_page_names_is_there() -> None:
    files = repository_files()
    wrong = {page.name: found for page in PAGES if (found := missing_paths(page.read_text(encoding="utf-8"), files))}
    assert wrong == {}


def test_the_named_file_check_catches_a_file_that_is_gone() -> None:
    files = {
        "graph/reads/__init__.py",
        "graph/reads/context.py",
        "graph/store.py",
        "queries/context/passages.cypher",
        "tests/test_layout.py",
    }
    page = (
        "`graph/reads/context.py`, `reads/context.py`, `context/passages.cypher`, `graph.store.reader`, `graph/`,\n"
        "`llm.call`, `graph.reads.context.conversation`,\n"
        "`reads/reply.py`, `graph/reads/reply.py`, `graph.reads.reply`, `tests/neo4j/`, `data/arcadedb/`, `arcadedb_*.sql`\n"
        "```\n`graph/gone.py`\n```\n"
    )
    assert missing_paths(page, files) == ["reads/reply.py", "graph/reads/reply.py", "graph.reads.reply", "tests/neo4j/"]
