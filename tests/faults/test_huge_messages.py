"""A 1 MB message crashed `import` (the whole window's text sent to the full-text
index as one term) and then every `ingest --pending` of its guild."""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

from graph.reads.facts import search_entities
from graph.store import GraphStore
from ingest.export_format import parse_export
from tests.graph.reads.test_context_busy_server import reply_facts_of
from tests.ingest.test_export_format import SYSTEM, document, export_path, write  # noqa: F401 - fixtures
from tests.support.busy_server import G1, populate


async def test_a_huge_message_is_searched_by_bounded_terms(store: GraphStore) -> None:
    """A window holding a 1 MB message crashed every extraction of its guild in the
    entity search (one 1 MB "word" sent to the full-text index)."""
    await populate(store)
    huge = "how is ATX " + "z" * 1_000_000 + " " + "word " * 50_000
    assert [e.name for e in await search_entities(store, G1, huge)] == ["Austin"]
    assert "Charlie's sister lives in Austin" not in await reply_facts_of(store, G1, "z" * 100_000)
    assert "Charlie's sister lives in Austin" in await reply_facts_of(store, G1, huge)


def test_content_longer_than_discord_allows_is_skipped(document: dict[str, Any], tmp_path: Path) -> None:
    """A 1 MB message was imported whole (and crashed the entity search)."""
    doc = copy.deepcopy(document)
    spoken = [i for i, m in enumerate(doc["messages"]) if m["type"] not in SYSTEM]
    doc["messages"][spoken[3]]["content"] = "z" * 1_000_000
    doc["messages"][spoken[4]]["content"] = "y" * 4000  # the longest Discord takes
    result = parse_export(write(tmp_path, doc))
    [skipped] = result.skipped
    assert skipped.index == spoken[3] and skipped.message_id == doc["messages"][spoken[3]]["id"]
    assert "content" in skipped.reason and "4000" in skipped.reason
    assert any(m.content == "y" * 4000 for m in result.messages)
