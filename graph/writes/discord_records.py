"""Discord's own records as the graph keeps them: guilds, channels, and members (an opted-out member is never
written: graph/privacy/guards/optout_guard.py)."""

from __future__ import annotations

from graph.changes import touches
from graph.models import Channel, Guild, User
from graph.privacy.guards import optout_guard
from graph.privacy.guards.consent import keyed
from graph.session import Tx, run
from graph.store import GraphStore


async def upsert_guild(store: GraphStore, guild: Guild) -> None:
    await store.runner.write_guilds([guild.id], False, "store/upsert_guild", id=guild.id, name=guild.name)


class ChannelElsewhere(ValueError):
    """A channel id already stored for another guild or DM space: Discord gives a channel one, so the record is
    refused, never merged (merged, the channel would move, and a forget of one space would take the other's)."""

    def __init__(self, channel_id: str, stored: str, wanted: str) -> None:
        super().__init__(
            f"channel {channel_id} is stored for guild {stored}, not {wanted}: a channel id belongs to one guild or DM space"
        )
        self.channel_id, self.stored, self.wanted = channel_id, stored, wanted


async def refuse_elsewhere(tx: Tx, channel: Channel) -> None:
    """Raise ChannelElsewhere when the channel's id is stored for another guild or DM space."""
    found = await run(tx, "store/channel_guild", id=channel.id)
    if found and found[0]["guild_id"] not in (None, channel.guild_id):
        raise ChannelElsewhere(channel.id, str(found[0]["guild_id"]), channel.guild_id)


async def place_channel(tx: Tx, channel: Channel) -> None:
    """The channel in `tx`, idempotent on its id; raises ChannelElsewhere (writing nothing) when its id is stored for
    another guild or DM space."""
    await refuse_elsewhere(tx, channel)
    await run(
        tx,
        "store/upsert_channel",
        id=channel.id,
        guild_id=channel.guild_id,
        name=channel.name,
        kind=channel.kind.value,
        parent_id=channel.parent_id,
    )


async def upsert_channel(store: GraphStore, channel: Channel) -> None:
    """The channel, idempotent on its id; raises ChannelElsewhere (writing nothing) when its id is stored for
    another guild or DM space."""

    async def work(tx: Tx) -> None:
        touches([channel.guild_id])  # a thread's parent and a channel's mode are what a reply's scope reads
        await place_channel(tx, channel)

    await store.runner.write(work)


async def upsert_users(store: GraphStore, users: list[User], guild_id: str | None = None) -> None:
    """Accounts; with `guild_id`, their display names are that guild's (kept on their membership)."""
    if not users:
        return

    async def work(tx: Tx) -> None:
        if guild_id is not None:  # without one, the account's own names change wherever it is a member
            touches([guild_id], fact_uuids=(), entity_uuids=[u.id for u in users])  # their names on facts
        out = await optout_guard.opted_out(tx, keyed(store), [u.id for u in users])
        rows = [
            {**u.model_dump(), "name_lower": u.name.casefold(), "display_lower": u.display_name.casefold()}
            for u in optout_guard.allowed_users(users, out)
        ]
        if rows:
            await run(tx, "store/upsert_users", users=rows, guild_id=guild_id)

    await store.runner.write(work)
