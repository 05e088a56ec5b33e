"""The long-lived resources every feature of the bot shares, opened once in `grapevine.bot_runner.run_bot`."""

from __future__ import annotations

from dataclasses import dataclass, field

from common.settings import Settings
from graph.privacy.guards.consent import Consent
from graph.store import GraphStore
from ingest.ingestor import Ingestor
from ingest.live import LiveWindows
from llm.client import StructuredLLM
from llm.meter import UsageMeter
from recall.gather import Embed


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
    channel_modes: dict[str, str] = field(default_factory=dict)  # channel id -> memory mode, as last read
