"""Who may be stored: opted-out members (and forgotten ones) are kept as keyed hashes only."""

from __future__ import annotations

from collections.abc import Iterable

from graph import optout_guard
from graph.store import GraphStore


class Consent:
    def __init__(self, store: GraphStore) -> None:
        self.store = store
        self._opted_out: set[str] = set()

    async def load(self) -> None:
        self._opted_out = await self.store.opted_out_keys()

    async def refresh_among(self, user_ids: Iterable[str]) -> set[str]:
        """Which of these ids are opted out now, read from the store (one indexed read), so an opt-out by
        another process (the CLI) holds here too; the cache learns them, and forgets an opt-in meanwhile."""
        ids = {i for i in user_ids if i}
        if not ids:
            return set()
        out = await self.store.runner.read_tx(lambda tx: optout_guard.opted_out(tx, self.store.consent_key, ids))
        for user_id in ids:
            key = self.store.consent_key(user_id)
            if user_id in out:
                self._opted_out.add(key)
            else:
                self._opted_out.discard(key)
        return out

    def allowed(self, user_id: str) -> bool:
        return self.store.consent_key(user_id) not in self._opted_out

    async def opt_out(self, user_id: str) -> None:
        await self.store.opt_out(user_id)
        self._opted_out.add(self.store.consent_key(user_id))

    async def opt_in(self, user_id: str) -> bool:
        self._opted_out.discard(self.store.consent_key(user_id))
        return await self.store.opt_in(user_id)
