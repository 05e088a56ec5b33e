"""Erasure that reaches ArcadeDB's files: its LSM-tree indexes (unique, lookup and full-text) keep the keys
of deleted records in their pages until the index is rebuilt, so a forgotten member's id, names, message
ids and words stay readable in the `*.umtidx` / `*.numtidx` files. Rebuilding each index writes fresh files
from the live records and deletes the old ones.

`REBUILD INDEX` drops an index and creates it again from the type's declared properties; an index created
from Cypher has none declared, and the rebuild then fails and leaves the index *missing* (measured on
arcadedb-embedded 26.10.2). So each indexed property is declared first, with the key type the index
reports, and the caller re-creates the schema afterwards in case a rebuild still failed."""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any, Protocol

_REBUILT_KINDS = ("LSM_TREE", "FULL_TEXT")  # vector indexes hold embeddings only, no text or ids


# A rebuild reads the whole index: at 1,000,000 facts the largest took longer than the HTTP calls' 60 s
REBUILD_TIMEOUT_S = 3600.0


class _Sql(Protocol):
    async def sql(self, command: str, timeout: float = ...) -> dict[str, Any]: ...  # noqa: ASYNC109 - as ArcadeDB.sql


@dataclass
class PurgeReport:
    rebuilt: list[str] = field(default_factory=list)
    failed: dict[str, str] = field(default_factory=dict)
    seconds: float = 0.0


def _quoted(name: str) -> str:
    if "`" in name:
        raise ValueError(f"unexpected index or property name {name!r}")
    return f"`{name}`"


def _type_indexes(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The type-level indexes (a bucket-level one has a fileId and is rebuilt with its type's)."""
    return [r for r in rows if "fileId" not in r and r.get("indexType") in _REBUILT_KINDS and r.get("typeName")]


async def rebuild_indexes(engine: _Sql) -> PurgeReport:
    """Declare every indexed property, then rebuild each index, one at a time (each blocks writes to its
    type while it runs). Names come from the engine's own schema, never from user text."""
    started = time.monotonic()
    report = PurgeReport()
    indexes = _type_indexes((await engine.sql("SELECT FROM schema:indexes"))["result"])
    for index in indexes:
        if index["indexType"] == "FULL_TEXT":
            continue  # created in SQL with its properties declared (queries/schema/arcadedb_fulltext.sql)
        props = [p for group in index["properties"] for p in (group if isinstance(group, list) else [group])]
        for prop, kind in zip(props, index.get("keyTypes") or [], strict=False):
            await engine.sql(f"CREATE PROPERTY {_quoted(index['typeName'])}.{_quoted(prop)} IF NOT EXISTS {kind}")
    for index in indexes:
        try:
            result = (await engine.sql(f"REBUILD INDEX {_quoted(index['name'])}", timeout=REBUILD_TIMEOUT_S))["result"]
        except (RuntimeError, OSError) as exc:  # OSError: a timeout, a dropped connection; the purge stays due
            report.failed[index["name"]] = f"{type(exc).__name__}: {exc}"[:300]
            continue
        failed = result[0].get("failedIndexes") if result else None
        if failed:
            report.failed[index["name"]] = f"bucket indexes failed: {failed}"
        else:
            report.rebuilt.append(index["name"])
    report.seconds = time.monotonic() - started
    return report
