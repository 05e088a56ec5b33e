"""The benchmarks' own Cypher (loading generated guilds, counting), kept out of the shipped `queries/`."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from graph import transactions
from graph.session import run_text
from graph.store import GraphStore
from queries import QueryFiles

FILES = QueryFiles(Path(__file__).parent)


async def bench_read(store: GraphStore, name: str, /, **params: Any) -> list[dict[str, Any]]:
    """Rows of one bench query file, `bench/queries/<name>.cypher`, in a read transaction."""
    text = FILES.load(name)
    return await transactions.read(store, lambda tx: run_text(tx, text, **params))


async def bench_write(store: GraphStore, name: str, /, **params: Any) -> list[dict[str, Any]]:
    """The same in a write transaction."""
    text = FILES.load(name)
    return await transactions.write(store, lambda tx: run_text(tx, text, **params))
