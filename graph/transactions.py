"""A caller's own unit of work on an open store, in one read or one write transaction, retried as every
statement of graph/ is (graph/session.py): for Cypher that is not the runtime's (the benchmarks' loaders and
counts, a test's check), so that nothing outside graph/ holds the runner."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import TypeVar

from graph.session import Tx
from graph.store import GraphStore

T = TypeVar("T")


async def read(store: GraphStore, work: Callable[[Tx], Awaitable[T]]) -> T:
    return await store.runner.read_tx(work)


async def write(store: GraphStore, work: Callable[[Tx], Awaitable[T]]) -> T:
    return await store.runner.write(work)
