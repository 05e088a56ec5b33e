"""The shared IRC samples as two guilds of DiscordChatExporter exports with shared members: every sample a channel
of guild A, the first few again as channels of guild B (their own channel and message ids, the same people), as an
operator would import a community that runs two servers. Imported here the way `grapevine import` does (windows
formed as the live bot forms them; pending without an LLM). Used by `bench.member_requests --irc` and by the slow
replay test of erasure (tests/faults/test_erasure_replay.py)."""

from __future__ import annotations

import json
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from common.settings import ExtractionSettings, WindowSettings
from graph.privacy.guards.consent import Consent
from graph.store import GraphStore
from ingest.history_import import import_export
from ingest.ingestor import Ingestor
from tests.support.datasets import DATA_DIR, dev_samples
from tests.support.dce_builder import export_from_irc, user_id

GUILD_A, GUILD_B = "700000000000000042", "700000000000000043"
SHARED = 3  # samples imported into both guilds
_B_IDS = 1 << 21  # guild B's copy of a message: its id with this low bit set (the builder's low bits stay below it)


@dataclass(frozen=True)
class Imported:
    paths: list[Path]
    messages: int
    windows: int
    authors: Counter[tuple[str, str]]  # (user id, nickname) -> messages written, both guilds


def _second_guild(document: dict[str, Any], stem: str) -> dict[str, Any]:
    """The same channel as a channel of guild B: new channel and message ids, the same members."""
    channel_id = user_id(f"channel-b:{stem}")

    def moved(mid: str) -> str:
        return str(int(mid) | _B_IDS)

    messages = []
    for m in document["messages"]:
        m = {**m, "id": moved(m["id"])}
        if m.get("reference"):
            m["reference"] = {**m["reference"], "messageId": moved(m["reference"]["messageId"]), "channelId": channel_id,
                              "guildId": GUILD_B}  # fmt: skip
        messages.append(m)
    return {
        **document,
        "guild": {**document["guild"], "id": GUILD_B, "name": "Ubuntu (second server)"},
        "channel": {**document["channel"], "id": channel_id},
        "messages": messages,
    }


def _last(path: Path, messages: int) -> None:
    """The export cut to its last `messages` messages: a channel exported from a date on. A reply to a message
    before the cut keeps its reference, as a real export's does."""
    document = json.loads(path.read_text(encoding="utf-8"))
    document["messages"] = document["messages"][-messages:]
    path.write_text(json.dumps(document), encoding="utf-8")


def write_exports(folder: Path, samples: list[Path] | None = None, shared: int = SHARED, last: int | None = None) -> list[Path]:
    """Exports of every sample for guild A, and of the first `shared` for guild B; with `last`, each channel's
    last `last` messages only (the samples' reply annotations are in their last 250 lines)."""
    folder.mkdir(parents=True, exist_ok=True)
    found = samples if samples is not None else dev_samples(DATA_DIR)
    paths = []
    for n, sample in enumerate(found):
        stem = sample.name.removesuffix(".raw.txt")
        path = folder / f"a-{stem}.json"
        export_from_irc(sample, path, guild_id=GUILD_A)
        if last is not None:
            _last(path, last)
        paths.append(path)
        if n < shared:
            second = folder / f"b-{stem}.json"
            second.write_text(json.dumps(_second_guild(json.loads(path.read_text(encoding="utf-8")), stem)), encoding="utf-8")
            paths.append(second)
    return paths


def authors(paths: list[Path]) -> Counter[tuple[str, str]]:
    counts: Counter[tuple[str, str]] = Counter()
    for path in paths:
        for m in json.loads(path.read_text(encoding="utf-8"))["messages"]:
            if m["type"] in ("Default", "Reply") and not m["author"].get("isBot"):
                counts[(m["author"]["id"], m["author"]["nickname"] or m["author"]["name"])] += 1
    return counts


async def import_all(store: GraphStore, paths: list[Path]) -> Imported:
    """Import the exports in-process, as `grapevine import` does without an LLM (windows left pending)."""
    consent = Consent(store)
    await consent.load()
    ingestor = Ingestor(store, None, ExtractionSettings(), WindowSettings())
    messages = windows = 0
    for path in paths:
        result = await import_export(path, store, ingestor, consent, WindowSettings())
        messages, windows = messages + result.messages, windows + result.windows
    return Imported(paths, messages, windows, authors(paths))
