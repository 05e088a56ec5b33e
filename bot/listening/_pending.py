"""Deletes and edits the graph could not take yet (an outage), kept on disk until they are applied: a JSON line
each in `<data dir>/pending_changes.jsonl`, written and fsynced before the event is acknowledged, so a restart
loses none. Applied in arrival order when the graph answers again; a line leaves the file only once applied.
An edit's line holds the message's new text until then (the graph would hold it anyway)."""

from __future__ import annotations

from common.durable_lines import DurableLines as PendingChanges

__all__ = ["FILE_NAME", "PendingChanges"]

FILE_NAME = "pending_changes.jsonl"
