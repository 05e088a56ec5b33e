"""Every Cypher statement of grapevine, one `.cypher` file each, behind this loader.

`load("store/record_message")` returns the text of `queries/store/record_message.cypher`.
The linter, the tests and operators read the same files.
"""

from __future__ import annotations

from functools import cache
from pathlib import Path

ROOT = Path(__file__).resolve().parent


@cache
def load(name: str) -> str:
    path = (ROOT / f"{name}.cypher").resolve()
    if ROOT not in path.parents:
        raise KeyError(f"not a query name: {name!r}")
    if not path.is_file():
        raise KeyError(f"no query named {name!r} (looked for {path})")
    return path.read_text(encoding="utf-8")


def all_files() -> list[Path]:
    return sorted(ROOT.rglob("*.cypher"))


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
