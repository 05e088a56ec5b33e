"""Replay recorded messages through a WindowBuffer with simulated time, as the live bot would.

Used by the history importer and the benchmarks: before a message stamped t is added, everything
due at t closes; at the end each remaining window closes when its own deadline passes (reason
"quiet" or "max_age", never "shutdown"). A message older than one already seen (out of order
across channels) arrives "now", at the latest time seen, and is slotted into its window in order.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from datetime import datetime

from common.settings import WindowSettings
from ingest.windows import ClosedWindow, WindowBuffer, WindowMessage


def replay(
    messages: Iterable[WindowMessage], settings: WindowSettings, *, until: datetime | None = None
) -> Iterator[ClosedWindow]:
    """Closed windows in the order the live bot would close them. With `until`, only the windows due by
    then close: the rest would still be open at that time, and stay out."""
    buffer = WindowBuffer(settings)
    now: datetime | None = None
    for wm in messages:
        created = wm.message.created_at
        now = created if now is None or created > now else now
        yield from buffer.due(now)
        yield from buffer.add(wm, now)
    while (deadline := buffer.next_deadline()) is not None and (until is None or deadline <= until):
        yield from buffer.due(deadline)
