"""What is known, for extraction and the members' commands (a reply's reads are graph/reads/context.py's): the
facts about members and entities, now or over time, entities and members by name, accounts by id."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

from common.clock import now_utc
from common.text import lucene_query, name_key
from graph import rows
from graph.models import EntityView, FactView, User, iso
from graph.reads.search_order import in_guild_order
from graph.store import GraphStore


async def facts_about(
    store: GraphStore,
    guild_id: str,
    *,
    user_ids: Sequence[str] = (),
    entity_uuids: Sequence[str] = (),
    now: datetime | None = None,
    limit: int = 50,
    channel_id: str | None = None,
) -> list[FactView]:
    """With `channel_id`, only what may be recalled there (graph/privacy/channels.py); without, everything."""
    found = await store.runner.read(
        "store/facts_about",
        guild_id=guild_id,
        channel_id=channel_id,
        user_ids=list(user_ids),
        entity_uuids=list(entity_uuids),
        now=iso(now or now_utc()),
        limit=limit,
    )
    return sorted((rows.fact(r) for r in found), key=rows.importance_then_newest)


async def facts_history(
    store: GraphStore,
    guild_id: str,
    *,
    user_ids: Sequence[str] = (),
    entity_uuids: Sequence[str] = (),
    at: datetime | None = None,
    history: bool = False,
    limit: int = 500,
    now: datetime | None = None,
) -> list[FactView]:
    """What held at `at` (else at `now`: what holds, plans not begun yet included), or every fact (`history`)."""
    found = await store.runner.read(
        "store/facts_about_history",
        guild_id=guild_id,
        user_ids=list(user_ids),
        entity_uuids=list(entity_uuids),
        at=iso(at),
        now=iso(now or now_utc()),
        history=history,
        limit=limit,
    )
    return [rows.fact(r) for r in found]


async def facts_by_uuid(store: GraphStore, guild_id: str, uuids: list[str]) -> list[FactView]:
    return [rows.fact(r) for r in await store.runner.read("store/facts_by_uuid", guild_id=guild_id, uuids=uuids)]


async def search_entities(store: GraphStore, guild_id: str, text: str, limit: int = 20, hits: int = 100) -> list[EntityView]:
    """The guild's entities whose name or aliases match `text`: `hits` of its best matches read, the first `limit`
    of them in the guild's own order (graph/reads/search_order.py)."""
    query = lucene_query(text)
    if not query:
        return []
    found = await store.runner.read("store/search_entities", guild_id=guild_id, query=query, limit=max(hits, limit))
    entities = [rows.entity(r) for r in found]
    return in_guild_order(entities, text, lambda e: [e.name, *e.aliases], lambda e: e.uuid, limit)


async def entities_by_names(store: GraphStore, guild_id: str, names: list[str]) -> list[EntityView]:
    keys = sorted({name_key(n) for n in names if name_key(n)})
    found = await store.runner.read("store/entities_by_keys", guild_id=guild_id, keys=keys) if keys else []
    return [rows.entity(r) for r in found]


async def members_by_name(store: GraphStore, guild_id: str, names: list[str], limit: int = 20) -> list[User]:
    lowered = sorted({n.casefold() for n in names if n})
    if not lowered:
        return []
    found = await store.runner.read("store/members_by_name", guild_id=guild_id, names=lowered, limit=limit)
    return [rows.user(r) for r in found]


async def users_by_id(store: GraphStore, ids: list[str], guild_id: str | None = None) -> list[User]:
    return [rows.user(r) for r in await store.runner.read("store/users_by_id", ids=ids, guild_id=guild_id)]
