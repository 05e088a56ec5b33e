"""The graph's schema: constraints, indexes, the backfills of older graphs, and the schema record that refuses a
graph set up differently (its salt keys the consent records: graph/privacy/guards/consent.py); and the data directory
owner's token, kept in the same record's neighbourhood (grapevine/ownership.py)."""

from __future__ import annotations

import hashlib
import secrets
from pathlib import Path

import queries
from common.clock import now_utc
from graph.models import SchemaMismatch, iso
from graph.privacy.guards import scope
from graph.reads.stats import backfill as backfill_counts
from graph.store import GraphStore

SCHEMA_VERSION = 1


async def setup_schema(store: GraphStore, embedding_model: str = "", embedding_dimension: int | None = None) -> None:
    """Constraints, indexes and the schema record; refuses a graph set up differently."""
    runner = store.runner
    for statement in queries.statements(queries.load("schema/constraints")):
        await runner.statement(statement)
    await store.engine.create_search_indexes(store.driver, embedding_dimension if embedding_model else None)
    await runner.write_one("schema/backfill_user_names")
    await runner.write_one("schema/backfill_message_keys")
    await runner.write_one("schema/backfill_retire_at")
    for statement in queries.statements(queries.load("schema/backfill_guild_terms")):  # the full-text indexes' guild
        await runner.statement(statement)
    await scope.backfill_audience(runner)
    for statement in queries.statements(queries.load("schema/backfill_fact_keys")):  # graph/reads/activity.py
        await runner.statement(statement)
    await backfill_counts(store)  # each guild's kept counts (graph/counts.py), for a store made before them
    await _checked(store, embedding_model, embedding_dimension, write=True)


def schema_version_key() -> str:
    """What the set-up above does, as a digest of its statements (every file under queries/schema/) and of this
    module: an owner that set the schema up with the same key left nothing for a command joining it to do."""
    digest = hashlib.sha256(SCHEMA_VERSION.to_bytes(4, "big"))
    for path in sorted((queries.ROOT / "schema").iterdir()):
        digest.update(path.name.encode() + b"\0" + path.read_bytes())
    digest.update(Path(__file__).read_bytes())
    return digest.hexdigest()[:32]


async def check_schema(store: GraphStore, embedding_model: str = "", embedding_dimension: int | None = None) -> None:
    """The schema record's checks of `setup_schema`, without its writes: for a command joining an engine whose
    owner set the schema up with the same `schema_version_key` (about 40 statements fewer)."""
    await _checked(store, embedding_model, embedding_dimension, write=False)


async def _checked(store: GraphStore, embedding_model: str, embedding_dimension: int | None, *, write: bool) -> None:
    runner = store.runner
    meta = await runner.read("schema/read_meta")
    if not meta and not write:
        raise SchemaMismatch("the graph has no schema record: its owner did not set it up")
    if not meta:
        await runner.write_one(
            "schema/write_meta",
            version=SCHEMA_VERSION,
            embedding_model=embedding_model,
            embedding_dimension=embedding_dimension or 0,
            salt=secrets.token_hex(16),
            now=iso(now_utc()),
        )
        meta = await runner.read("schema/read_meta")
    found = meta[0]
    if found["version"] != SCHEMA_VERSION:
        raise SchemaMismatch(
            f"the graph has schema version {found['version']}, this grapevine needs {SCHEMA_VERSION}: "
            "migrate the graph or point GRAPEVINE_DATA_DIR / NEO4J_URI at another database"
        )
    if (found["embedding_model"] or "") != embedding_model or (found["embedding_dimension"] or 0) != (
        embedding_dimension or 0 if embedding_model else 0
    ):
        raise SchemaMismatch(
            f"the graph was set up with embeddings {found['embedding_model'] or 'off'!r} "
            f"(dimension {found['embedding_dimension']}), the configuration asks for "
            f"{embedding_model or 'off'!r}: set EMBEDDINGS_MODEL to match, or use a new database"
        )
    store.salt = found["salt"]
    store.consent_keys.clear()


async def owner_token(store: GraphStore) -> str | None:
    rows = await store.runner.read("schema/read_owner")
    return str(rows[0]["token"]) if rows else None


async def set_owner_token(store: GraphStore, token: str) -> None:
    await store.runner.write_one("schema/write_owner", token=token)
