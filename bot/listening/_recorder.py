"""From Discord messages to LiveWindows: places recorded once per process, opted-out members skipped."""

from __future__ import annotations

import discord

from bot.convert import STORED_TYPES, Place, place_of, to_message, to_user
from bot.listening._channels import ChannelWatch, visibility_of
from bot.services import Services
from common.events import emit
from graph.reads.facts import users_by_id
from graph.writes.discord_records import ChannelElsewhere, upsert_channel, upsert_guild


class Recorder:
    def __init__(self, services: Services) -> None:
        self.services = services
        self._known: set[tuple[str, str]] = set()  # (guild id, channel id) upserted by this process
        self.channels = ChannelWatch(services)

    async def ensure_place(self, place: Place, visibility: str | None = None) -> None:
        """Upsert the guild and channel the first time this process sees them (with what @everyone can see)."""
        key = (place.guild.id, place.channel.id)
        if key in self._known:
            return
        store = self.services.store
        await upsert_guild(store, place.guild)
        await upsert_channel(store, place.channel)
        if visibility in ("public", "restricted"):
            await self.channels.remember(place.guild.id, place.channel.id, "public" if visibility == "public" else "restricted")
        self._known.add(key)

    async def _stored(self, user_id: str) -> bool:
        try:
            return bool(await users_by_id(self.services.store, [user_id]))
        except Exception:  # noqa: BLE001 - the graph is down: a command is not conversation, it need not be kept
            return False

    async def on_message(self, message: discord.Message, me_id: int, *, command: bool = False) -> bool:
        """Store and buffer one message; False when it is not stored (opted out, system message, no place, or a
        memory `command` from a member never stored: it leaves no trace of them)."""
        if message.type not in STORED_TYPES:
            return False
        author = to_user(message.author)
        if not self.services.consent.allowed(author.id):
            return False
        if command and not await self._stored(author.id):
            return False
        place = place_of(message, me_id)
        if place is None:
            emit("bot", "message_unplaced", message_id=str(message.id))
            return False
        if place.guild.id.startswith("dm:") and not self.services.consent.allowed(place.guild.id[3:]):
            return False  # the bot's own reply in the DM of someone who opted out
        try:
            await self.ensure_place(place, visibility_of(message.channel))
        except ChannelElsewhere as exc:  # Discord never sends one channel under two guilds: refused, never merged
            emit("bot", "place_refused", guild_id=place.guild.id, channel_id=place.channel.id, stored_for=exc.stored)
            return False
        except Exception as exc:  # noqa: BLE001 - the window buffer keeps the message; retried next message
            emit("bot", "place_store_failed", guild_id=place.guild.id, channel_id=place.channel.id, error=type(exc).__name__)
        if self.channels.is_off(place.channel.id):
            return False  # memory is off in this channel: nothing is recorded
        return await self.services.live.on_message(to_message(message, place), author)
