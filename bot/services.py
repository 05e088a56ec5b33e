"""The long-lived resources every feature of the bot shares, opened once in `run_bot`."""

from __future__ import annotations

from dataclasses import dataclass

from grapevine.context_builder import Embed
from grapevine.settings import Settings
from graph.store import GraphStore
from ingest.consent import Consent
from ingest.live import LiveWindows
from ingest.llm import StructuredLLM, UsageMeter
from ingest.pipeline import Ingestor


@dataclass
class Services:
    settings: Settings
    store: GraphStore
    llm: StructuredLLM | None
    meter: UsageMeter
    consent: Consent
    ingestor: Ingestor
    live: LiveWindows
    embed: Embed | None = None
