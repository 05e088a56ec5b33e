"""Deletes and edits from Discord, applied to the memory (graph/privacy/erasure.py) in the order they came; while the
graph cannot take them they wait on disk (`_pending.py`) and are applied when it answers again."""

from __future__ import annotations

import asyncio
import logging
from datetime import datetime
from typing import Any

from bot.listening._pending import FILE_NAME, PendingChanges
from bot.services import Services
from common.events import emit
from graph.privacy.erasure import erase_channel
from graph.unreachable import UNREACHABLE


class Changes:
    def __init__(self, services: Services) -> None:
        self.services = services
        self.pending = PendingChanges(services.settings.graph.data_dir / FILE_NAME)
        self._lock = asyncio.Lock()

    async def edit(self, message_id: str, content: str, edited_at: datetime) -> None:
        await self._submit({"op": "edit", "id": message_id, "content": content, "edited_at": edited_at.isoformat()})

    async def delete(self, message_ids: list[str]) -> None:
        for message_id in message_ids:
            await self._submit({"op": "delete", "id": message_id})

    async def channel_deleted(self, guild_id: str, channel_id: str) -> None:
        await self._submit({"op": "delete_channel", "guild_id": guild_id, "id": channel_id})

    async def _submit(self, change: dict[str, Any]) -> None:
        async with self._lock:
            if not self.pending:
                try:
                    await self._apply(change)
                    return
                except Exception as exc:  # noqa: BLE001 - kept on disk, applied when the graph answers
                    emit("bot", "change_deferred", level=logging.WARNING, op=change["op"], error=type(exc).__name__)
            self.pending.add(change)  # after earlier ones still waiting: applied in order
        await self.apply_pending()

    async def apply_pending(self) -> int:
        """Apply what waits, in order; stop at the first change the graph cannot take yet. Returns how many
        were applied. A change the graph refuses for another reason is logged and not retried."""
        async with self._lock:
            waiting = self.pending.load()
            done = 0
            for change in waiting:
                try:
                    await self._apply(change)
                except Exception as exc:  # noqa: BLE001 - see the docstring
                    if isinstance(exc, UNREACHABLE):
                        break
                    emit("bot", "change_failed", level=logging.ERROR, op=change.get("op"), error=type(exc).__name__)
                done += 1
            if waiting:
                self.pending.keep(waiting[done:])
                emit("bot", "changes_applied", applied=done, waiting=len(waiting) - done)
            return done

    async def _apply(self, change: dict[str, Any]) -> None:
        live, op = self.services.live, change["op"]
        if op == "edit":
            await live.on_edit(change["id"], change["content"], datetime.fromisoformat(change["edited_at"]))
        elif op == "delete":
            await live.on_delete(change["id"])
        elif op == "delete_channel":
            erased = await erase_channel(self.services.store, change["guild_id"], change["id"])
            emit(
                "bot",
                "channel_erased",
                guild_id=change["guild_id"],
                channel_id=change["id"],
                messages=erased.erased.messages,
                residue=len(erased.residue),
            )
