"""`memory status`: recent activity read through range indexes, retention settings, unfinished forgets."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from bot.memory._status import status
from bot.services import Services
from common.clock import now_utc
from graph.models import EpisodeStatus, Message
from graph.privacy.requests import Request, Requests
from graph.privacy.user_cap import enforce_user_cap
from graph.reads.backlog import episodes_by_status
from graph.store import GraphStore
from graph.writes.messages import record_messages
from ingest.ingestor import Ingestor
from tests.support.busy_server import G1, G2, GENERAL, OTHER, PEOPLE, THREAD, populate


async def test_status_shows_this_weeks_activity_retention_and_unfinished_forgets(store: GraphStore, services: Services) -> None:
    await populate(store)  # its messages were written in 2024: none in the last 7 days
    now = now_utc()
    fresh = [
        Message(id=f"900{i}", guild_id=G1, channel_id=GENERAL if i < 3 else THREAD, author_id=PEOPLE["bob"],
                content=f"hi {i}", created_at=now - timedelta(days=1, minutes=i))
        for i in range(4)
    ] + [
        Message(id="9100", guild_id=G1, channel_id=GENERAL, author_id=PEOPLE["bob"], content="old",
                created_at=now - timedelta(days=8)),
        Message(id="9200", guild_id=G2, channel_id=OTHER, author_id=PEOPLE["bob"], content="else",
                created_at=now - timedelta(hours=1)),
    ]  # fmt: skip
    assert await record_messages(store, fresh) == []
    services.settings.memory.retain_messages_days, services.settings.memory.retain_closed_facts_days = 90, 30
    kept = Requests(services.settings.graph.data_dir)
    kept.record(Request(PEOPLE["eve"], G1, ("eve",)))
    kept.record(Request(PEOPLE["dave"], G2, ("dave",)))  # another server's
    kept.record(Request(PEOPLE["ivan"], None, ("ivan",)))  # his own, everywhere

    text = await status(services, G1)
    assert "This server, last 7 days: 4 messages in 2 channels, 28 facts learned, 0 closed." in text
    assert "Retention: messages kept 90 days, closed facts kept 30 days" in text
    assert "Forget requests: 2 not finished yet; upkeep runs them again every 24 h" in text
    assert PEOPLE["eve"] not in text and PEOPLE["ivan"] not in text  # how many, never who

    kept.done(Request(PEOPLE["eve"], G1, ()))
    kept.done(Request(PEOPLE["ivan"], None, ()))
    assert "Forget requests: none unfinished." in await status(services, G1)
    retired = await enforce_user_cap(store, 1)
    assert f"{retired} closed." in await status(services, G1)


async def test_status_shows_how_long_this_servers_conversations_wait_for_extraction(
    store: GraphStore, services: Services
) -> None:
    """A quiet server's batch waits longer, with its pace, within the configured bounds."""
    settings = services.settings.extraction
    services.ingestor = Ingestor(store, None, settings, services.settings.window)
    busy = await populate(store)
    before = len(await episodes_by_status(store, [EpisodeStatus.PENDING], guild_id=G1))
    assert "or at most 2.0 h for this server now (its pace sets it, between 2.0 h and 12.0 h)" in await status(services, G1)
    t0 = datetime(2026, 3, 2, 9, 0, tzinfo=UTC)
    for window in range(8):  # 4 messages every half hour: 32 messages in 3 h 33 min
        said = [
            await busy.say(GENERAL, "bob", f"quiet talk {window}.{i}", t0 + timedelta(minutes=30 * window + i)) for i in range(4)
        ]
        await busy.episode(GENERAL, said)
    assert len(await episodes_by_status(store, [EpisodeStatus.PENDING], guild_id=G1)) == before + 8
    text = await status(services, G1)
    assert "until they hold 30 messages, or at most 7.1 h for this server now" in text, text
