"""Discord's own records as the graph keeps them: guilds, channels, and members (an opted-out member is never
written: graph/privacy/optout_guard.py)."""

from __future__ import annotations

from graph.models import Channel, Guild, User
from graph.privacy import optout_guard
from graph.privacy.consent import keyed
from graph.session import Tx, run
from graph.store import GraphStore


async def upsert_guild(store: GraphStore, guild: Guild) -> None:
    await store.runner.write_one("store/upsert_guild", id=guild.id, name=guild.name)


async def upsert_channel(store: GraphStore, channel: Channel) -> None:
    await store.runner.write_one(
        "store/upsert_channel",
        id=channel.id,
        guild_id=channel.guild_id,
        name=channel.name,
        kind=channel.kind.value,
        parent_id=channel.parent_id,
    )


async def upsert_users(store: GraphStore, users: list[User], guild_id: str | None = None) -> None:
    """Accounts; with `guild_id`, their display names are that guild's (kept on their membership)."""
    if not users:
        return

    async def work(tx: Tx) -> None:
        out = await optout_guard.opted_out(tx, keyed(store), [u.id for u in users])
        rows = [
            {**u.model_dump(), "name_lower": u.name.casefold(), "display_lower": u.display_name.casefold()}
            for u in optout_guard.allowed_users(users, out)
        ]
        if rows:
            await run(tx, "store/upsert_users", users=rows, guild_id=guild_id)

    await store.runner.write(work)
