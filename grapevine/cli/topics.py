"""Topic commands for operators: who knows about a topic, a topic's timeline, and the MCP server that gives both
(and the scoped operator queries) to an assistant."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from datetime import UTC, datetime
from typing import Annotated, Any, TypeVar

import typer

from common import bounds
from grapevine.cli.base import app, parse_date, print_rows, run_or_exit, say_if_starting, settings_or_exit, strict, with_store
from grapevine.cli.names import Asked, checked, resolve

T = TypeVar("T")
CHANNEL_HELP = (
    "only what may be recalled in this channel, id or name ('' : what the shared channels hold; default: every channel)"
)


async def _reading(rt: Any, work: Callable[[Any, Any], Awaitable[T]]) -> T:
    """`work(reader, opted_out)` on the runtime's read-only store."""
    from graph.privacy.guards.consent import keyed
    from graph.privacy.opted_out import opted_out_reader

    reader = await rt.reader()
    return await work(reader, opted_out_reader(reader, keyed(rt.store)))


@app.command("who-knows")
def who_knows(
    topic: Annotated[str, typer.Argument(help="the topic's words, e.g. kubernetes or 'server move'")],
    guild: Annotated[str, typer.Option(help="guild id or name")],
    channel: Annotated[str | None, typer.Option(help=CHANNEL_HELP)] = None,
    limit: Annotated[str, typer.Option(metavar="<int>", help="members listed (1 to 10,000)")] = "10",
    as_json: Annotated[bool, typer.Option("--json", help="JSON lines instead of a table")] = False,
) -> None:
    """Members who reported facts about a topic or talked about it, ranked by how much and how recently, each
    with one message link; opted-out members are left out."""
    members = strict(bounds.count, limit, "--limit")
    asked = checked(Asked(guild=guild, channel=channel))
    settings = settings_or_exit()
    asked = resolve(settings, asked)
    guild, channel = str(asked.guild), asked.channel
    from graph.reads import topics

    async def work(reader: Any, opted_out: Any) -> list[dict[str, Any]]:
        found = await topics.who_knows(
            reader, guild, topic, channel_id=channel, opted_out=opted_out, now=datetime.now(UTC), limit=members
        )
        return [topics.knower_record(k, guild, rank) for rank, k in enumerate(found, 1)]

    rows = run_or_exit(with_store(settings, lambda rt: _reading(rt, work)))
    print_rows(rows, f"who knows about {topic!r}: {len(rows)} members", as_json)


@app.command()
def timeline(
    guild: Annotated[str, typer.Option(help="guild id or name")],
    user: Annotated[str | None, typer.Option(help="a member: user id or name")] = None,
    entity: Annotated[str | None, typer.Option(help="an entity's name")] = None,
    at: Annotated[str | None, typer.Option(help="as of this date (ISO): the facts valid by then, and which still held")] = None,
    channel: Annotated[str | None, typer.Option(help=CHANNEL_HELP)] = None,
    as_json: Annotated[bool, typer.Option("--json", help="JSON lines instead of a table")] = False,
) -> None:
    """The facts about a member or an entity, oldest first: what superseded what, who reported each, links."""
    if (user is None) == (entity is None):
        raise typer.BadParameter("give exactly one of --user or --entity")
    when = parse_date(at)
    asked = checked(Asked(guild=guild, user=user, channel=channel))
    settings = settings_or_exit()
    asked = resolve(settings, asked)
    guild, user, channel = str(asked.guild), asked.user, asked.channel
    from graph.reads import topics
    from graph.reads.facts import users_by_id

    async def work(reader: Any, opted_out: Any) -> list[dict[str, Any]]:
        found = await topics.timeline(
            reader, guild, user_id=user, entity_name=entity, at=when, channel_id=channel, opted_out=opted_out
        )
        return [topics.timeline_record(f, guild) for f in found]

    async def read(rt: Any) -> tuple[list[dict[str, Any]], str]:
        rows = await _reading(rt, work)
        named = await users_by_id(rt.store, [user], guild) if user else []
        return rows, f"{named[0].display_name} ({user})" if named else str(user or entity)

    rows, subject = run_or_exit(with_store(settings, read))
    if not as_json:
        rows = [
            {
                "valid_at": r["valid_at"],
                "text": r["text"],
                "held": r["held"],
                "reported_by": ", ".join(p["member"] for p in r["reported_by"]),
                "supersedes": "; ".join(r["supersedes"]),
                "superseded_by": "; ".join(r["superseded_by"]),
                "link": r["links"][0] if r["links"] else "",
            }
            for r in rows
        ]
    facts = "1 fact" if len(rows) == 1 else f"{len(rows)} facts"
    print_rows(rows, f"timeline of {subject}{' as of ' + at if at else ''}: {facts}", as_json)


@app.command()
def mcp(guild: Annotated[str, typer.Option(help="the guild whose memory the assistant may read (id or name)")]) -> None:
    """A Model Context Protocol server on stdin/stdout for an operator's assistant: read-only tools over one guild,
    limited to what its shared channels may recall (see docs/operating.md)."""
    asked = checked(Asked(guild=guild))
    settings = settings_or_exit()
    guild = str(resolve(settings, asked).guild)
    from grapevine.mcp_server import serve

    say_if_starting(settings)
    run_or_exit(serve(settings, guild))
