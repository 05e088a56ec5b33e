"""Writing messages and their authors: one transaction for a recorder's batch (authors upserted, messages
created, edits applied, replies linked), with the opt-out records read once for all of it.

Callers that cache which authors are stored already (ingest/recording.py) pass only the new or changed ones;
an author the cache wrongly thinks stored (its node deleted meanwhile by a forget in another process) is
upserted here and its messages created after all, so a stale cache costs one more statement, never a message.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from graph.changes import messages_written, touches
from graph.keys import channel_time
from graph.models import Channel, Guild, Message, User, iso
from graph.privacy.guards import optout_guard
from graph.privacy.guards.consent import keyed
from graph.session import Tx, run
from graph.store import GraphStore
from graph.writes.discord_records import place_channel, refuse_elsewhere


@dataclass(frozen=True)
class Recorded:
    refused: list[str]  # message ids another guild, channel or author holds
    opted_out: set[str] = field(default_factory=set)  # user ids among the authors and mentions opted out now
    created: int = 0  # messages new to the graph (the others were stored already)


@dataclass(frozen=True)
class Place:
    """Where a batch's messages are (an import's file): written in the batch's transaction, and only when at least
    one of its messages is stored, so a file whose every message is refused stores no guild, channel or author."""

    guild: Guild
    channel: Channel
    users: Sequence[User]


def user_rows(users: Sequence[User]) -> list[dict[str, Any]]:
    return [
        {
            "id": u.id,
            "name": u.name,
            "display_name": u.display_name,
            "is_bot": u.is_bot,
            "name_lower": u.name.casefold(),
            "display_lower": u.display_name.casefold(),
        }
        for u in users
    ]


def message_row(m: Message) -> dict[str, Any]:
    """A message as record_messages.cypher takes it (built by hand: pydantic's model_dump cost more per message)."""
    return {
        "id": m.id,
        "guild_id": m.guild_id,
        "channel_id": m.channel_id,
        "author_id": m.author_id,
        "content": m.content,
        "created_at": iso(m.created_at),
        "edited_at": iso(m.edited_at),
        "reply_to_id": m.reply_to_id,
        "channel_time": channel_time(m.channel_id, m.created_at),
    }


async def record(
    tx: Tx,
    consent_key: Callable[[str], str],
    messages: Sequence[Message],
    authors: Mapping[str, User] | None = None,
    upsert: Mapping[str, Sequence[User]] | None = None,
    place: Place | None = None,
) -> Recorded:
    """Store `messages` (a later edit of a stored one applies) after upserting `upsert` (guild id -> users);
    `authors` (user id -> User) lets an author missing from the graph be upserted in its message's guild; `place`
    is written before the messages when one of them is stored (ChannelElsewhere, before any write, when its
    channel's id is another guild's)."""
    upsert = upsert or {}
    _touch(messages, upsert, place)
    ids = {m.author_id for m in messages} | optout_guard.mentioned(messages) | {u.id for us in upsert.values() for u in us}
    if place is not None:
        await refuse_elsewhere(tx, place.channel)
        ids |= {u.id for u in place.users}
    out = await optout_guard.opted_out(tx, consent_key, ids)
    for guild_id, users in upsert.items():
        kept = optout_guard.allowed_users(list(users), out)
        if kept:
            await run(tx, "store/upsert_users", users=user_rows(kept), guild_id=guild_id)
    data, refused = _once_each([message_row(m) for m in optout_guard.allowed_messages(list(messages), out)])
    if not data:
        return Recorded(refused, out)
    stored = {r["id"]: r for r in await run(tx, "store/messages_stored", ids=[r["id"] for r in data])}
    before = len(refused)
    new, edits, replies = _sorted_rows(data, stored, refused)
    if place is not None and len(refused) - before < len(data):
        await _write_place(tx, place, out)
    created = 0
    if new:
        written = await run(tx, "store/record_messages", rows=new)
        created = int(written[0]["created"]) if written else 0
        if authors and created < len(new):
            created += await _authors_missing(tx, new, authors)
    for name, batch in (("store/edit_messages", edits), ("store/link_replies", replies)):
        if batch:
            await run(tx, name, rows=batch)
    # what a reply's read model of the channel's talk follows in place (graph/reads/talk_model.py): every new row
    # created, else it cannot tell which were
    messages_written([*new, *({**row, "edit": True} for row in edits)] if created == len(new) else None)
    return Recorded(refused, out, created)


def _touch(messages: Sequence[Message], upsert: Mapping[str, Sequence[User]], place: Place | None) -> None:
    """What the write moves for the read models: a member's name is what a reply's facts read; messages alone are
    not, and which messages it wrote is said once they are (graph/changes.py)."""
    touches({m.guild_id for m in messages}, facts=False, messages=())
    named = [*upsert.items(), *([(place.guild.id, place.users)] if place is not None else [])]
    for guild_id, users in named:  # their names, on the facts about them and reported by them
        if users:
            touches([guild_id], fact_uuids=(), entity_uuids=[u.id for u in users])


async def _write_place(tx: Tx, place: Place, out: set[str]) -> None:
    """The guild, channel and authors of a batch one of whose messages is stored (opted-out authors left out)."""
    await run(tx, "store/upsert_guild", id=place.guild.id, name=place.guild.name)
    await place_channel(tx, place.channel)
    kept = optout_guard.allowed_users(list(place.users), out)
    if kept:
        await run(tx, "store/upsert_users", users=user_rows(kept), guild_id=place.guild.id)


def _sorted_rows(
    data: list[dict[str, Any]], stored: Mapping[str, Mapping[str, Any]], refused: list[str]
) -> tuple[list[dict[str, Any]], list[dict[str, Any]], list[dict[str, Any]]]:
    """The rows new to the graph, the edits of stored ones and the reply links; a row whose id is stored under
    another guild, channel or author goes to `refused` (an id is never moved)."""
    new, edits, replies = [], [], []
    for row in data:
        old = stored.get(row["id"])
        if old is None:
            new.append(row)
        elif old["guild_id"] != row["guild_id"] or old["channel_id"] != row["channel_id"] or old["author_id"] != row["author_id"]:
            refused.append(str(row["id"]))
            continue
        elif row["edited_at"] is not None:
            edits.append(row)
        if row["reply_to_id"]:
            replies.append({"id": row["id"], "reply_to_id": row["reply_to_id"]})
    return new, edits, replies


async def _authors_missing(tx: Tx, new: list[dict[str, Any]], authors: Mapping[str, User]) -> int:
    """Messages not created because their author has no node (deleted since it was cached): upsert those authors
    in their messages' guilds and create the messages; how many were."""
    stored = {r["id"] for r in await run(tx, "store/messages_stored", ids=[r["id"] for r in new])}
    missing = [row for row in new if row["id"] not in stored and row["author_id"] in authors]
    by_guild: dict[str, dict[str, User]] = {}
    for row in missing:
        by_guild.setdefault(row["guild_id"], {})[row["author_id"]] = authors[row["author_id"]]
    for guild_id, users in by_guild.items():
        touches([guild_id], fact_uuids=(), entity_uuids=list(users))
        await run(tx, "store/upsert_users", users=user_rows(list(users.values())), guild_id=guild_id)
    if not missing:
        return 0
    created = await run(tx, "store/record_messages", rows=missing)
    return int(created[0]["created"]) if created else 0


def _once_each(rows_: list[dict[str, Any]]) -> tuple[list[dict[str, Any]], list[str]]:
    """One row per message id (record_messages.cypher creates a new id once): a later copy of the same
    message is an edit when its edited_at is later; a copy naming another guild, channel or author is refused."""
    first: dict[str, dict[str, Any]] = {}
    refused = []
    for row in rows_:
        kept = first.get(row["id"])
        if kept is None:
            first[row["id"]] = row
        elif any(kept[k] != row[k] for k in ("guild_id", "channel_id", "author_id")):
            refused.append(str(row["id"]))
        elif row["edited_at"] is not None and (
            kept["edited_at"] is None or datetime.fromisoformat(row["edited_at"]) > datetime.fromisoformat(kept["edited_at"])
        ):
            kept.update(content=row["content"], edited_at=row["edited_at"])
    return list(first.values()), refused


async def record_messages(store: GraphStore, messages: list[Message]) -> list[str]:
    """Store messages (a later edit of a stored one applies); returns the ids refused because a message
    of another guild, channel or author has them."""
    if not messages:
        return []
    return (await store.runner.write(lambda tx: record(tx, keyed(store), messages))).refused


async def record_batch(
    store: GraphStore,
    messages: list[Message],
    authors: Mapping[str, User],
    upsert: Mapping[str, Sequence[User]],
    place: Place | None = None,
) -> Recorded:
    """A recorder's batch in one transaction: `upsert` (guild id -> new or changed users) and the messages;
    an author of `authors` found missing from the graph is upserted too, and `place` when a message is stored."""
    return await store.runner.write(lambda tx: record(tx, keyed(store), messages, authors, upsert, place))


async def edit_message(store: GraphStore, message_id: str, content: str, edited_at: datetime) -> bool:
    return bool(await store.runner.write_one("store/edit_message", id=message_id, content=content, edited_at=iso(edited_at)))


async def delete_message(store: GraphStore, message_id: str) -> bool:
    result = await store.runner.write_one("store/delete_message", id=message_id)
    return bool(result and result[0]["deleted"])
