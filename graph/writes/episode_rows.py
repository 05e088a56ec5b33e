"""Rows of new facts: for store/write_episode_facts.cypher each fact with every edge it starts with, deduplicated
here because the statement creates edges (the facts are new) rather than merging them; for
store/write_command_facts.cypher the fact and its source messages."""

from __future__ import annotations

from typing import Any

from graph.models import FactWrite, NodeRef, iso


def _ids(refs: tuple[NodeRef, ...], kind: str) -> list[str]:
    return list(dict.fromkeys(r.id for r in refs if r.kind == kind))


def fact_properties(f: FactWrite) -> dict[str, Any]:
    """The properties a new fact is stored with, as both write statements take them."""
    return {
        "uuid": f.uuid,
        "text": f.text,
        "category": f.category,
        "importance": f.importance,
        "confidence": f.confidence,
        "source": f.source,
        "valid_at": iso(f.valid_at),
        "expires_at": iso(f.expires_at),
        "embedding": list(f.embedding) if f.embedding else None,
    }


def command_fact_rows(facts: tuple[FactWrite, ...]) -> list[dict[str, Any]]:
    """One row per fact stated to the bot: its properties, the messages it came from and the channel it was stated
    in (its audience, graph/privacy/guards/scope.py)."""
    return [{**fact_properties(f), "source_message_ids": list(f.source_message_ids), "channel_id": f.channel_id} for f in facts]


def new_fact_rows(facts: tuple[FactWrite, ...]) -> list[dict[str, Any]]:
    """One row per fact: its properties, the messages it came FROM (its sources and its reports' messages),
    whom and what it is ABOUT and MENTIONS, and its reports, one per reporter and message (the first `at`)."""
    rows = []
    for f in facts:
        reports: dict[tuple[str, str], dict[str, Any]] = {}
        for r in f.reports:
            reports.setdefault(
                (r.user_id, r.message_id or ""), {"user_id": r.user_id, "message_id": r.message_id or "", "at": iso(r.at)}
            )
        messages = [*f.source_message_ids, *(r.message_id for r in f.reports if r.message_id)]
        rows.append(
            {
                **fact_properties(f),
                "message_ids": list(dict.fromkeys(messages)),
                "about_users": _ids(f.about, "user"),
                "about_entities": _ids(f.about, "entity"),
                "mentioned_users": _ids(f.mentions, "user"),
                "mentioned_entities": _ids(f.mentions, "entity"),
                "reports": list(reports.values()),
            }
        )
    return rows
