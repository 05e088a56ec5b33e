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
from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass

import discord

from bot.memory import unfinished_forgets
from bot.memory._forget_me import STILL_FINISHING, ConfirmForget, deleted_anything, describe_counts
from bot.services import Services
from common import ids
from common.events import emit
from graph.privacy.deletion import ForgetReport

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
NOT_ASCII = "A user id is written with the digits 0-9 only, and {what} holds other digits (full-width?): I did nothing."
WHICH = "You named {names}: which one? Say it again with only the member to forget (their mention or user id); I did nothing."
_TYPED_NAME = re.compile(r"(?<![\w<])@([^\s,;:!?<>()]+)")  # `@Charlie` typed as text, not picked as a mention
_DIGITS = re.compile(r"(?<!\w)\d+(?!\w)")  # any script's digits: an id must be ASCII ones (common.ids)
_COMMAND = re.compile(r"\bforget\s+(?:member|user)\s+", re.IGNORECASE)


@dataclass(frozen=True)
class Target:
    """Whom a moderator named: one member's id for sure, or else what to answer instead (and act on no one)."""

    user_id: str | None = None
    answer: str = ""


def target(named: str, me_id: str = "", names_of: Callable[[str], Collection[str]] = lambda _: ()) -> Target:
    """The member a "forget member ..." names in `named` (the command's text after "member", or a slash command's
    user id): the one mention or id written there (the bot's own mention aside), never the message's `mentions` as
    such (a reply with its ping on puts the replied-to author there too). No one when it names nobody (WHOM), more
    than one, or a `@name` typed beside a mention or id of someone not called so (WHICH); an id in other digits
    than 0-9 is refused (NOT_ASCII). `names_of(id)`: the names that member goes by."""
    mentions = [i for i in ids.mentioned(named) if i != me_id]
    rest = ids.MENTION.sub(" ", named)
    typed = []
    for digits in _DIGITS.findall(rest):
        if not digits.isascii():
            return Target(answer=NOT_ASCII.format(what=f"“{digits[:24]}”"))
        if ids.is_ascii_id(digits):
            typed.append(digits)
    found = list(dict.fromkeys([*mentions, *typed]))
    if not found:
        return Target(answer=WHOM)
    if len(found) > 1:
        return Target(answer=WHICH.format(names=_either([f"<@{i}>" for i in found])))
    [user_id] = found
    known = [n.casefold() for n in names_of(user_id)]
    strangers = [
        n for n in _TYPED_NAME.findall(rest) if not any(k == n.casefold() or k.startswith(n.casefold() + " ") for k in known)
    ]
    if strangers:
        return Target(answer=WHICH.format(names=_either([*(f"“@{n}”" for n in strangers), f"<@{user_id}>"])))
    return Target(user_id)


def named_part(content: str) -> str:
    """What a plain-language "forget member ..." says after "member", as written: mentions still `<@id>` (the
    command's own text has them as @names, which no longer say whom)."""
    return _COMMAND.split(content, maxsplit=1)[-1]


def _either(names: list[str]) -> str:
    return " or ".join([", ".join(names[:-1]), names[-1]] if len(names) > 1 else names)


def names_of(user: discord.abc.User | None) -> list[str]:
    return [n for n in (getattr(user, a, None) for a in ("name", "display_name", "global_name")) if isinstance(n, str) and n]


def who(user: discord.abc.User | None, user_id: str) -> str:
    return f"**{user.display_name}**" if user is not None else f"the member with id {user_id}"


async def forget_member(services: Services, guild_id: str, user_id: str, names: Sequence[str], moderator_id: str) -> ForgetReport:
    """Forget `user_id` in this guild (recorded first, finished by upkeep if not clean), and log who did it."""
    request = unfinished_forgets.Request(user_id, guild_id, tuple(n for n in names if n))
    try:
        report = await unfinished_forgets.forget(services, request)
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
    """What the forget did, from its report only: what it deleted, or that it found nothing to delete."""
    if not deleted_anything(report):
        text = f"Nothing was deleted: I held nothing of {whom} in this server."
        return text + (" " + STILL_FINISHING if not report.clean else "")
    text = f"Done: I deleted {describe_counts(report)} of {whom} in this server."
    return text + (" " + STILL_FINISHING if not report.clean else " The residue audit found nothing left here.")


def confirm_view(
    services: Services, guild_id: str, moderator_id: int, user_id: str, user: discord.abc.User | None
) -> ConfirmForget:
    names = list(dict.fromkeys(names_of(user)))

    async def confirmed() -> str:
        try:
            report = await forget_member(services, guild_id, user_id, names, str(moderator_id))
        except Exception:  # noqa: BLE001 - logged in forget_member; recorded, upkeep finishes it
            return FAILED
        return describe(report, who(user, user_id))

    return ConfirmForget(moderator_id, confirmed, confirm_label=CONFIRM_LABEL)
