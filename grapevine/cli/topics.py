"""Topic commands for operators: who knows about a topic, a topic's timeline, and the MCP server that gives both
(and the scoped operator queries) to an assistant."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from datetime import UTC, datetime
from typing import Annotated, Any, TypeVar

import typer

from common import bounds, ids
from grapevine.cli.base import app, optional, parse_date, print_rows, run_or_exit, settings_or_exit, strict, with_store
from graph.privacy.consent import keyed

T = TypeVar("T")
CHANNEL_HELP = "only what may be recalled in this channel id ('' : what the shared channels hold; default: every channel)"


async def _reading(rt: Any, work: Callable[[Any, str, Any], Awaitable[T]]) -> T:
    """`work(reader driver, database, opted_out)` as the engine's reader user, who may only read."""
    from graph.reads.topics import opted_out_reader

    reader = await rt.engine.reader_driver()
    try:
        return await work(reader, rt.engine.database, opted_out_reader(reader, rt.engine.database, keyed(rt.store)))
    finally:
        await reader.close()


@app.command("who-knows")
def who_knows(
    topic: Annotated[str, typer.Argument(help="the topic's words, e.g. kubernetes or 'server move'")],
    guild: Annotated[str, typer.Option(help="guild id")],
    channel: Annotated[str | None, typer.Option(help=CHANNEL_HELP)] = None,
    limit: Annotated[str, typer.Option(help="members listed (1 to 10,000)")] = "10",
    as_json: Annotated[bool, typer.Option("--json", help="JSON lines instead of a table")] = False,
) -> None:
    """Members who reported facts about a topic or talked about it, ranked by how much and how recently, each
    with one message link; opted-out members are left out."""
    guild, channel = strict(ids.guild_id, guild, "--guild"), optional(ids.channel_id, channel, "--channel")
    members = strict(bounds.count, limit, "--limit")
    settings = settings_or_exit()
    from graph.reads import topics

    async def work(reader: Any, database: str, opted_out: Any) -> list[dict[str, Any]]:
        found = await topics.who_knows(
            reader, database, guild, topic, channel_id=channel, opted_out=opted_out, now=datetime.now(UTC), limit=members
        )
        return [topics.knower_record(k, guild, rank) for rank, k in enumerate(found, 1)]

    rows = run_or_exit(with_store(settings, lambda rt: _reading(rt, work)))
    print_rows(rows, f"who knows about {topic!r}: {len(rows)} members", as_json)


@app.command()
def timeline(
    guild: Annotated[str, typer.Option(help="guild id")],
    user: Annotated[str | None, typer.Option(help="a member's user id")] = None,
    entity: Annotated[str | None, typer.Option(help="an entity's name")] = None,
    at: Annotated[str | None, typer.Option(help="as of this date (ISO): the facts valid by then, and which still held")] = None,
    channel: Annotated[str | None, typer.Option(help=CHANNEL_HELP)] = None,
    as_json: Annotated[bool, typer.Option("--json", help="JSON lines instead of a table")] = False,
) -> None:
    """The facts about a member or an entity, oldest first: what superseded what, who reported each, links."""
    if (user is None) == (entity is None):
        raise typer.BadParameter("give exactly one of --user or --entity")
    guild, user = strict(ids.guild_id, guild, "--guild"), optional(ids.user_id, user, "--user")
    channel = optional(ids.channel_id, channel, "--channel")
    when = parse_date(at)
    settings = settings_or_exit()
    from graph.reads import topics

    async def work(reader: Any, database: str, opted_out: Any) -> list[dict[str, Any]]:
        found = await topics.timeline(
            reader, database, guild, user_id=user, entity_name=entity, at=when, channel_id=channel, opted_out=opted_out
        )
        return [topics.timeline_record(f, guild) for f in found]

    rows = run_or_exit(with_store(settings, lambda rt: _reading(rt, work)))
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
    print_rows(rows, f"timeline of {user or entity}{' as of ' + at if at else ''}: {len(rows)} facts", as_json)


@app.command()
def mcp(guild: Annotated[str, typer.Option(help="the guild whose memory the assistant may read")]) -> None:
    """A Model Context Protocol server on stdin/stdout for an operator's assistant: read-only tools over one guild,
    limited to what its shared channels may recall (see docs/operating.md)."""
    guild = strict(ids.guild_id, guild, "--guild")
    settings = settings_or_exit()
    from grapevine.mcp_server import serve

    run_or_exit(serve(settings, guild))
