"""Messages stored but in no window yet (an import that crashed, a bot stopped mid-conversation) become
the windows they would have made, so `ingest --pending` finds them without re-running the import."""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field
from datetime import datetime

from common.events import emit
from common.settings import WindowSettings
from graph.privacy.guards.consent import Consent
from graph.reads.backlog import buffered_messages
from graph.store import GraphStore
from ingest.export_format import EARLIEST, LATEST
from ingest.ingestor import Ingestor
from ingest.replay import replay
from ingest.windows import WindowMessage


@dataclass(frozen=True)
class Rewindowed:
    windows: int  # closed and stored as pending episodes
    messages: int  # the messages they hold
    still_open: int  # messages whose window would still be open at `now`: left buffered for the bot
    refused: dict[str, str] = field(default_factory=dict)  # message id -> why no window can hold it (left buffered)


def unwindowable(message: WindowMessage) -> str | None:
    """Why no window can hold the message (a time stored by an earlier version, 9999-12-31: the first gap added
    to it overflows), or None."""
    for at in (message.message.created_at, message.message.edited_at):
        if at is not None and not EARLIEST <= at <= LATEST:
            return f"{at.date()} is not a time Discord gives a message ({EARLIEST.year} to {LATEST.year})"
    return None


async def window_buffered(
    store: GraphStore, ingestor: Ingestor, consent: Consent, settings: WindowSettings, *, now: datetime,
    guild_id: str | None = None,
) -> Rewindowed:  # fmt: skip
    """Replay buffered messages as the live bot would have closed them; windows due by `now` are stored. Each
    guild is replayed on its own, and a message no window can hold is left buffered with its reason (`refused`),
    so that one never stops the others."""
    by_guild: dict[str, list[WindowMessage]] = defaultdict(list)
    refused: dict[str, str] = {}
    for m, u in await buffered_messages(store):
        if (guild_id is None or m.guild_id == guild_id) and consent.allowed(u.id):
            message = WindowMessage(m, u)
            if (why := unwindowable(message)) is not None:
                refused[m.id] = why
            else:
                by_guild[m.guild_id].append(message)
    windows = []
    for guild, buffered in sorted(by_guild.items()):
        try:
            closed = list(replay(buffered, settings, until=now))
        except (OverflowError, ValueError) as exc:  # a time this module does not know to refuse: that guild waits
            refused.update({m.message.id: f"{type(exc).__name__}: {exc}" for m in buffered})
            emit("ingest", "buffered_unwindowable", guild_id=guild, messages=len(buffered), error=str(exc))
            continue
        for window in closed:
            await ingestor.close(window)
        windows += closed
    held = sum(len(w.messages) for w in windows)
    waiting = (
        sum(len(b) for b in by_guild.values()) - held - sum(1 for g in by_guild.values() for m in g if m.message.id in refused)
    )
    if windows:
        emit("ingest", "buffered_rewindowed", windows=len(windows), messages=held, still_open=waiting)
    if refused:
        emit("ingest", "buffered_refused", messages=len(refused), ids=sorted(refused)[:20])
    return Rewindowed(windows=len(windows), messages=held, still_open=waiting, refused=refused)
