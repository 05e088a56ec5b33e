"""A moderator's forget: a member with Manage Server acts on a deletion request for another member of
their server, by mention or raw id (also one who has left), with the same confirmation (pressed by the
moderator) and the same residue audit as a member's own forget-me.

It reaches this server's data only: what the member said here, facts about, from or naming them here,
their name in what others said here, their membership. A moderator of one server has no say over what
the member said in another server or in their DMs with the bot, and cannot opt them out of those: the
member's own forget-me (or the operator's `grapevine forget`) does that.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Sequence

import discord

from bot.memory import _unfinished
from bot.memory._forget_me import STILL_FINISHING, ConfirmForget, describe_counts
from bot.services import Services
from common.events import emit
from common.text import MENTION
from graph.forget import ForgetReport

ASK = (
    "This deletes everything I remember from and about {who} in this server: what they said here, facts about "
    "or naming them, and their name in what others said here. Their other servers and their DMs with me are not "
    "touched (only they can ask for that). Go ahead?"
)
CONFIRM_LABEL = "Forget them"
WHOM = "Tell me whom: `forget member @someone`, or their user id (also for someone who left)."
NOT_BOTS = "I don't keep anything of bots."
FAILED = (
    "My memory failed part-way, so not everything of theirs here is deleted yet; I'll finish it on my own "
    "at my next maintenance pass."
)
_ID = re.compile(r"^(?:<@!?)?(\d{15,21})>?$")


def target_id(text: str) -> str | None:
    """The user id a moderator named: a `<@id>` mention or a raw id."""
    match = _ID.match(text.strip())
    return match.group(1) if match else None


def named_id(named: str, content: str, me_id: int) -> str | None:
    """The member a plain-language "forget member ..." names: the id typed, else the one member mentioned in the
    message's own text (the bot's mention aside); None when that is not one member. Never the message's
    `mentions` as such: a reply with its ping on puts the replied-to author there too."""
    typed = target_id(named)
    if typed is not None:
        return typed
    written = list(dict.fromkeys(i for i in MENTION.findall(content) if i != str(me_id)))
    return written[0] if len(written) == 1 else None


def who(user: discord.abc.User | None, user_id: str) -> str:
    return f"**{user.display_name}**" if user is not None else f"the member with id {user_id}"


async def forget_member(services: Services, guild_id: str, user_id: str, names: Sequence[str], moderator_id: str) -> ForgetReport:
    """Forget `user_id` in this guild (recorded first, finished by upkeep if not clean), and log who did it."""
    request = _unfinished.Request(user_id, guild_id, tuple(n for n in names if n))
    try:
        report = await _unfinished.forget(services, request)
    except Exception as exc:
        emit("bot", "moderator_forget_failed", level=logging.ERROR, guild_id=guild_id, member_id=user_id,
             moderator_id=moderator_id, error=type(exc).__name__)  # fmt: skip
        raise
    emit(
        "bot",
        "moderator_forget",
        level=logging.WARNING if not report.clean else logging.INFO,
        guild_id=guild_id,
        member_id=user_id,
        moderator_id=moderator_id,
        deleted=report.deleted,
        redacted=report.redacted,
        residue=len(report.residue),
    )
    return report


def describe(report: ForgetReport, whom: str) -> str:
    text = f"Done: I deleted {describe_counts(report)} of {whom} in this server."
    return text + (" " + STILL_FINISHING if not report.clean else " The residue audit found nothing left here.")


def confirm_view(
    services: Services, guild_id: str, moderator_id: int, user_id: str, user: discord.abc.User | None
) -> ConfirmForget:
    names = [
        n for n in {getattr(user, "name", None), getattr(user, "display_name", None), getattr(user, "global_name", None)} if n
    ]

    async def confirmed() -> str:
        try:
            report = await forget_member(services, guild_id, user_id, names, str(moderator_id))
        except Exception:  # noqa: BLE001 - logged in forget_member; recorded, upkeep finishes it
            return FAILED
        return describe(report, who(user, user_id))

    return ConfirmForget(moderator_id, confirmed, confirm_label=CONFIRM_LABEL)
