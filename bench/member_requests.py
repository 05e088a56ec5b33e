"""A member's requests at scale, on the embedded engine: `/memory export` (gathering and paging) and a
moderator's forget in one guild (graph/guild_forget.py, with its guild residue audit).

python -m bench.member_requests --scale 1    # 100 users, 1,000 entities, 10,000 facts (bench.scale's guild)
"""

from __future__ import annotations

import argparse
import asyncio
import time
from collections.abc import Sequence

from bench.common import TempArcadeDB, console, cpu_counters, machine_note, quiet_logs, reference_ms
from bench.scale_guild import GUILD, generate, load
from bot.memory._export import PAGE_BYTES, pages
from graph.export import export_member
from graph.guild_forget import forget_in_guild, guild_residue


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
            data = await export_member(store.runner, user_id)
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
        small = pages(await export_member(store.runner, busiest) or {}, 16 * 1024)
        rows.append(("export paged at 16 KiB", f"{len(small)} files, largest {max(map(len, small)):,} bytes"))
        started = time.perf_counter()
        report = await forget_in_guild(store, other, GUILD)
        took = time.perf_counter() - started
        left = await guild_residue(store.runner, other, GUILD, [])
        rows.append(
            (
                "moderator forget in the guild",
                f"{took:.2f} s (engine files {report.files_seconds:.2f} s), deleted {report.deleted}, "
                f"redacted {report.redacted}, residue {len(report.residue)}, audit again {len(left)}",
            )
        )
        await db.close_drivers()
    return rows


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.member_requests", description=__doc__.splitlines()[0])
    parser.add_argument("--scale", type=float, default=1.0, help="1 = 100 users, 1,000 entities, 10,000 facts")
    args = parser.parse_args(argv)
    quiet_logs()
    counters = cpu_counters()
    out = console()
    out.print(f"reference work before the run: {reference_ms():.0f} ms")
    for what, figure in asyncio.run(run(args.scale)):
        out.print(f"{what}: {figure}")
    out.print(machine_note(counters))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
