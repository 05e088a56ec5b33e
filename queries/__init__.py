"""Every Cypher statement of grapevine, one `.cypher` file each, behind this loader.

`load("store/record_message")` returns the text of `queries/store/record_message.cypher`.
The linter, the tests and operators read the same files.
"""

from __future__ import annotations

from functools import cache
from pathlib import Path

ROOT = Path(__file__).resolve().parent


class QueryFiles:
    """The `.cypher` files under one folder, loaded by name (`"store/record_message"`)."""

    def __init__(self, root: Path) -> None:
        self.root = root.resolve()

    @cache  # noqa: B019 - a handful of long-lived instances; the cache is meant to live as long
    def load(self, name: str) -> str:
        path = (self.root / f"{name}.cypher").resolve()
        if self.root not in path.parents:
            raise KeyError(f"not a query name: {name!r}")
        if not path.is_file():
            raise KeyError(f"no query named {name!r} (looked for {path})")
        return path.read_text(encoding="utf-8")

    def all_files(self) -> list[Path]:
        return sorted(self.root.rglob("*.cypher"))

    def names_in(self, folder: str) -> list[str]:
        """The names of the statements directly in `folder`, without the folder (`"guilds"` for `explore/guilds`)."""
        return [path.stem for path in sorted((self.root / folder).glob("*.cypher"))]


FILES = QueryFiles(ROOT)


def load(name: str) -> str:
    return FILES.load(name)


def all_files() -> list[Path]:
    return FILES.all_files()


def names_in(folder: str) -> list[str]:
    return FILES.names_in(folder)


def statements(text: str) -> list[str]:
    """Split a schema file into statements (`;` at the end of a line ends one)."""
    out, current = [], []
    for line in text.splitlines():
        if line.strip().startswith("//"):
            continue
        current.append(line)
        if line.rstrip().endswith(";"):
            out.append("\n".join(current).rstrip().rstrip(";").strip())
            current = []
    tail = "\n".join(current).strip()
    if tail:
        out.append(tail)
    return [s for s in out if s]
