"""Memory modes of channels, set by members with Manage Server: "@bot memory here: private" or `/memory mode`;
`memory status` lists them. Switching a channel `off` asks whether to delete what it already holds; deleting
erases its messages (and its threads') with every fact told only there, then audits what is left."""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable

import discord

from bot.services import Services
from common.events import emit
from graph.privacy import channels
from graph.privacy.erasure import erase_channel
from graph.reads.activity import Activity

RECENT_DAYS = 7  # the listing counts each channel's messages of these days (index ranges), not its whole history
MEANING = {
    "off": "nothing said here is recorded",
    "private": "what is said here is recalled only here and in its threads",
    "shared": "what is said here may be recalled anywhere in this server",
}
ASK_ERASE = (
    "Memory is off here now: nothing said here will be recorded. Delete what I already hold from this channel and its threads?"
)
KEPT = "Kept: nothing new is recorded here, and what I hold from before stays (switch to off again to delete it)."
NOT_STORED = "I haven't seen this channel yet; say something here first, then set its mode."
HIDDEN = (
    "Discord hides this channel from @everyone, so what is said here stays private: "
    "let @everyone view it first, then set it to shared."
)


async def set_here(services: Services, guild_id: str, channel_id: str, mode: str) -> str:
    if mode not in channels.MODES:
        return f"The modes are {', '.join(channels.MODES)}."
    try:
        if not await channels.set_mode(services.store, guild_id, channel_id, mode):
            return NOT_STORED
    except channels.HiddenChannel:
        return HIDDEN
    services.channel_modes[channel_id] = mode
    for c in await channels.modes(services.store, guild_id):  # threads that follow it
        services.channel_modes[c.id] = c.mode
    emit("bot", "channel_mode_set", guild_id=guild_id, channel_id=channel_id, mode=mode)
    return ASK_ERASE if mode == "off" else f"Memory here is now **{mode}**: {MEANING[mode]}."


async def listing(services: Services, guild_id: str, activity: Activity | None = None) -> str:
    """The guild's channels with their modes and messages of the last days (from `activity`, when read already)."""
    found = await channels.modes(services.store, guild_id, recent_days=RECENT_DAYS, activity=activity)
    if not found:
        return "Channel memory modes: no channel seen yet."
    lines = ["**Channel memory modes** (shared: recalled anywhere; private: only there and in its threads; off: not recorded)"]
    for c in found:
        seen = {"public": "everyone can view", "restricted": "restricted", None: "not seen live yet"}[c.visibility]
        lines.append(
            f"• #{c.name}: {c.mode}{' (set)' if c.mode_set else ''}, {seen}, {c.messages} messages in {RECENT_DAYS} days"
        )
    return "\n".join(lines)


async def erase_here(services: Services, guild_id: str, channel_id: str) -> str:
    async with services.ingestor.paused():
        done = await erase_channel(services.store, guild_id, channel_id)
    emit(
        "bot",
        "channel_erased",
        guild_id=guild_id,
        channel_id=channel_id,
        messages=done.erased.messages,
        facts=done.erased.facts,
        residue=len(done.residue),
        level=logging.WARNING if done.residue else logging.INFO,
    )
    audit = (
        "the residue audit found nothing left"
        if not done.residue
        else f"{len(done.residue)} leftover traces were logged for an operator"
    )
    return (
        f"Deleted {done.erased.messages} messages, {done.erased.facts} facts told only here and "
        f"{done.episodes} conversations from this channel; {audit}."
    )


class ConfirmErase(discord.ui.View):
    """Delete what an `off` channel holds, or keep it; only the member who switched it may press."""

    def __init__(self, requester_id: int, on_confirm: Callable[[], Awaitable[str]], *, timeout: float = 300.0) -> None:
        super().__init__(timeout=timeout)
        self.requester_id = requester_id
        self.on_confirm = on_confirm
        self.message: discord.Message | discord.InteractionMessage | None = None

    async def interaction_check(self, interaction: discord.Interaction, /) -> bool:
        if interaction.user.id == self.requester_id:
            return True
        await interaction.response.send_message("Only the person who switched memory off can choose.", ephemeral=True)
        return False

    @discord.ui.button(label="Delete what it holds", style=discord.ButtonStyle.danger)
    async def confirm(self, interaction: discord.Interaction, button: discord.ui.Button[ConfirmErase]) -> None:
        self.stop()
        await interaction.response.edit_message(content="Deleting…", view=None)
        try:
            text = await self.on_confirm()
        except Exception as exc:  # noqa: BLE001 - tell the member; the operator gets the event
            emit("bot", "channel_erase_failed", level=logging.ERROR, error=type(exc).__name__)
            text = "I couldn't reach my memory just now; nothing may have been deleted. Please try again."
        await interaction.followup.send(text, ephemeral=True)

    @discord.ui.button(label="Keep it", style=discord.ButtonStyle.secondary)
    async def cancel(self, interaction: discord.Interaction, button: discord.ui.Button[ConfirmErase]) -> None:
        self.stop()
        await interaction.response.edit_message(content=KEPT, view=None)
