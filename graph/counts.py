"""Each guild's counts of its facts, entities, messages and episodes, kept on its Guild node as the writes happen,
so `memory status` and `grapevine stats` read one node where a count through the guild_id indexes reads a row per
record (774 ms at a million facts).

They follow the statements, not the writers: every statement that creates or deletes one of these nodes is named
in `COUNTED`, and the runner's `run` (graph/session.py) moves the guilds' counts around it in the same transaction:
down by the nodes it names that exist just before it, up by those that exist just after it (one statement each,
store/move_counts_*.cypher: an index seek per id, the counts set in the same statement). A statement that only
creates (under a unique key) has nothing to take away before it, one that deletes every node it names leaves nothing
to add after it: one statement more each. A writer added later that runs one of them is counted without knowing it;
a statement added later that creates or deletes one must be named here (tests/graph/test_counts.py reads every
query file for such clauses, and a property test over the graph's writers compares the kept counts with a recount).
A statement that deletes a guild's nodes by guild (a reset, a DM space
forgotten) deletes its Guild node too, and the counts with it; a Guild node made again has none (null: not kept),
and the next read of them recounts that guild (graph/reads/stats.py), as the schema's backfill does for a store made
before they were kept.

The guild's days move on the same path: an ActivityDay node per channel and UTC day holds the messages created that
day, and one per day the guild's facts stored (created_key) and closed (closed_key) that day, what `memory status`
reads for its last week (graph/reads/activity.py). The message and fact movers move them with the counts; the
statements that close facts without creating or deleting any (a supersession, a cap, an end passed) are named too,
their facts moved before and after them (the counts stay, the days of closing move). They are kept, recounted and
backfilled with the counts (`activity_kept` on the Guild node)."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass
from typing import Any

from neo4j import AsyncManagedTransaction

import queries

KINDS = ("facts", "entities", "messages", "episodes")
DAY_KINDS = ("messages", "learned", "closed")  # what an ActivityDay holds: a channel's messages, the guild's facts


@dataclass(frozen=True)
class Counted:
    """A statement that creates or deletes nodes of `kind`: which parameter names them (`field` of each row, or the
    value itself), and the statement that moves the counts by those found (store/move_counts_*.cypher). With `result`,
    it deletes by guild (the parameter `param`) and returns how many it deleted in that column. With `created`, it
    CREATEs them under a unique constraint (a statement that met one stored would fail): they are counted after it
    only. With `every`, it deletes every node it names, whatever it finds: they are counted before it only. With
    `select`, the nodes are the `id`s that statement finds with the statement's own parameters just before it (one
    that closes facts it finds by a condition: the same nodes before and after it, their days of closing moved)."""

    kind: str
    param: str
    field: str | None = None
    held: str = ""
    result: str | None = None
    created: bool = False  # it CREATEs them under a unique key: none of them existed before (nothing before it)
    every: bool = False  # it deletes each node it names, unconditionally: none of them exists after it (nothing after)
    select: str | None = None

    def mover(self) -> str:
        return self.held or f"store/move_counts_{self.kind}"


COUNTED: dict[str, Counted] = {
    # creating
    "store/record_messages": Counted("messages", "rows", "id", created=True),
    "store/close_episode": Counted("episodes", "key", held="store/move_counts_episode_keys"),
    "store/write_entities": Counted("entities", "entities", "uuid"),
    "store/write_episode_facts": Counted("facts", "facts", "uuid", created=True),
    "store/write_command_facts": Counted("facts", "facts", "uuid", created=True),
    # deleting
    "store/delete_message": Counted("messages", "id", every=True),
    "store/drop_own_message": Counted("messages", "message_id"),
    "store/forget_messages": Counted("messages", "ids", every=True),
    "store/forget_episodes": Counted("episodes", "uuids"),
    "store/forget_facts": Counted("facts", "uuids", every=True),
    "store/delete_facts": Counted("facts", "uuids"),
    "store/forget_owned_entities": Counted("entities", "uuids", every=True),
    "store/forget_orphan_entities": Counted("entities", "uuids"),
    "store/drop_orphan_entities": Counted("entities", "uuids"),
    "erasure/delete_facts": Counted("facts", "uuids", every=True),
    "erasure/orphan_entities": Counted("entities", "uuids"),
    "erasure/empty_episodes": Counted("episodes", "guild_id", result="episodes"),
    # closing facts: the counts stay, the days of closed facts (ActivityDay) move
    "store/write_supersessions": Counted("facts", "supersessions", "old_uuid"),
    "store/enforce_user_cap": Counted("facts", "members", select="store/cap_candidates"),
    "store/retire_expired": Counted("facts", "now", select="store/retiring_facts"),
}
# statements that delete a guild's nodes by guild and its Guild node with them: the counts go with the node
WITH_THE_GUILD = frozenset({"store/reset_guild", "store/forget_dm_space"})

Tx = AsyncManagedTransaction
Rows = list[dict[str, Any]]


async def _rows(tx: Tx, name: str, **params: Any) -> Rows:
    return await run_statement(tx, queries.load(name), **params)


async def run_statement(tx: Tx, text: str, **params: Any) -> Rows:
    result = await tx.run(text, params)
    return [record.data() async for record in result]


def _ids(counted: Counted, params: Mapping[str, Any]) -> list[str]:
    value = params.get(counted.param)
    if value is None:
        return []
    if isinstance(value, str):
        return [value]
    return sorted({str(row[counted.field] if counted.field else row) for row in value})


async def _move(tx: Tx, counted: Counted, ids: list[str], by: int) -> None:
    """The kept counts of the guilds holding the nodes `ids` names moved by `by` for each of them there now."""
    if ids:
        await _rows(tx, counted.mover(), ids=ids, by=by)


async def add(tx: Tx, changes: Mapping[str, Mapping[str, int]]) -> None:
    """Move the kept counts of each guild by `changes` (guild id -> kind -> how many more, or fewer)."""
    rows = [
        {"guild_id": guild_id, **{kind: int(by.get(kind, 0)) for kind in KINDS}}
        for guild_id, by in sorted(changes.items())
        if any(by.get(kind, 0) for kind in KINDS)
    ]
    if rows:
        await _rows(tx, "store/bump_counts", rows=rows)


async def counted_run(tx: Tx, name: str, statement: Callable[[], Awaitable[Rows]], params: Mapping[str, Any]) -> Rows:
    """Run `statement` (the query file `name`), moving its guilds' kept counts by what it created or deleted."""
    counted = COUNTED.get(name)
    if counted is None:
        return await statement()
    if counted.result is not None:
        rows = await statement()
        gone = sum(int(r[counted.result]) for r in rows)
        await add(tx, {str(params[counted.param]): {counted.kind: -gone}})
        return rows
    if counted.select is not None:
        ids = sorted({str(r["id"]) for r in await _rows(tx, counted.select, **params)})
    else:
        ids = _ids(counted, params)
    if not counted.created:
        await _move(tx, counted, ids, -1)
    rows = await statement()
    if not counted.every:
        await _move(tx, counted, ids, +1)
    return rows


async def recount(tx: Tx, guild_id: str) -> dict[str, int]:
    """The guild's records counted now, through their guild_id indexes (store/guild_counts.cypher): what the kept
    counts must equal."""
    counts = dict.fromkeys(KINDS, 0)  # a label not yet made gives no row
    for statement in queries.statements(queries.load("store/guild_counts")):
        result = await tx.run(statement, {"guild_id": guild_id})
        for row in [record.data() async for record in result]:
            counts[str(row["kind"])] = int(row["count"])
    return counts


async def recount_days(tx: Tx, guild_id: str) -> dict[tuple[int, str], dict[str, int]]:
    """The guild's days counted now through the guild_id indexes (store/activity_recount.cypher): (day, channel id,
    '' for the guild's facts) -> messages, learned, closed; what its ActivityDay nodes must hold (none zero)."""
    days: dict[tuple[int, str], dict[str, int]] = {}
    for statement in queries.statements(queries.load("store/activity_recount")):
        result = await tx.run(statement, {"guild_id": guild_id})
        for row in [record.data() async for record in result]:
            day = days.setdefault((int(row["day"]), str(row["channel_id"] or "")), dict.fromkeys(DAY_KINDS, 0))
            day[str(row["kind"])] = int(row["count"])
    return days


async def kept_days(tx: Tx, guild_id: str) -> dict[tuple[int, str], dict[str, int]]:
    """The guild's ActivityDay nodes as kept, those holding anything (a day whose records all went stays, at 0)."""
    rows = await _rows(tx, "store/activity_days", from_key=f"{guild_id}|", to_key=f"{guild_id}}}")
    return {
        (int(r["day"]), str(r["channel_id"] or "")): {kind: int(r[kind] or 0) for kind in DAY_KINDS}
        for r in rows
        if any(r[kind] for kind in DAY_KINDS)
    }


async def set_recounted(tx: Tx, guild_id: str) -> dict[str, int]:
    """The guild's kept counts and days set to a recount, in one transaction (a writer meanwhile conflicts and runs
    again)."""
    counts = await recount(tx, guild_id)
    await _rows(tx, "store/set_counts", guild_id=guild_id, **counts)
    days = await recount_days(tx, guild_id)
    rows = [{"day": day, "channel_id": channel, **by} for (day, channel), by in sorted(days.items())]
    for statement in queries.statements(queries.load("store/set_activity")):
        await run_statement(tx, statement, guild_id=guild_id, rows=rows)
    return counts


def kept(row: Mapping[str, Any]) -> dict[str, int] | None:
    """The counts of a row of store/kept_counts.cypher; None when they are not kept (or the guild has no node)."""
    if row.get("guild_id") is None or not row.get("activity") or any(row.get(kind) is None for kind in KINDS):
        return None
    return {kind: int(row[kind]) for kind in KINDS}
