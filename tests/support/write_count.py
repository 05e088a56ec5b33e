"""Counts the write transactions a store opens while a block runs (`with CountedWrites(store) as writes:`)."""

from __future__ import annotations

from typing import Any

from graph.store import GraphStore


class CountedWrites:
    def __init__(self, store: GraphStore) -> None:
        self.store = store
        self.count = 0

    def __enter__(self) -> CountedWrites:
        self._write = write = self.store.runner.write

        async def counted(work: Any) -> Any:
            self.count += 1
            return await write(work)

        self.store.runner.write = counted  # type: ignore[method-assign]
        return self

    def __exit__(self, *_: object) -> None:
        self.store.runner.write = self._write  # type: ignore[method-assign]
