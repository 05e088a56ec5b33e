"""Erasure that reaches ArcadeDB's files. Two places keep what a transaction deleted:
- its LSM-tree indexes (unique, lookup and full-text) keep the keys of deleted records in their pages until the
  index is rebuilt, so a forgotten member's id, names, message ids and words stay readable in the `*.umtidx` /
  `*.numtidx` files. Rebuilding each index writes fresh files from the live records and deletes the old ones.
- its write-ahead log (`txlog_*.wal`) holds every page each transaction wrote, the member's records as they were
  imported among them, until the log reaches 64 MB or the database is closed. An engine that keeps serving (the
  bot, or the one `grapevine` commands leave in the background) would keep them for hours, so the purge closes
  the database, which flushes its pages and deletes the log, and opens it again (under a second).

`REBUILD INDEX` drops an index and creates it again from the type's declared properties; an index created
from Cypher has none declared, and the rebuild then fails and leaves the index *missing* (measured on
arcadedb-embedded 26.10.2). So each indexed property not declared yet is declared first, with the key type the
index reports, and the caller re-creates the schema afterwards in case a rebuild still failed.

Each step is one HTTP request (an SQL script) rather than one per index: the work of a rebuild is small next to
a request's round trip on a busy machine. A script stops at its first error, so when one fails the rebuilds run
again one at a time, to tell which index failed and why."""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any, Protocol

_REBUILT_KINDS = ("LSM_TREE", "FULL_TEXT")  # vector indexes hold embeddings only, no text or ids


# A rebuild reads the whole index: at 1,000,000 facts the largest took longer than the HTTP calls' 60 s
REBUILD_TIMEOUT_S = 3600.0
WAL = "write-ahead log"  # its entry in PurgeReport.failed when the database could not be closed


class _Sql(Protocol):
    async def sql(self, command: str, timeout: float = ...) -> dict[str, Any]: ...  # noqa: ASYNC109 - as ArcadeDB.sql

    async def sql_script(self, script: str, timeout: float = ...) -> dict[str, Any]: ...  # noqa: ASYNC109

    async def reopen_database(self) -> None: ...


@dataclass
class PurgeReport:
    rebuilt: list[str] = field(default_factory=list)
    failed: dict[str, str] = field(default_factory=dict)
    seconds: float = 0.0
    log_dropped: bool = False  # the write-ahead log was deleted (the database closed and opened again)


def quoted_name(name: str) -> str:
    if "`" in name:
        raise ValueError(f"unexpected index or property name {name!r}")
    return f"`{name}`"


def type_indexes(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The type-level indexes (a bucket-level one has a fileId and is rebuilt with its type's)."""
    return [r for r in rows if "fileId" not in r and r.get("indexType") in _REBUILT_KINDS and r.get("typeName")]


def _undeclared(indexes: list[dict[str, Any]], types: list[dict[str, Any]]) -> list[str]:
    """`CREATE PROPERTY` for each indexed property its type does not declare yet (full-text indexes are created
    in SQL with theirs declared: queries/schema/arcadedb_fulltext.sql)."""
    declared = {(t.get("name"), p.get("name")) for t in types for p in t.get("properties") or ()}
    wanted: dict[tuple[str, str], str] = {}
    for index in indexes:
        if index["indexType"] == "FULL_TEXT":
            continue
        props = [p for group in index["properties"] for p in (group if isinstance(group, list) else [group])]
        for prop, kind in zip(props, index.get("keyTypes") or [], strict=False):
            if (index["typeName"], prop) not in declared:
                wanted.setdefault((index["typeName"], prop), kind)
    return [f"CREATE PROPERTY {quoted_name(t)}.{quoted_name(p)} IF NOT EXISTS {kind}" for (t, p), kind in wanted.items()]


def _outcome(report: PurgeReport, name: str, result: list[dict[str, Any]]) -> None:
    failed = result[0].get("failedIndexes") if result else None
    if failed:
        report.failed[name] = f"bucket indexes failed: {failed}"
    else:
        report.rebuilt.append(name)


async def _rebuild_one_by_one(engine: _Sql, names: list[str], report: PurgeReport) -> None:
    for name in names:
        try:
            result = (await engine.sql(f"REBUILD INDEX {quoted_name(name)}", timeout=REBUILD_TIMEOUT_S))["result"]
        except (RuntimeError, OSError) as exc:  # OSError: a timeout, a dropped connection; the purge stays due
            report.failed[name] = f"{type(exc).__name__}: {exc}"[:300]
            continue
        _outcome(report, name, result)


async def rebuild_indexes(engine: _Sql) -> PurgeReport:
    """Declare every indexed property, then rebuild each index, one after the other (each blocks writes to its
    type while it runs). Names come from the engine's own schema, never from user text."""
    started = time.monotonic()
    report = PurgeReport()
    indexes = type_indexes((await engine.sql("SELECT FROM schema:indexes"))["result"])
    declare = _undeclared(indexes, (await engine.sql("SELECT FROM schema:types"))["result"])
    if declare:
        await engine.sql_script(";\n".join(declare))
    names = [index["name"] for index in indexes]
    script = [f"LET r{i} = REBUILD INDEX {quoted_name(name)}" for i, name in enumerate(names)]
    script.append("RETURN [" + ", ".join(f"$r{i}" for i in range(len(names))) + "]")
    try:
        results = (await engine.sql_script(";\n".join(script), timeout=REBUILD_TIMEOUT_S))["result"] if names else []
    except (RuntimeError, OSError):
        results = None
    if results is None or len(results) != len(names):
        await _rebuild_one_by_one(engine, names, report)
    else:
        for name, result in zip(names, results, strict=True):
            _outcome(report, name, result.get("value") or [])
    report.seconds = time.monotonic() - started
    return report


async def purge_files(engine: _Sql) -> PurgeReport:
    """Rebuild the indexes, then delete the write-ahead log by closing the database and opening it again (a
    transaction another client has open at that moment is rolled back, and fails). The log stays when a rebuild
    failed: one that timed out may still run in the engine, and the purge is due again anyway."""
    started = time.monotonic()
    report = await rebuild_indexes(engine)
    if not report.failed:
        try:
            await engine.reopen_database()
        except (RuntimeError, OSError) as exc:
            report.failed[WAL] = f"{type(exc).__name__}: {exc}"[:300]
        else:
            report.log_dropped = True
    report.seconds = time.monotonic() - started
    return report
