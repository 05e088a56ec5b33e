"""Who may be stored: opted-out members (and forgotten ones) are kept as keyed hashes only. An import learns here
which of a file's members are opted out at the time it writes, and which of their names (the file's) stand for
them in what others wrote, so that it stores neither them nor their names, whenever their opt-out happened."""

from __future__ import annotations

import hashlib
import hmac
from collections.abc import Awaitable, Callable, Iterable, Mapping, Sequence

from common.clock import now_utc
from common.names import fold, identifying_names
from graph.models import User, iso
from graph.privacy.guards import optout_guard
from graph.privacy.guards.name_scope import taken
from graph.session import Tx, run
from graph.store import GraphStore

OptedOut = Callable[[set[str]], Awaitable[set[str]]]  # which of these user ids opted out (or were forgotten)
CONSENT_KEYS_KEPT = 100_000  # user ids whose consent key is kept in memory (then the memo starts again)


def consent_key(store: GraphStore, user_id: str) -> str:
    """A keyed hash of a user id: remembers an opt-out without storing the id."""
    if store.salt is None:
        raise RuntimeError("setup_schema() first: the consent key needs the graph's salt")
    key = store.consent_keys.get(user_id)  # asked for every message recorded: kept, as the salt never changes
    if key is None:
        if len(store.consent_keys) >= CONSENT_KEYS_KEPT:
            store.consent_keys.clear()
        key = store.consent_keys[user_id] = hmac.new(store.salt.encode(), user_id.encode(), hashlib.sha256).hexdigest()
    return key


def keyed(store: GraphStore) -> Callable[[str], str]:
    """`consent_key` of this store, for the opt-out guard (graph/privacy/guards/optout_guard.py)."""
    return lambda user_id: consent_key(store, user_id)


async def opt_out(store: GraphStore, user_id: str) -> None:
    await store.runner.write_one("store/opt_out", key=consent_key(store, user_id), now=iso(now_utc()))


async def opt_in(store: GraphStore, user_id: str) -> bool:
    result = await store.runner.write_one("store/opt_in", key=consent_key(store, user_id))
    return bool(result and result[0]["removed"])


async def opted_out_keys(store: GraphStore) -> set[str]:
    return {r["key"] for r in await store.runner.read("store/opted_out")}


class Consent:
    def __init__(self, store: GraphStore) -> None:
        self.store = store
        self._opted_out: set[str] = set()

    async def load(self) -> None:
        self._opted_out = await opted_out_keys(self.store)

    async def refresh_among(self, user_ids: Iterable[str]) -> set[str]:
        """Which of these ids are opted out now, read from the store (one indexed read), so an opt-out by
        another process (the CLI) holds here too; the cache learns them, and forgets an opt-in meanwhile."""
        ids = {i for i in user_ids if i}
        if not ids:
            return set()
        out = await self.store.runner.read_tx(lambda tx: optout_guard.opted_out(tx, keyed(self.store), ids))
        for user_id in ids:
            key = consent_key(self.store, user_id)
            if user_id in out:
                self._opted_out.add(key)
            else:
                self._opted_out.discard(key)
        return out

    def allowed(self, user_id: str) -> bool:
        return consent_key(self.store, user_id) not in self._opted_out

    async def opt_out(self, user_id: str) -> None:
        await opt_out(self.store, user_id)
        self._opted_out.add(consent_key(self.store, user_id))

    async def opt_in(self, user_id: str) -> bool:
        self._opted_out.discard(consent_key(self.store, user_id))
        return await opt_in(self.store, user_id)

    async def hidden_names(self, guild_id: str, users: Mapping[str, User], out: Iterable[str]) -> list[str]:
        """The names the file gives opted-out members (`out`) that identify them in the guild: no common word of
        any supported language, carried by no other member of the file or of the guild in the graph."""
        hidden = [u for i, u in users.items() if i in set(out)]
        if not hidden:
            return []
        others = {fold(n) for i, u in users.items() if i not in set(out) for n in (u.name, u.display_name) if n}

        async def names(tx: Tx) -> list[str]:
            found: set[str] = set()
            for user in hidden:
                carried = [n for n in dict.fromkeys((user.name, user.display_name)) if n]
                shared = others | await taken(tx, user.id, guild_id, carried)
                found.update(identifying_names(carried, shared))
            return sorted(found)

        return await self.store.runner.read_tx(names)

    async def rewrite_stored(self, texts: Sequence[tuple[str, str]]) -> int:
        """Store new contents for messages already written ((message id, content)): an import's, written before
        an opt-out it learned of afterwards. Returns the messages changed."""
        if not texts:
            return 0
        rows = [{"key": i, "props": {"content": c}} for i, c in texts]

        async def write(tx: Tx) -> int:
            done = await run(tx, "store/forget_redact_messages", rows=rows)
            return int(done[0]["redacted"]) if done else 0

        return await self.store.runner.write(write)
