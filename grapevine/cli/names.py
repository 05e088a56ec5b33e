"""Names wherever a command takes an id: `--guild "Tidewater Hiking Club"`, `--user Bob`, `--channel general`,
`forget Bob`. A value written in digits is an id (read strictly, as before); any other is looked up by identity
(graph/reads/names.py) and, when it stands for more than one, the command stops and lists them with their ids
(exit 1): it never guesses. `grapevine members NAME` shows who a name stands for."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Annotated, Any

import typer

from common import ids
from grapevine.cli.base import app, out, print_rows, run_or_exit, settings_or_exit, strict, with_store

if TYPE_CHECKING:  # the lookups are imported when a name is looked up: every command's start would pay for them
    from common.settings import Settings
    from graph.reads.names import Member


def is_name(text: str) -> bool:
    """Whether a value is a name to look up: anything not written as an id (digits, `dm:` and digits, `<@digits>`)."""
    bare = text.strip().removeprefix(ids.DM_PREFIX).removeprefix("<@").removeprefix("!").removesuffix(">")
    return not bare.isdigit()


@dataclass(frozen=True)
class Asked:
    """What a command was given, id or name, option by option; `resolve` turns each into an id."""

    guild: str | None = None
    user: str | None = None
    channel: str | None = None
    user_option: str = "--user"  # how the command names each, in its messages
    channel_option: str = "--channel"


def _id(parse: Callable[[str, str], str], value: str | None, option: str) -> str | None:
    if value is None or is_name(value):
        return value
    return strict(parse, value.strip().removeprefix("<@").removeprefix("!").removesuffix(">"), option)


def checked(asked: Asked) -> Asked:
    """`asked` with its ids read strictly (exit 2 when one is malformed), before anything is read or opened; names
    are left for `resolve`."""
    return replace(
        asked,
        guild=_id(ids.guild_id, asked.guild, "--guild"),
        user=_id(ids.user_id, asked.user, asked.user_option),
        channel=_id(ids.channel_id, asked.channel, asked.channel_option),  # '' (the shared channels' scope) stays ''
    )


def resolve(settings: Settings, asked: Asked) -> Asked:
    """Every value of `asked` (`checked` first) as an id, names looked up in one opening of the store (only when a
    name was given); a name nobody or several carry stops the command (exit 1)."""
    parsed = checked(asked)
    if not any(v and is_name(v) for v in (parsed.guild, parsed.user, parsed.channel)):
        return parsed
    return run_or_exit(with_store(settings, lambda rt: looked_up(rt.store, parsed)))


async def looked_up(store: Any, asked: Asked) -> Asked:
    from graph.reads.names import channels_named, guilds_named, members_named

    guild = asked.guild
    if guild is not None and is_name(guild):
        found = await guilds_named(store, guild)
        guild = _one(guild, "guild", [(g.id, g.name) for g in found], "--guild")
    user = asked.user
    if user is not None and is_name(user):
        found_members = await members_named(store, user, guild)
        user = _one(user, "member", [(m.id, described(m)) for m in found_members], asked.user_option)
    channel = asked.channel
    if channel and is_name(channel):
        if guild is None:
            raise LookupError(f"a channel by name ({channel!r}) needs its guild: give --guild")
        found_channels = await channels_named(store, guild, channel)
        channel = _one(channel, "channel", [(c.id, f"#{c.name}") for c in found_channels], asked.channel_option)
    return replace(asked, guild=guild, user=user, channel=channel)


def _one(name: str, what: str, found: list[tuple[str, str]], option: str) -> str:
    if len(found) == 1:
        return found[0][0]
    if not found:
        raise LookupError(f"no {what} is called {name!r} (`grapevine members NAME` lists who a name stands for)")
    listed = "; ".join(f"{found_id} ({label})" for found_id, label in found)
    raise LookupError(f"{len(found)} {what}s are called {name!r}: {listed}; give {option} the id of the one you mean")


def described(member: Member) -> str:
    where = ", ".join(g.guild for g in member.guilds)
    return f"{member.names()}, in {where}" if where else member.names()


@app.command()
def members(
    name: Annotated[str, typer.Argument(help="a member's account name, display name or nickname (any case)")],
    guild: Annotated[str | None, typer.Option(help="only in this guild (id or name)")] = None,
    as_json: Annotated[bool, typer.Option("--json", help="JSON lines instead of a table")] = False,
) -> None:
    """Who a name stands for: each member called so, with their id, their guilds and when they last wrote there."""
    asked = checked(Asked(guild=guild))
    settings = settings_or_exit()
    asked = resolve(settings, asked)

    from graph.reads.names import members_named

    async def work(rt: Any) -> list[Member]:
        return await members_named(rt.store, name, asked.guild)

    found = run_or_exit(with_store(settings, work))
    rows = [
        {
            "id": m.id,
            "username": m.username,
            "display_name": m.display_name,
            "guild": g.guild,
            "guild_id": g.guild_id,
            "nickname": g.nickname,
            "last_seen": g.last_seen,
        }
        for m in found
        for g in m.guilds
    ]
    print_rows(rows, f"{len(found)} members called {name!r}", as_json)
    if len(found) > 1 and not as_json:
        out.print("more than one: give a command the id of the one you mean", highlight=False)
