"""Starting one guild over (`grapevine demo --fresh`): what is stored of it goes, the accounts of its members that
nothing else links to go, and those members' opt-outs are lifted, so that importing it again gives what the first
import gave. Only the guild named and the members named are read or written."""

from __future__ import annotations

import queries
from graph.changes import touches
from graph.privacy.guards.consent import consent_key
from graph.session import Tx, run, run_text
from graph.store import GraphStore


async def reset_guild(store: GraphStore, guild_id: str, user_ids: list[str]) -> dict[str, int]:
    """Delete guild `guild_id` and the accounts of `user_ids` left unlinked; lift their opt-outs. Counts by label."""
    keys = [consent_key(store, user_id) for user_id in user_ids]

    async def work(tx: Tx) -> dict[str, int]:
        touches([guild_id])
        deleted: dict[str, int] = {}
        for statement in queries.statements(queries.load("store/reset_guild")):
            for row in await run_text(tx, statement, guild_id=guild_id):
                deleted[str(row["label"])] = int(row["deleted"])
        for row in await run(tx, "store/reset_guild_users", user_ids=user_ids):
            deleted[str(row["label"])] = int(row["deleted"])
        lifted = 0
        for key in keys:
            lifted += sum(int(row["removed"]) for row in await run(tx, "store/opt_in", key=key))
        deleted["OptOut"] = lifted
        return deleted

    return await store.runner.write(work)
