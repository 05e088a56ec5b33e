"""Operators' saved queries: `queries/operator/*.cypher`, each a read-only query with a header.

A header is the file's leading `//` lines, three of them required:

    // title: Who reported facts about a user
    // answers: For each fact about the user in the guild, who said it and when.
    // params: guild_id (string, required) - the guild; user_id (string, required) - the Discord user id

`params:` lists `name (type, required|optional) - description` separated by `;` (or `none`);
types are string, int, float, bool, words (a search's words as anyone types them, sent as a full-text query
that matches each of them as a word: common.text.lucene_all) and datetime (given as ISO-8601 text, sent as a native datetime in UTC:
ArcadeDB reads a range of a datetime index only for a bare native parameter, `f.at >= $since`, never for
`datetime($since)`; in Neo4j Browser set it with `:param since => datetime('...')`). Other `//` lines of
the header are free notes.

Write protection rests on the engine: the CLI and the explorer run these queries as a user that may only
read (on ArcadeDB the engine's read-only user, `graph.engines.arcadedb.ArcadeDBEngine.reader_driver`; on Neo4j
a READ session, which Neo4j enforces, as the user NEO4J_READER_USER with the `reader` role when one is
configured), in a read transaction that is always rolled back. `check_read_only` runs before that: a
courtesy check that names the clause an operator should not have written, never the defence. It reads the
query as either engine's lexer might (comments ending at any line break, strings with and without backslash
escapes, names in backticks, unicode escapes decoded) and refuses writes, procedures other than the read-only
ones below, APOC and administration commands.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any

import neo4j
from neo4j import AsyncManagedTransaction
from neo4j.graph import Node, Relationship
from neo4j.graph import Path as GraphPath
from neo4j.time import Date, DateTime, Duration, Time

import queries
from common import bounds, ids
from common.ids import shown
from common.text import lucene_all
from graph.store import GraphStore

OPERATOR_DIR = "operator"
TYPES = ("string", "int", "float", "bool", "datetime", "words")
MAX_STRING_CHARS = 2000  # a parameter's text: ids, names, dates and words are far shorter
# parameters that hold an id: read as one (ASCII digits; a channel's '' is the shared channels' scope)
_IDS = {"guild_id": ids.guild_id, "user_id": ids.user_id, "channel_id": ids.channel_id}
HIDDEN_PROPERTIES = frozenset({"embedding"})  # 384 floats: noise in a table
_PARAM_RE = re.compile(
    r"^(?P<name>[A-Za-z_]\w*)\s*\(\s*(?P<type>\w+)\s*,\s*(?P<req>required|optional)\s*\)\s*(?:-\s*(?P<desc>.*))?$"
)
# writes, and commands that administer the server, end transactions or leave the graph (USE, SHOW)
_REFUSED = re.compile(
    r"\b(CREATE|MERGE|SET|DELETE|REMOVE|DROP|FOREACH|INSERT|LOAD|TRANSACTIONS|TERMINATE|ALTER|GRANT|DENY|REVOKE|RENAME"
    r"|DEALLOCATE|REALLOCATE|(?:START|STOP)\s+DATABASE|ENABLE\s+SERVER|USE\s+[A-Za-z_]\w*|SHOW\s+[A-Za-z_]\w*)\b",
    re.IGNORECASE,
)
_PROCEDURE = re.compile(r"\bCALL\s+([A-Za-z_][\w.]*)", re.IGNORECASE)
READ_PROCEDURES = frozenset(
    {
        "db.index.fulltext.querynodes",
        "db.index.fulltext.queryrelationships",
        "db.index.vector.querynodes",
        "db.index.vector.queryrelationships",
        "db.labels",
        "db.relationshiptypes",
        "db.propertykeys",
    }
)
_NAMESPACE = re.compile(r"\b(apoc|dbms|gds|genai)\.", re.IGNORECASE)  # procedures and functions with side effects
_LINE_BREAKS = "\n\r\x0b\x0c\x1c\x1d\x1e\x85\u2028\u2029"  # a // comment ends at the first, whichever the engine takes
_UNICODE_ESCAPE = re.compile(r"\\u+([0-9A-Fa-f]{4})")
_TRUE, _FALSE = {"true", "yes", "1", "on"}, {"false", "no", "0", "off"}


class QueryHeaderError(ValueError):
    """An operator query file whose comment header is missing or malformed."""


class ReadOnlyViolation(ValueError):
    """An operator query that would write or administer: refused before it reaches the database."""


@dataclass(frozen=True)
class QueryParam:
    name: str
    type: str
    required: bool
    description: str = ""


@dataclass(frozen=True)
class OperatorQuery:
    name: str
    title: str
    answers: str
    params: list[QueryParam]
    text: str


def parse_header(name: str, text: str) -> OperatorQuery:
    """The query described by its file's leading `//` lines (QueryHeaderError when malformed)."""
    fields: dict[str, str] = {}
    for line in text.splitlines():
        stripped = line.strip()
        if not stripped.startswith("//"):
            break
        key, sep, value = stripped[2:].strip().partition(":")
        if sep and key.strip() in ("title", "answers", "params"):
            if key.strip() in fields:
                raise QueryHeaderError(f"{name}: `{key.strip()}:` appears twice in the header")
            fields[key.strip()] = value.strip()
    missing = [k for k in ("title", "answers", "params") if k not in fields]
    if missing:
        raise QueryHeaderError(f"{name}: the header lacks {', '.join(f'`// {k}:`' for k in missing)}")
    if not fields["title"] or not fields["answers"]:
        raise QueryHeaderError(f"{name}: `title:` and `answers:` need text")
    return OperatorQuery(name, fields["title"], fields["answers"], _parse_params(name, fields["params"]), text)


def _parse_params(name: str, spec: str) -> list[QueryParam]:
    if spec.lower() in ("", "none"):
        return []
    out: list[QueryParam] = []
    for part in spec.split(";"):
        match = _PARAM_RE.match(part.strip())
        if not match:
            raise QueryHeaderError(
                f"{name}: cannot read parameter {part.strip()!r}: write `name (type, required|optional) - description`"
            )
        if match["type"] not in TYPES:
            raise QueryHeaderError(f"{name}: parameter {match['name']} has type {match['type']!r}, not one of {', '.join(TYPES)}")
        if any(p.name == match["name"] for p in out):
            raise QueryHeaderError(f"{name}: parameter {match['name']} is declared twice")
        out.append(QueryParam(match["name"], match["type"], match["req"] == "required", (match["desc"] or "").strip()))
    return out


def list_queries(directory: Path | None = None) -> list[OperatorQuery]:
    """Every operator query, by name (the file name without `.cypher`)."""
    folder = directory or queries.ROOT / OPERATOR_DIR
    return [parse_header(path.stem, path.read_text(encoding="utf-8")) for path in sorted(folder.glob("*.cypher"))]


def get_query(name: str) -> OperatorQuery:
    found = {q.name: q for q in list_queries()}
    if name not in found:
        raise KeyError(f"no operator query named {name!r}; known: {', '.join(sorted(found))}")
    return found[name]


def coerce_params(query: OperatorQuery, raw: dict[str, str]) -> dict[str, Any]:
    """Typed parameters from strings (a command line); optional ones missing become None, datetimes are
    aware `datetime`s in UTC (the driver sends them as native datetimes)."""
    known = {p.name: p for p in query.params}
    unknown = sorted(set(raw) - set(known))
    if unknown:
        names = ", ".join(known) or "none"
        raise ValueError(f"{query.name}: unknown parameter(s) {', '.join(unknown)}; known parameters: {names}")
    out: dict[str, Any] = {}
    for param in query.params:
        value = raw.get(param.name)
        if value is None or (isinstance(value, str) and value.strip() == "" and param.type != "string"):
            if param.required:
                raise ValueError(f"{query.name}: parameter {param.name} ({param.type}) is required: {param.description}")
            out[param.name] = None
            continue
        out[param.name] = _coerce(query.name, param, value)
    return out


def _coerce(query_name: str, param: QueryParam, value: Any) -> Any:
    """One parameter from its text, read strictly once (common.bounds, common.ids); ValueError says what is wrong."""
    text = value if isinstance(value, str) else str(value)
    if len(text) > MAX_STRING_CHARS:
        raise ValueError(f"{query_name}: parameter {param.name} is longer than {MAX_STRING_CHARS} characters ({len(text)})")
    what = f"{query_name}: parameter {param.name}"
    if param.type == "int":
        if param.name in bounds.COUNTS:
            return bounds.count(text, what, noun="int")
        return bounds.whole_number(text, what, noun="int")
    if param.type == "float":
        return bounds.decimal(text, what, noun="float")
    if param.type == "datetime":
        return bounds.instant(text, what, noun="datetime")
    if param.type == "bool":
        if text.strip().lower() in _TRUE | _FALSE:
            return text.strip().lower() in _TRUE
        raise ValueError(f"{what} must be bool, got {shown(text.strip())} (true or false)")
    if param.type == "words":
        query = lucene_all(text)
        if not query:
            raise ValueError(f"{what} holds no word to search for, got {shown(text.strip())}")
        return query
    if param.name in _IDS:
        return _IDS[param.name](text, what)
    return text


def check_read_only(query: OperatorQuery) -> None:
    """Refuse a query that would write, call a procedure with side effects or administer the server (comments
    and strings are not looked at). A courtesy check: the engine's read-only user is what stops a write."""
    found = refused_clause(query.text)
    if found:
        raise ReadOnlyViolation(
            f"{query.name}: operator queries are read-only, and this one has {found} (a courtesy check: they run "
            "as a user the engine holds to reading)"
        )


def refused_clause(text: str) -> str | None:
    """The first clause, procedure or namespace the query may not use, as the query reads under any of the
    lexings an engine might apply; None when there is none."""
    readings = {text, _UNICODE_ESCAPE.sub(lambda m: chr(int(m[1], 16)), text)}
    for reading in readings:
        for escapes in (True, False):
            code = _code_only(reading, escapes=escapes)
            if escapes and reading == text and "\\" in code:
                return "a backslash outside a string (a unicode escape?)"
            code = re.sub(r"\s*\.\s*", ".", code)  # `db . createLabel`: the engine ignores the space
            found = _REFUSED.search(code)
            if found:
                return " ".join(found[1].upper().split())
            for call in _PROCEDURE.finditer(code):
                if call[1].lower() not in READ_PROCEDURES:
                    return f"CALL {call[1]}"
            namespace = _NAMESPACE.search(code)
            if namespace:
                return f"{namespace[1]}.*"
    return None


def _code_only(text: str, *, escapes: bool = True) -> str:
    """`text` without comments and with string literals emptied, one pass like a lexer; names in backticks are
    kept as code (a procedure's name may hide in them). `escapes`: a backslash escapes the next character in
    a string (Neo4j's lexer), else it does not."""
    out: list[str] = []
    i, n = 0, len(text)
    while i < n:
        c = text[i]
        if c in "'\"":
            end = i + 1
            while end < n and text[end] != c:
                end += 2 if escapes and text[end] == "\\" else 1
            out.append(" '' ")
            i = end + 1
        elif c == "`":
            end = i + 1
            while end < n and (text[end] != "`" or text.startswith("``", end)):
                end += 2 if text.startswith("``", end) else 1
            out.append(" " + text[i + 1 : end].replace("``", "`") + " ")
            i = end + 1
        elif text.startswith("//", i):
            ends = [found for found in (text.find(b, i) for b in _LINE_BREAKS) if found != -1]
            i = min(ends, default=n)
        elif text.startswith("/*", i):
            end = text.find("*/", i + 2)
            i = i + 2 if end == -1 else end + 2  # unclosed: what follows is read as code, so nothing hides in it
            out.append(" ")
        else:
            out.append(c)
            i += 1
    return "".join(out)


class _Rollback(Exception):
    def __init__(self, rows: list[dict[str, Any]]) -> None:
        self.rows = rows


async def run_operator_query(store: GraphStore, query: OperatorQuery, params: dict[str, Any]) -> list[dict[str, Any]]:
    """Rows as plain values (ISO strings, dicts for nodes, relationships and paths)."""
    check_read_only(query)
    full = {p.name: None for p in query.params} | params
    return await read_rolled_back(store, query.text, full)


def read_only_statements(folder: str) -> dict[str, str]:
    """The statements of `queries/<folder>/` by name, each refused here if it would write."""
    found = {name: queries.load(f"{folder}/{name}") for name in queries.names_in(folder)}
    for name, text in found.items():
        check_read_only(OperatorQuery(f"{folder}/{name}", name, "", [], text))
    return found


async def read_rolled_back(store: GraphStore, text: str, params: dict[str, Any]) -> list[dict[str, Any]]:
    """Run `text` in a READ session's transaction that is rolled back whatever it did."""

    async def work(tx: AsyncManagedTransaction) -> list[dict[str, Any]]:
        result = await tx.run(text, params)
        rows = [{key: plain(record[key]) for key in record.keys()} async for record in result]
        raise _Rollback(rows)  # leaving a managed transaction by an exception rolls it back

    async with store.driver.session(database=store.engine.database, default_access_mode=neo4j.READ_ACCESS) as session:
        try:
            await session.execute_read(work)
        except _Rollback as done:
            return done.rows
    raise AssertionError("unreachable: the work function always raises")


def plain(value: Any) -> Any:
    """A driver value as JSON-friendly data."""
    if isinstance(value, (DateTime, Date, Time)):
        return value.iso_format()
    if isinstance(value, Duration):
        return value.iso_format()
    if isinstance(value, datetime):
        return value.isoformat()
    if isinstance(value, Node):
        return {"_id": value.element_id, "_labels": sorted(value.labels), **_properties(value)}
    if isinstance(value, Relationship):
        return {
            "_id": value.element_id,
            "_type": value.type,
            "_start": value.start_node.element_id if value.start_node else None,
            "_end": value.end_node.element_id if value.end_node else None,
            **_properties(value),
        }
    if isinstance(value, GraphPath):
        return {"nodes": [plain(n) for n in value.nodes], "relationships": [plain(r) for r in value.relationships]}
    if isinstance(value, dict):
        return {k: plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [plain(v) for v in value]
    return value


def _properties(entity: Node | Relationship) -> dict[str, Any]:
    return {k: plain(v) for k, v in entity.items() if k not in HIDDEN_PROPERTIES}
