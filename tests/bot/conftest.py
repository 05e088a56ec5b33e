"""The bot on a real graph (ArcadeDB) and the scripted LLM server under the real openai client; Discord
is the only thing doubled (tests/bot/helpers.py)."""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import pytest

from bot.listening import Listening
from bot.memory import Memory
from bot.replying import Replying
from bot.services import Services
from common.settings import GraphSettings, LLMSettings, Settings, WindowSettings
from graph.privacy.guards.consent import Consent
from graph.store import GraphStore
from ingest.ingestor import Ingestor
from ingest.live import LiveWindows
from llm.client import OpenAILLM
from llm.meter import UsageMeter
from tests.bot.harness import Harness
from tests.support.busy_server import BOT, G1, GENERAL
from tests.support.discord_doubles import (
    MockBot,
    MockClientUser,
    MockGuild,
    MockMember,
    MockTextChannel,
)
from tests.support.scripted_llm import ScriptedLLMServer


@pytest.fixture
def llm_server() -> Iterator[ScriptedLLMServer]:
    with ScriptedLLMServer() as server:
        yield server


@pytest.fixture
async def services(store: GraphStore, llm_server: ScriptedLLMServer, tmp_path: Path) -> AsyncIterator[Services]:
    llm_settings = LLMSettings(
        base_url=llm_server.base_url,
        api_key="test",
        model="extract-model",
        reply_model="reply-model",
        timeout=5.0,
        max_attempts=1,
    )
    settings = Settings(llm=llm_settings, graph=GraphSettings(data_dir=tmp_path))  # deletes kept during an outage go there
    meter = UsageMeter()
    llm = OpenAILLM(llm_settings, meter, min_wait=0.001, max_wait=0.01)
    consent = Consent(store)
    await consent.load()
    ingestor = Ingestor(store, None, settings.extraction, settings.window)  # windows stay pending: no extraction calls
    live = LiveWindows(store, ingestor, consent, WindowSettings())
    yield Services(settings=settings, store=store, llm=llm, meter=meter, consent=consent, ingestor=ingestor, live=live)
    await live.stop()
    await llm.aclose()


@pytest.fixture
async def harness(services: Services) -> Harness:
    me = MockClientUser(id=int(BOT), name="grapevine", display_name="grapevine")
    bot = MockBot(services=services, user=me)
    memory = Memory(bot)
    await memory.cog_load()
    guild = MockGuild(id=int(G1), name="Book Club")
    guild.me = MockMember(id=me.id, name="grapevine", bot=True, guild=guild)
    general = MockTextChannel(id=int(GENERAL), name="general", guild=guild)
    return Harness(bot, Listening(bot), memory, Replying(bot), guild, general)
