"""Which guilds this process serves when the gateway is split into shards (one shard per process).

Discord delivers a guild's events to shard `(guild_id >> 22) % shard_count` and every DM to shard 0. A
process extracts only the windows of the guilds it receives (and shard 0 those of the DM spaces), so two
processes never extract the same window; the graph-wide upkeep runs in shard 0 alone.
"""

from __future__ import annotations

from dataclasses import dataclass

from common.settings import DiscordSettings
from graph.models import dm_scope


@dataclass(frozen=True)
class Shard:
    id: int = 0
    count: int = 1

    @classmethod
    def of(cls, settings: DiscordSettings) -> Shard:
        return cls(settings.shard_id, settings.shard_count)

    @property
    def sharded(self) -> bool:
        return self.count > 1

    @property
    def runs_graph_upkeep(self) -> bool:
        return self.id == 0

    def holds(self, guild_id: str) -> bool:
        """Whether this shard receives the events of this guild (or DM space: "dm:<user id>")."""
        if guild_id.startswith(dm_scope("")):
            return self.id == 0
        if not guild_id.isdigit():  # not a Discord snowflake (an imported export's made-up id): shard 0
            return self.id == 0
        return (int(guild_id) >> 22) % self.count == self.id
