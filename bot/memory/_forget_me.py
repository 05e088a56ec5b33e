"""Forget-me: a confirmation only the requester can press, then everything about them goes, in every
guild and in their DMs, and nothing of theirs is stored afterwards (until they opt in again)."""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable, Sequence

import discord

from bot.memory import unfinished_forgets
from bot.services import Services
from common.events import emit
from graph.privacy.deletion import ForgetReport

PROMPT = (
    "This deletes everything I remember about you and everything you said, in every server and in our DMs, "
    "and I'll stop remembering anything from you until you use `/memory opt-in`. Go ahead?"
)
NOT_YOURS = "Only the person who asked can confirm this."
CANCELLED = "Cancelled; nothing was deleted."
TIMED_OUT = "No answer, so nothing was deleted."
FAILED = (
    "My memory failed part-way, so not everything is deleted yet. Nothing new is kept meanwhile, and I'll "
    "finish deleting it on my own at my next maintenance pass; no need to ask again."
)
STILL_FINISHING = "A few traces are still left; I'll finish removing them on my own at my next maintenance pass."
FILES_LATER = "Leftover copies in my database files are wiped at my next maintenance pass."


async def forget_everything(services: Services, user_id: str, known_names: Sequence[str] = ()) -> ForgetReport:
    """Record the request durably (bot/memory/unfinished_forgets.py), opt out first (nothing new gets stored
    meanwhile), drop buffered messages, then delete while no extraction runs (one already reading their
    messages writes first, then goes with the rest). Raises when the graph failed: upkeep finishes it."""
    request = unfinished_forgets.Request(user_id, None, tuple(n for n in known_names if n))
    report = await unfinished_forgets.forget(services, request)
    emit(
        "bot",
        "forget_me",
        deleted=report.deleted,
        redacted=report.redacted,
        residue=len(report.residue),
        files_failed=sorted(report.files_failed),
        level=logging.WARNING if not report.clean else logging.INFO,
    )
    return report


def describe_counts(report: ForgetReport) -> str:
    counts = report.deleted
    return ", ".join(
        f"{counts.get(label, 0)} {noun}"
        for label, noun in (
            ("Fact", "facts"),
            ("Message", "messages"),
            ("Episode", "conversations"),
            ("Entity", "related things"),
        )
    )


def deleted_anything(report: ForgetReport) -> bool:
    """Whether the forget deleted or redacted anything at all: a success message says only what it did."""
    return any(report.deleted.values()) or report.redacted > 0


def describe_report(report: ForgetReport) -> str:
    if not deleted_anything(report):
        text = "I held nothing from you, so nothing was deleted. I won't remember anything from you from now on."
        return text + (" " + STILL_FINISHING if not report.clean else "")
    text = "Done: I deleted " + describe_counts(report) + ". I won't remember anything from you from now on."
    if not report.clean:
        text += " " + STILL_FINISHING
    elif not report.files_purged and (any(report.deleted.values()) or report.redacted):
        text += " " + FILES_LATER  # graph/privacy/purge.py: the bound is the upkeep interval
    return text


class ConfirmForget(discord.ui.View):
    """Two buttons; only `requester_id` may press them; the interaction is answered once, then followed up."""

    def __init__(
        self,
        requester_id: int,
        on_confirm: Callable[[], Awaitable[str]],
        *,
        timeout: float = 120.0,
        confirm_label: str | None = None,
    ) -> None:
        super().__init__(timeout=timeout)
        if confirm_label is not None:  # a moderator's: "Forget them"
            self.confirm.label = confirm_label
        self.requester_id = requester_id
        self.on_confirm = on_confirm
        self.value: bool | None = None
        self.message: discord.Message | discord.InteractionMessage | None = None

    async def interaction_check(self, interaction: discord.Interaction, /) -> bool:
        if interaction.user.id == self.requester_id:
            return True
        await interaction.response.send_message(NOT_YOURS, ephemeral=True)
        return False

    @discord.ui.button(label="Forget me", style=discord.ButtonStyle.danger)
    async def confirm(self, interaction: discord.Interaction, button: discord.ui.Button[ConfirmForget]) -> None:
        self.value = True
        self.stop()
        await interaction.response.edit_message(content="Forgetting you…", view=None)
        try:
            text = await self.on_confirm()
        except Exception as exc:  # noqa: BLE001 - tell the member; the operator gets the event
            emit("bot", "forget_me_failed", level=logging.ERROR, error=type(exc).__name__, reason=str(exc)[:300])
            text = FAILED
        await interaction.followup.send(text, ephemeral=True)

    @discord.ui.button(label="Cancel", style=discord.ButtonStyle.secondary)
    async def cancel(self, interaction: discord.Interaction, button: discord.ui.Button[ConfirmForget]) -> None:
        self.value = False
        self.stop()
        await interaction.response.edit_message(content=CANCELLED, view=None)

    async def on_timeout(self) -> None:
        if self.message is not None:
            try:
                await self.message.edit(content=TIMED_OUT, view=None)
            except discord.HTTPException:
                pass
