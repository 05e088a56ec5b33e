"""Messages stored but in no window yet (an import that crashed, a bot stopped mid-conversation) become
the windows they would have made, so `ingest --pending` finds them without re-running the import."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from common.events import emit
from common.settings import WindowSettings
from graph.privacy.consent import Consent
from graph.reads.backlog import buffered_messages
from graph.store import GraphStore
from ingest.ingestor import Ingestor
from ingest.replay import replay
from ingest.windows import WindowMessage


@dataclass(frozen=True)
class Rewindowed:
    windows: int  # closed and stored as pending episodes
    messages: int  # the messages they hold
    still_open: int  # messages whose window would still be open at `now`: left buffered for the bot


async def window_buffered(
    store: GraphStore, ingestor: Ingestor, consent: Consent, settings: WindowSettings, *, now: datetime,
    guild_id: str | None = None,
) -> Rewindowed:  # fmt: skip
    """Replay buffered messages as the live bot would have closed them; windows due by `now` are stored."""
    buffered = [
        WindowMessage(m, u)
        for m, u in await buffered_messages(store)
        if (guild_id is None or m.guild_id == guild_id) and consent.allowed(u.id)
    ]
    windows = list(replay(buffered, settings, until=now))
    for window in windows:
        await ingestor.close(window)
    held = sum(len(w.messages) for w in windows)
    if windows:
        emit("ingest", "buffered_rewindowed", windows=len(windows), messages=held, still_open=len(buffered) - held)
    return Rewindowed(windows=len(windows), messages=held, still_open=len(buffered) - held)
