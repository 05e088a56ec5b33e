"""A member's requests at scale, on the embedded engine: `/memory export` (gathering and paging) and a
moderator's forget in one guild (graph/privacy/audit.py, with its guild residue audit); with `--irc`, on real chat
instead: the shared IRC samples imported as two guilds with shared members (tests/support/irc_guilds.py), forget-me of
its busiest member (the one transaction, its statements, the thorough audit) and retention of its messages older
than 30 days (every sample is), each with its audit.

python -m bench.member_requests --scale 1    # 100 users, 1,000 entities, 10,000 facts (bench.scale's guild)
python -m bench.member_requests --irc        # the IRC replay, two guilds
"""

from __future__ import annotations

import argparse
import asyncio
import time
from collections.abc import Sequence
from typing import Any
from unittest.mock import patch

from bench.common import TempArcadeDB, console, cpu_counters, machine_note, quiet_logs, reference_ms
from bench.scale_guild import GUILD, generate, load
from bot.memory._export import PAGE_BYTES, pages
from graph import transactions
from graph.privacy.audit import residue_audit
from graph.privacy.export import export_member
from graph.privacy.forget import forget_user
from graph.privacy.guards.consent import opt_out
from graph.privacy.guards.name_scope import NameScope
from graph.privacy.retention import apply_retention


async def run(scale: float) -> list[tuple[str, str]]:
    g = generate(scale)
    rows: list[tuple[str, str]] = []
    with TempArcadeDB() as db:
        store = await db.store("requests")
        started = time.perf_counter()
        await load(store, g)
        rows.append(("loaded", f"{len(g.facts):,} facts, {len(g.messages):,} messages in {time.perf_counter() - started:.1f} s"))
        busiest, other = g.forget_id, g.users[1]["id"]
        for label, user_id in (("busiest member", busiest), ("another member", other)):
            started = time.perf_counter()
            data = await export_member(store, user_id)
            gathered = time.perf_counter() - started
            assert data is not None
            started = time.perf_counter()
            files = pages(data, PAGE_BYTES)
            paged = time.perf_counter() - started
            rows.append(
                (
                    f"export, {label}",
                    f"{len(data['facts'])} facts, {len(data['messages'])} messages, {len(data['facts_naming_them'])} "
                    f"naming them: gathered in {gathered:.2f} s, {len(files)} file(s) of {sum(map(len, files)):,} "
                    f"bytes encoded in {paged:.3f} s",
                )
            )
        small = pages(await export_member(store, busiest) or {}, 16 * 1024)
        rows.append(("export paged at 16 KiB", f"{len(small)} files, largest {max(map(len, small)):,} bytes"))
        started = time.perf_counter()
        report = await forget_user(store, other, GUILD)
        took = time.perf_counter() - started
        left = await residue_audit(store, report.scope or NameScope(other), GUILD)
        rows.append(
            (
                "moderator forget in the guild",
                f"{took:.2f} s (engine files {report.files_seconds:.2f} s), deleted {report.deleted}, "
                f"redacted {report.redacted}, residue {len(report.residue)}, audit again {len(left)}",
            )
        )
        await db.close_drivers()
    return rows


async def run_irc() -> list[tuple[str, str]]:
    import tempfile
    from datetime import UTC, datetime
    from pathlib import Path

    import graph.privacy.retention
    import graph.session
    import graph.writes.message_deletes
    from graph.privacy.forget import run_request, with_scope
    from graph.privacy.requests import Request
    from tests.support.irc_guilds import import_all, write_exports

    rows: list[tuple[str, str]] = []
    with TempArcadeDB() as db, tempfile.TemporaryDirectory() as folder:
        store = await db.store("irc")
        started = time.perf_counter()
        imported = await import_all(store, write_exports(Path(folder)))
        rows.append(
            (
                "imported",
                f"{imported.messages:,} messages, {imported.windows:,} windows, two guilds, in {time.perf_counter() - started:.1f} s",
            )
        )
        (busiest, nick), wrote = imported.authors.most_common(1)[0]
        started = time.perf_counter()
        request = await with_scope(store, Request(busiest, None))
        await opt_out(store, busiest)
        report = await run_request(store, request, purge=True)
        rows.append(
            (
                f"forget-me of the busiest member ({wrote} messages)",
                f"{time.perf_counter() - started:.2f} s in all: one transaction of {report.statements} statements in "
                f"{report.seconds:.2f} s, deleted {report.deleted}, redacted {report.redacted}; thorough audit "
                f"{report.audit_seconds:.2f} s: {'clean' if report.clean else f'NOT clean ({len(report.residue)})'}; "
                f"engine files purged in {report.files_seconds:.1f} s",
            )
        )
        statements = 0
        real = graph.session.run  # what graph.privacy.retention and graph.writes.message_deletes run their statements with

        async def counted(tx: Any, name: str, /, **params: Any) -> Any:
            nonlocal statements
            statements += 1
            return await real(tx, name, **params)

        with patch.object(graph.privacy.retention, "run", counted), patch.object(graph.writes.message_deletes, "run", counted):
            started = time.perf_counter()
            now = datetime.now(UTC)
            kept = await apply_retention(store, 30, 0, now)
            took = time.perf_counter() - started
        left = await transactions.read(store, _retention_left)
        rows.append(
            (
                "retention at 30 days",
                f"{took:.2f} s: {kept.messages:,} messages ({kept.replies:,} replies unlinked, {kept.episodes:,} "
                f"conversations emptied) in {kept.batches} transactions of {statements} statements; audit: "
                f"{'clean' if not left else f'NOT clean: {left}'}",
            )
        )
        await db.close_drivers()
    return rows


async def _retention_left(tx: Any) -> dict[str, int]:
    """What retention at 30 days must not leave: a message (every one is years old), a reply pointing at one gone."""
    found = await (await tx.run("MATCH (m:Message) RETURN count(m) AS messages")).single()
    dangling = await (await tx.run("MATCH (m:Message) WHERE m.reply_to_id IS NOT NULL RETURN count(m) AS n")).single()
    return {k: v for k, v in (("messages", found["messages"]), ("replies pointing", dangling["n"])) if v}


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.member_requests", description=__doc__.splitlines()[0])
    parser.add_argument("--scale", type=float, default=1.0, help="1 = 100 users, 1,000 entities, 10,000 facts")
    parser.add_argument("--irc", action="store_true", help="real chat instead: the IRC samples as two guilds")
    args = parser.parse_args(argv)
    quiet_logs()
    counters = cpu_counters()
    out = console()
    out.print(f"reference work before the run: {reference_ms():.0f} ms")
    for what, figure in asyncio.run(run_irc() if args.irc else run(args.scale)):
        out.print(f"{what}: {figure}")
    out.print(machine_note(counters))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
