"""A strict reader for Neo4j Browser's graph style sheets (GraSS, `docker/grapevine.grass`).

GraSS is `selector { property: value; ... }` blocks, with `node` or `relationship` selectors
narrowed by labels or a type (`node.Fact.Closed`, `relationship.ABOUT`). Neo4j Browser's own
parser is lax and silently loses what it misreads, so this one refuses anything Browser would
not take as written:

- a comment anywhere but after the last block (Browser glues text before a block onto its
  selector), or one holding quotes or braces;
- double-quoted values (Browser keeps the `"` characters in the caption; quote with `'`);
- a `:` inside a value (Browser keeps only what comes before a second colon);
- unknown property names, bad selectors, empty values, repeated selectors or properties.
"""

from __future__ import annotations

import re
from pathlib import Path

PROPERTIES = frozenset(
    {
        "diameter",
        "color",
        "border-color",
        "border-width",
        "text-color-internal",
        "text-color-external",
        "font-size",
        "caption",
        "shaft-width",
        "padding",
    }
)
_SELECTOR = re.compile(r"^(node|relationship)(\.[A-Za-z_][A-Za-z0-9_]*)*$")
_RULE = re.compile(r"\s*(?P<selector>[^\s{}]+)\s*\{(?P<body>(?:[^{}']|'[^'\n]*')*)\}")
_TRAILER = re.compile(r"(?:\s*/\*(?P<comment>.*?)\*/)*\s*", re.DOTALL)
_PROPERTY = re.compile(r"^\s*(?P<key>[a-z][a-z-]*)\s*:\s*(?P<value>.*?)\s*$", re.DOTALL)


class GrassError(ValueError):
    """A style sheet Neo4j Browser would misread."""


def load_grass(path: Path) -> dict[str, dict[str, str]]:
    """The style sheet in `path`, parsed (GrassError names the file)."""
    try:
        return parse_grass(path.read_text(encoding="utf-8"))
    except GrassError as exc:
        raise GrassError(f"{path}: {exc}") from None


def parse_grass(text: str) -> dict[str, dict[str, str]]:
    """Selector -> {property: value}, in file order (later blocks win in Browser)."""
    rules: dict[str, dict[str, str]] = {}
    pos = 0
    while True:
        match = _RULE.match(text, pos)
        if not match:
            break
        selector = match["selector"]
        line = text.count("\n", 0, match.start("selector")) + 1
        if not _SELECTOR.match(selector):
            raise GrassError(
                f"line {line}: {selector!r} is not a node or relationship selector (e.g. node.Fact, relationship.ABOUT)"
            )
        if selector in rules:
            raise GrassError(f"line {line}: {selector} is styled twice")
        rules[selector] = _properties(selector, line, match["body"])
        pos = match.end()
    trailer = _TRAILER.fullmatch(text, pos)
    if trailer is None:
        line = text.count("\n", 0, pos) + 1
        raise GrassError(f"line {line}: {_diagnose(text[pos:])}")
    for comment in re.findall(r"/\*(.*?)\*/", text[pos:], re.DOTALL):
        if re.search(r"['{}]", comment):
            raise GrassError("the closing comment holds a quote or a brace, which Neo4j Browser would read as style")
    if not rules:
        raise GrassError("no style blocks")
    return rules


def _diagnose(rest: str) -> str:
    """Why the text from here is not a block (or a closing comment)."""
    found = repr(rest.strip()[:40])
    if rest.lstrip().startswith("/*"):
        return "comments are allowed only after the last block (Browser glues text before a block onto its selector)"
    code = re.sub(r"'[^'\n]*'", "''", rest)
    if '"' in code.split("}", 1)[0]:
        return f"double quotes, which Browser keeps in the text: quote with ' ({found})"
    if "'" in code.replace("''", ""):
        return f"a quote is not closed before the end of the line ({found})"
    if code.lstrip().startswith("}"):
        return f"a `}}` without a block ({found})"
    if "{" not in code:
        return f"a selector without a block ({found})"
    if "}" not in code.split("{", 1)[1]:
        return f"a block is not closed ({found})"
    if "{" in code.split("{", 1)[1].split("}", 1)[0]:
        return f"a brace inside a block: quote captions, as in caption: '{{name}}' ({found})"
    return f"expected `selector {{ property: value; }}` ({found})"


def _properties(selector: str, line: int, body: str) -> dict[str, str]:
    props: dict[str, str] = {}
    for part in re.findall(r"(?:[^;']|'[^']*')+", body):
        if not part.strip():
            continue
        match = _PROPERTY.match(part)
        if not match:
            raise GrassError(f"{selector} (line {line}): cannot read {part.strip()!r}: write `property: value;`")
        key, value = match["key"], match["value"]
        if key not in PROPERTIES:
            raise GrassError(f"{selector}: unknown property {key!r}; Browser knows {', '.join(sorted(PROPERTIES))}")
        if key in props:
            raise GrassError(f"{selector}: {key} is set twice")
        if '"' in value:
            raise GrassError(f"{selector}: {key} uses double quotes, which Browser keeps in the text: quote with '")
        if len(value) >= 2 and value[0] == value[-1] == "'":
            value = value[1:-1]
        elif "'" in value:
            raise GrassError(f"{selector}: {key} has an unbalanced quote")
        if ":" in value:
            raise GrassError(f"{selector}: {key} holds a ':', after which Browser drops the rest")
        if not value.strip():
            raise GrassError(f"{selector}: {key} has no value")
        props[key] = value
    return props
