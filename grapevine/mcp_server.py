"""`grapevine mcp --guild G`: a Model Context Protocol server on stdin/stdout (the official `mcp` SDK) for an
operator's assistant. Every tool reads; none writes or deletes.

- Scope: one guild, and within it only what the guild's `shared` channels hold (channel id '' in the topic reads,
  queries/operator/who_knows.cypher): nothing said in a private channel reaches the assistant.
- Reads run as the engine's reader user (ArcadeDB refuses it any write; Neo4j runs them in READ sessions) in a
  transaction that is rolled back whatever it did (`graph.reads.operator.read_rolled_back`).
- Opted-out members are left out of who-knows and of the reporters shown, as for members asking the bot, in the
  tools and in every operator query `run_query` runs (`graph.privacy.opted_out`); asked for by id or
  by name, they are not here (`facts` and `timeline` answer as for an id never stored or an unknown name,
  `run_query` with their `user_id` returns nothing).
- An empty answer is one `note` saying why (only shared channels are read; imported ones start private) and how
  to share a channel.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from mcp.types import ToolAnnotations
from neo4j.exceptions import DriverError, Neo4jError

from common import bounds, ids
from common.settings import Settings
from common.urls import mask_credentials
from graph.privacy.guards.consent import OptedOut, keyed
from graph.privacy.opted_out import asks_for_opted_out, opted_out_reader, without_opted_out
from graph.reads import topics
from graph.reads.names import shared_channels
from graph.reads.operator import (
    OperatorQuery,
    coerce_params,
    get_query,
    list_queries,
    run_operator_query,
)
from graph.store import GraphStore

SHARED = ""  # the channel scope of every read: what the guild's shared channels hold
MAX_KNOWERS = 50  # members `who_knows` lists at most
SCOPED = "channel_id"  # an operator query offered here takes the channel scope as this parameter
READ_ONLY = ToolAnnotations(read_only_hint=True, destructive_hint=False, idempotent_hint=True, open_world_hint=False)
INSTRUCTIONS = (
    "grapevine's memory of one Discord server: facts members reported (with who said them, when, and links to the "
    "messages), who knows about a topic, and a topic's timeline. Every fact is a claim someone made, not established "
    "truth. Only what the server's shared channels hold is visible here."
)


@dataclass(frozen=True)
class Reader:
    """What the tools read with: the read-only store, the guild, and who opted out."""

    store: GraphStore
    guild_id: str
    opted_out: OptedOut


def scoped_queries() -> list[OperatorQuery]:
    """The operator queries that follow the channel scope: only they may run here."""
    return [q for q in list_queries() if any(p.name == SCOPED for p in q.params)]


@contextmanager
def _told() -> Iterator[None]:
    """A fault of the call (a name not found, a bad date or parameter, a read the engine refused) reaches the
    assistant as its message, never as a bare "Error executing tool"."""
    try:
        yield
    except (LookupError, ValueError, OverflowError) as exc:
        raise ToolError(str(exc).strip("'\"")) from None
    except Neo4jError as exc:
        raise ToolError(mask_credentials(f"the graph engine refused the read: {exc.message or exc}")) from None
    except DriverError as exc:
        raise ToolError(mask_credentials(f"the graph engine cannot be reached: {exc}")) from None


async def _or_why_empty(reader: Reader, rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The rows; or, when there are none, one `note` saying why an answer here can be empty and how to change it:
    only the shared channels are read, and a channel is shared only once someone sets it so (imported ones start
    private)."""
    if rows:
        return rows
    shared, channels = await shared_channels(reader.store, reader.guild_id)
    where = f"{shared} of this server's {channels} channels" if channels else "no channel of this server"
    return [
        {
            "note": f"nothing found in what the shared channels hold: only they are read here, and {where} "
            f"{'is' if shared == 1 or not channels else 'are'} shared (imported channels start private; a moderator "
            f"shares one with `/memory mode shared`, an operator with `grapevine channels --guild {reader.guild_id} "
            "--set CHANNEL --mode shared`)"
        }
    ]


def _when(at: str | None) -> datetime | None:
    return bounds.instant(at, "at") if at and at.strip() else None


async def _timeline(reader: Reader, subject: str, at: str | None) -> list[dict[str, Any]]:
    when = _when(at)  # the arguments first, before any read
    named = await topics.resolve(reader.store, reader.guild_id, ids.named(subject, "subject"))
    if named is not None and named.user_id and named.name != named.user_id and await reader.opted_out({named.user_id}):
        named = None  # an opted-out member's name is unknown here; by id, nothing is shown, as for any id not stored
    if named is None:
        raise LookupError(f"no member or entity called {subject!r} in this server")
    found = await topics.timeline(
        reader.store,
        reader.guild_id,
        user_id=named.user_id,
        entity_name=named.entity,
        at=when,
        channel_id=SHARED,
        opted_out=reader.opted_out,
    )
    return [topics.timeline_record(f, reader.guild_id) for f in found]


def build(reader: Reader) -> MCPServer:
    """The server and its tools, reading with `reader`."""
    server: MCPServer = MCPServer("grapevine", instructions=INSTRUCTIONS)

    @server.tool(annotations=READ_ONLY)
    async def facts(subject: str, at: str | None = None) -> list[dict[str, Any]]:
        """The facts that hold about a member (a user id or their name in the server) or an entity (its name), as of
        `at` (an ISO date or datetime; default now): each with who reported it and when, links to the messages it
        came from, and what it superseded."""
        with _told():
            return await _or_why_empty(reader, [row for row in await _timeline(reader, subject, at) if row["held"]])

    @server.tool(annotations=READ_ONLY)
    async def who_knows(topic: str, limit: int = 10) -> list[dict[str, Any]]:
        """The members who reported facts about a topic or talked about it, ranked by how much and how recently,
        each with one message link (`example`)."""
        with _told():
            found = await topics.who_knows(
                reader.store,
                reader.guild_id,
                topic,
                channel_id=SHARED,
                opted_out=reader.opted_out,
                now=datetime.now(UTC),
                limit=bounds.count(limit, "limit", high=MAX_KNOWERS),
            )
            return await _or_why_empty(
                reader, [topics.knower_record(k, reader.guild_id, rank) for rank, k in enumerate(found, 1)]
            )

    @server.tool(annotations=READ_ONLY)
    async def timeline(subject: str, at: str | None = None) -> list[dict[str, Any]]:
        """Every fact about a member or an entity, oldest valid_at first, as of `at` (ISO; default now): whether it
        held then, what it superseded and what superseded it, who reported it, links."""
        with _told():
            return await _or_why_empty(reader, await _timeline(reader, subject, at))

    @server.tool(annotations=READ_ONLY)
    async def list_queries_here() -> list[dict[str, Any]]:
        """The operator queries `run_query` runs here, with their parameters (guild_id and channel_id are set)."""
        return [
            {
                "name": q.name,
                "title": q.title,
                "answers": q.answers,
                "params": [
                    {"name": p.name, "type": p.type, "required": p.required, "description": p.description}
                    for p in q.params
                    if p.name not in ("guild_id", SCOPED)
                ],
            }
            for q in scoped_queries()
        ]

    @server.tool(annotations=READ_ONLY)
    async def run_query(name: str, params: dict[str, str] | None = None) -> list[dict[str, Any]]:
        """Run one operator query of `list_queries_here` on this server, read-only, with `params` as text."""
        allowed = {q.name for q in scoped_queries()}
        with _told():
            if name not in allowed:
                raise LookupError(f"{name!r} is not an operator query this server runs; it runs: {', '.join(sorted(allowed))}")
            query = get_query(name)
            raw = {k: v for k, v in (params or {}).items() if k not in ("guild_id", SCOPED)}
            values = coerce_params(query, {**raw, "guild_id": reader.guild_id, SCOPED: SHARED})
            if await asks_for_opted_out(values, reader.opted_out):
                return await _or_why_empty(reader, [])  # as for an id never stored
            rows = await run_operator_query(reader.store, query, values)
            return await _or_why_empty(reader, await without_opted_out(rows, reader.opted_out))

    return server


async def serve(settings: Settings, guild_id: str) -> None:
    """Open the store, then answer on stdin/stdout until the client closes them."""
    from grapevine.runtime import open_store

    async with open_store(settings) as rt:
        store = await rt.reader()
        reader = Reader(store, guild_id, opted_out_reader(store, keyed(rt.store)))
        await build(reader).run_stdio_async()
