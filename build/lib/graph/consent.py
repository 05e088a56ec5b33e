"""Who may be stored: opted-out members (and forgotten ones) are kept as keyed hashes only."""

from __future__ import annotations

from graph.store import GraphStore


class Consent:
    def __init__(self, store: GraphStore) -> None:
        self.store = store
        self._opted_out: set[str] = set()

    async def load(self) -> None:
        self._opted_out = await self.store.opted_out_keys()

    def allowed(self, user_id: str) -> bool:
        return self.store.consent_key(user_id) not in self._opted_out

    async def opt_out(self, user_id: str) -> None:
        await self.store.opt_out(user_id)
        self._opted_out.add(self.store.consent_key(user_id))

    async def opt_in(self, user_id: str) -> bool:
        self._opted_out.discard(self.store.consent_key(user_id))
        return await self.store.opt_in(user_id)
