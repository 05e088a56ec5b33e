"""The schema's set-up key: a command joining a shared engine skips the set-up its owner ran only when the key,
a digest of every statement of the set-up, is the same. The set-up runs again harmlessly, and refuses a graph
built for other embeddings."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

import queries
from graph.models import SchemaMismatch
from graph.schema import schema_version_key, setup_schema
from graph.store import GraphStore


def test_the_key_changes_with_any_statement_of_the_set_up(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    root = tmp_path / "queries"
    shutil.copytree(queries.ROOT / "schema", root / "schema")
    monkeypatch.setattr(queries, "ROOT", root)
    same = schema_version_key()
    assert same == schema_version_key()
    backfill = root / "schema" / "backfill_guild_terms.cypher"
    backfill.write_text(backfill.read_text(encoding="utf-8") + "\n// changed", encoding="utf-8")
    assert schema_version_key() != same
    (root / "schema" / "backfill_new.cypher").write_text("MATCH (n) RETURN count(n)", encoding="utf-8")
    assert len({same, schema_version_key()}) == 2


async def test_schema_setup_is_idempotent_and_refuses_other_embeddings(store: GraphStore) -> None:
    await setup_schema(store)
    with pytest.raises(SchemaMismatch, match="embeddings"):
        await setup_schema(store, "all-minilm-l6-v2", 384)
