"""The per-member fact cap (MEMORY_MAX_FACTS_PER_USER), enforced by upkeep without reading the guild.

Only a new fact can push a member over the cap, so each pass reads the facts created since the previous
pass (one range of the fact_created_at index), and caps the members they are about, reading each one's
own facts through the User.id index. The previous pass's time and cap are kept in a GraphMeta node; the
first pass, and a pass with a lower cap than the last, read every fact once. Passes overlap by
OVERLAP, so a fact whose write was still open when the previous pass read is not missed."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from common.clock import now_utc
from graph.models import iso, utc
from graph.session import Tx, run
from graph.store import GraphStore

OVERLAP = timedelta(minutes=10)
EVERYTHING = datetime(1970, 1, 1, tzinfo=UTC)


async def since(tx: Tx, cap: int) -> datetime:
    """Where this pass starts reading new facts."""
    rows = await run(tx, "store/user_cap_read")
    if not rows or rows[0]["checked_at"] is None or int(rows[0]["cap"] or 0) > cap or int(rows[0]["cap"] or 0) <= 0:
        return EVERYTHING
    return datetime.fromisoformat(str(rows[0]["checked_at"])) - OVERLAP


async def enforce_user_cap(store: GraphStore, cap: int, now: datetime | None = None) -> int:
    """Retire what exceeds `cap` for the members given facts since the last pass (reading only those members);
    the facts retired."""
    now = utc(now or now_utc())

    async def work(tx: Tx) -> int:
        start = await since(tx, cap)
        until = max(now, datetime.now(UTC)) + OVERLAP  # a closed range: an open one may be read as a label scan
        members = await run(tx, "store/user_cap_members", since=start, until=until)
        retired = 0
        if members:
            rows = await run(tx, "store/enforce_user_cap", members=members, cap=cap, now=iso(now))
            retired = int(rows[0]["retired"]) if rows else 0  # ArcadeDB: no row when nothing was over the cap
        await run(tx, "store/user_cap_mark", checked_at=iso(now), cap=cap)
        return retired

    return await store.runner.write(work)
