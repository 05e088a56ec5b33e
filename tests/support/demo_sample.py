"""The shipped sample (examples/discord-export, 25 messages of one guild) imported as `grapevine demo` imports it,
its extraction answers replayed (no LLM)."""

from __future__ import annotations

from pathlib import Path

from common.settings import ExtractionSettings, WindowSettings
from grapevine.replayed_llm import RecordedAnswers, ReplayedLLM
from graph.privacy.guards.consent import Consent
from graph.store import GraphStore
from ingest.history_import import import_export
from ingest.ingestor import Ingestor

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
SAMPLE_GUILD = "833055463833731073"
SAMPLE_GENERAL = "833055715491971076"


async def load_demo(store: GraphStore) -> None:
    """The sample imported as `grapevine demo` imports it."""
    llm = ReplayedLLM(RecordedAnswers.read(EXAMPLES / "replayed-answers.json"))
    consent = Consent(store)
    await consent.load()
    ingestor = Ingestor(store, llm, ExtractionSettings(batch_messages=1), WindowSettings())
    for path in sorted((EXAMPLES / "discord-export").glob("*.json")):
        await import_export(path, store, ingestor, consent, WindowSettings())
    assert not llm.missing
