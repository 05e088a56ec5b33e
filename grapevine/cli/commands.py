"""The `grapevine` command: the bot, the embedded engine, importing and extracting history."""

from __future__ import annotations

import contextlib
import signal
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from grapevine.cli.base import (
    app,
    err,
    out,
    run_or_exit,
    settings_or_exit,
    table,
    with_store,
)
from grapevine.cli.names import Asked, checked, resolve

if TYPE_CHECKING:
    import asyncio

    from grapevine.cli.watch import ExtractionWatch


@app.command()
def run() -> None:
    """Run the Discord bot (needs DISCORD_TOKEN and LLM_BASE_URL)."""
    settings = settings_or_exit(quiet=False)
    from grapevine.bot_runner import check_bot_config, run_bot

    missing = check_bot_config(settings)
    if missing:
        err.print("[red]cannot start the bot:[/red] " + "; ".join(missing), soft_wrap=True)
        raise typer.Exit(2)
    run_or_exit(run_bot(settings))


async def _serve(rt: Any, data_dir: Path, idle_minutes: float | None) -> None:
    """Serve until SIGTERM (`serve-db --stop`), the idle time, or the engine child's death: a dead engine lets go of
    the data directory at once (an error: the command exits 1, its lock released)."""
    import asyncio

    stopping = asyncio.Event()
    asyncio.get_running_loop().add_signal_handler(signal.SIGTERM, stopping.set)  # `serve-db --stop`
    died = asyncio.create_task(rt.engine_ended())  # a dead engine lets go of the data directory at once
    died.add_done_callback(lambda _: stopping.set())
    try:
        await _serve_until(stopping, data_dir, idle_minutes)
    finally:
        died.cancel()
    if died.done() and not died.cancelled():
        raise RuntimeError(
            f"the engine exited (code {died.result()}), so nothing serves {data_dir} now: the next command starts it "
            f"again (its log: {data_dir / 'arcadedb' / 'server.out'})"
        )


async def _serve_until(stopping: asyncio.Event, data_dir: Path, idle_minutes: float | None) -> None:
    import asyncio

    from grapevine.ownership import IdleWatch

    if not idle_minutes:
        await stopping.wait()
        return
    watch = IdleWatch(data_dir, idle_minutes * 60)
    try:
        while not stopping.is_set() and not watch.idle():
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(stopping.wait(), timeout=min(10.0, idle_minutes * 15))
        out.print(f"stopping: no command used the engine for {idle_minutes:g} minutes" if not stopping.is_set() else "stopping")
    finally:
        watch.close()


@app.command("serve-db")
def serve_db(
    stop: Annotated[bool, typer.Option("--stop", help="stop the engine that serves the data directory, then exit")] = False,
    idle_minutes: Annotated[
        float | None, typer.Option(help="stop once no command has used it for this long (how commands leave it running)")
    ] = None,
) -> None:
    """Run only the embedded ArcadeDB engine (Bolt on ARCADEDB_BOLT_PORT) until Ctrl-C; other grapevine
    commands on the same data directory join it. `--stop` stops the one serving now (one a command left
    running in the background too)."""
    if not stop:
        from grapevine.runtime import drop_secrets

        drop_secrets()  # it serves for days: no token or key it never uses stays readable in its environment
    settings = settings_or_exit()
    from grapevine.ownership import DataDirBusy, DataDirLock, busy_message, stop_owner

    data_dir = settings.graph.data_dir
    if stop:  # it only signals the process serving the data directory: no driver, no engine
        owner = DataDirLock(data_dir).owner()
        if owner is None:
            out.print(f"no engine serves {data_dir}")
            return
        if not owner.shared:
            err.print(f"{busy_message(data_dir, owner)}; its engine stops when it ends", soft_wrap=True)
            raise typer.Exit(1)
        if not stop_owner(owner):
            err.print(f"`{owner.command}` (pid {owner.pid}) did not stop within a minute", soft_wrap=True)
            raise typer.Exit(1)
        out.print(f"stopped `{owner.command}` (pid {owner.pid}), the engine of {data_dir}", highlight=False)
        return
    from grapevine.runtime import BACKGROUND, open_store

    async def serve(rt: Any) -> None:
        engine = rt.engine
        out.print(
            f"ArcadeDB serving database [bold]{engine.database}[/bold] on {engine.uri} "
            f"(user root, password in {data_dir / 'arcadedb.password'} unless ARCADEDB_PASSWORD is set)"
        )
        await _serve(rt, data_dir, idle_minutes)

    async def work() -> None:
        command = BACKGROUND if idle_minutes else "grapevine serve-db"
        async with open_store(settings, shared=True, command=command) as rt:
            if not rt.started_server:
                raise DataDirBusy(busy_message(data_dir, DataDirLock(data_dir).owner()))
            await serve(rt)

    try:
        run_or_exit(work())
    except KeyboardInterrupt:
        out.print("stopping…")


@app.command()
def stats(
    recount: Annotated[
        bool,
        typer.Option(
            "--recount",
            help="count every guild's records again, beside the totals kept as the writes happen, and set the kept "
            "totals to the recount where they differ",
        ),
    ] = False,
) -> None:
    """Node and relationship counts per label and guild, each guild's kept totals, and what extraction cost
    (LLM_PRICE_* settings)."""
    settings = settings_or_exit()
    from graph.privacy.purge import purge_due
    from graph.reads.stats import graph_stats, kept_totals, llm_usage, recount_every_guild, windows_waiting
    from llm.cost import cost
    from llm.meter import UsageTotals

    priced = bool(settings.llm.price_prompt_per_mtok or settings.llm.price_completion_per_mtok)

    def _totals(row: dict[str, Any]) -> UsageTotals:
        return UsageTotals(prompt_tokens=int(row["prompt_tokens"]), completion_tokens=int(row["completion_tokens"]))

    async def work(rt: Any) -> None:
        data = await graph_stats(rt.store)
        out.print(table(data["nodes"], "nodes"))
        if recount:
            checked = await recount_every_guild(rt.store, repair=True)
            rows = [{"guild_id": c.guild_id, **c.counted, "kept before": "not kept" if c.kept is None else
                     ("same" if c.honest else ", ".join(f"{k} {v:,}" for k, v in c.kept.items())),
                     "repaired": c.repaired} for c in checked]  # fmt: skip
            out.print(table(rows, "each guild recounted (the kept totals set to the recount where they differed)"))
        else:
            out.print(
                table(await kept_totals(rt.store), "each guild's totals, kept as the writes happen (--recount checks them)")
            )
        out.print(table(data["relationships"], "relationships"))
        if data["buffered"]:
            out.print(table(data["buffered"], "messages in no window yet"))
        waiting = await windows_waiting(rt.store, settings.extraction.max_attempts)
        if waiting:
            out.print(table(waiting, "windows waiting for extraction"))
            out.print(
                "pending: not extracted yet (no LLM then, or parked while it was unreachable); failed: tried again by "
                "`grapevine ingest --pending`; failed_for_good: only with `--retry-failed`; why each failed: "
                "`grapevine query windows_by_status -p guild_id=<guild id>`",
                highlight=False,
                soft_wrap=True,
            )
        else:
            out.print("no window waits for extraction")
        usage = await llm_usage(rt.store)
        if usage:
            rows = [
                {**row, "tokens per window": round((row["prompt_tokens"] + row["completion_tokens"]) / max(row["windows"], 1))}
                | (
                    {
                        "cost": f"{cost(settings.llm, _totals(row)):.4f}",
                        "cost per window": f"{cost(settings.llm, _totals(row)) / max(row['windows'], 1):.5f}",
                    }
                    if priced
                    else {}
                )
                for row in usage
            ]
            out.print(table(rows, "LLM use by extraction (every attempt)"))
        from graph.privacy.retention import retention_text

        out.print(retention_text(settings.memory))
        due = await purge_due(rt.store)
        if due.since:
            out.print(f"{due.erasures} erasures since {due.since} wait for the purge of the engine's files (next upkeep)")

    run_or_exit(with_store(settings, work))


def said(result: Any) -> None:
    """What an import of one file did (ingest/history_import.py ImportResult)."""
    name = result.path.name
    if result.dm_owner_opted_out:
        out.print(f"{name}: the DM space of a member who opted out or was forgotten: nothing of it stored")
        return
    out.print(
        f"{name}: {result.messages:,} messages ({result.new_messages:,} new, "
        f"{result.messages - result.new_messages:,} already stored), {result.windows:,} windows {result.statuses} "
        f"({result.new_windows:,} new, {result.windows - result.new_windows:,} already stored), "
        f"{result.opted_out} from opted-out members left out"
        + (f", {result.names_hidden} stored with an opted-out member's name rewritten" if result.names_hidden else ""),
        soft_wrap=True,
    )
    if left := result.left_out():
        reasons = ", ".join(f"{n:,} {why}" for why, n in left.items())
        total = sum(left.values())
        out.print(f"{name}: {total:,} message{'' if total == 1 else 's'} not stored: {reasons}", soft_wrap=True)
    if result.vanished:
        out.print(
            f"{result.vanished} windows were removed by a forget while the import ran: nothing of them is left to "
            "extract, and the rest were extracted",
            soft_wrap=True,
        )


@app.command("import")
def import_(
    files: Annotated[list[Path], typer.Argument(help="DiscordChatExporter JSON exports", exists=True, dir_okay=False)],
) -> None:
    """Import DiscordChatExporter JSON exports; windows are formed as the live bot forms them."""
    settings = settings_or_exit()
    from grapevine.cli.progress import Progress
    from grapevine.cli.watch import watching
    from graph.privacy.guards.consent import Consent
    from ingest.export_format import ExportFormatError
    from ingest.history_import import import_export
    from ingest.ingestor import Ingestor
    from llm.client import build_llm

    async def work(rt: Any) -> int:
        llm = build_llm(settings.llm)
        if llm is None:
            out.print("[yellow]no LLM configured (LLM_BASE_URL): windows are stored as pending[/yellow]")
        consent = Consent(rt.store)
        await consent.load()
        ingestor = Ingestor(  # closed windows queue; each file's guild queue is extracted in batches
            rt.store,
            llm,
            settings.extraction,
            settings.window,
            hidden=lambda uid: not consent.allowed(uid),
            lock_dir=settings.graph.data_dir,  # another import or ingest of the same guild waits its turn
        )
        failures = 0
        left = {"failed": 0, "parked": 0, "pending": 0}
        for path in files:
            try:
                with (
                    watching(out, None, label=path.name) as seen,
                    Progress(out, path.name, every=settings.log.progress_seconds) as progress,
                ):
                    watches.append(seen)
                    result = await import_export(path, rt.store, ingestor, consent, settings.window, progress=progress)
                imported.append(path.name)
            except ExportFormatError as exc:
                err.print(f"[red]{exc}[/red] (nothing imported from this file)", soft_wrap=True)
                failures += 1
                continue
            said(result)
            for key in left:
                left[key] += getattr(result, key)
            for skipped in result.skipped:
                err.print(f"  skipped message #{skipped.index} (id {skipped.message_id}): {skipped.reason}", soft_wrap=True)
        if llm:
            await llm.aclose()
            totals = llm.meter.total()
            out.print(
                f"{totals.calls} LLM calls, {totals.prompt_tokens:,} prompt + {totals.completion_tokens:,} completion tokens"
            )
        reasons = {
            "failed": "failed (the LLM's answers were unusable): see `grapevine query windows_by_status -p guild_id=<guild id>` for the reasons",
            "parked": "were parked (LLM unreachable)",
            "pending": "were left pending",
        }
        for key, n in left.items():
            if n:
                err.print(f"{n} windows {reasons[key]}; `grapevine ingest --pending` extracts them", soft_wrap=True)
        return failures + sum(left.values())

    watches: list[ExtractionWatch] = []
    imported: list[str] = []
    try:
        lost = run_or_exit(with_store(settings, work))
    except KeyboardInterrupt:
        now = f"; in {watches[-1].label}: {watches[-1].summary()}" if len(watches) > len(imported) else ""
        err.print(
            f"import: stopped by Ctrl-C: {len(imported)} of {len(files)} files imported{now}; what was stored stays, "
            "and the same `grapevine import` again finishes it (nothing is added twice)",
            soft_wrap=True,
        )
        raise typer.Exit(130) from None
    if lost:
        raise typer.Exit(1)


@app.command()
def ingest(
    pending: Annotated[bool, typer.Option("--pending", help="process windows left pending or failed")] = False,
    guild: Annotated[str | None, typer.Option(help="only this guild (id or name)")] = None,
    retry_failed: Annotated[
        bool, typer.Option("--retry-failed", help="also windows failed for good (EXTRACTION_MAX_ATTEMPTS reached)")
    ] = False,
) -> None:
    """Extract windows left pending (no LLM at the time) or parked as failed. Exits 1 when a window failed
    or was parked because the LLM endpoint is down."""
    if not pending:
        raise typer.BadParameter("say what to ingest: --pending")
    asked = checked(Asked(guild=guild))
    settings = settings_or_exit()
    if not settings.llm.configured:  # before the engine starts: nothing can be extracted without one
        err.print(
            "[red]configuration error:[/red] LLM_BASE_URL is not set: pending windows need an LLM to be extracted "
            "(docs/llm-servers.md; `grapevine demo` shows the sample's facts without one)",
            soft_wrap=True,
        )
        raise typer.Exit(2)
    guild = resolve(settings, asked).guild
    from common.clock import now_utc
    from common.settings import ConfigError
    from grapevine.cli.watch import watching
    from graph.models import EpisodeStatus
    from graph.privacy.guards.consent import Consent
    from graph.reads.backlog import episodes_by_status
    from ingest.ingestor import Ingestor
    from ingest.rewindowing import window_buffered
    from llm.client import build_llm
    from llm.cost import cost_text

    watch: list[ExtractionWatch] = []

    async def work(rt: Any) -> int:
        llm = build_llm(settings.llm)
        if llm is None:
            raise ConfigError("LLM_BASE_URL is not set: pending windows need an LLM to be extracted")
        consent = Consent(rt.store)
        await consent.load()
        ingestor = Ingestor(
            rt.store,
            llm,
            settings.extraction,
            settings.window,
            hidden=lambda uid: not consent.allowed(uid),
            lock_dir=settings.graph.data_dir,
        )
        rewindowed = await window_buffered(rt.store, ingestor, consent, settings.window, now=now_utc(), guild_id=guild)
        if rewindowed.windows or rewindowed.still_open:
            out.print(
                f"{rewindowed.messages} messages in no window yet made {rewindowed.windows} windows"
                + (f"; {rewindowed.still_open} wait in windows still open" if rewindowed.still_open else "")
            )
        if rewindowed.refused:
            first, why = min(rewindowed.refused.items())
            err.print(
                f"{len(rewindowed.refused)} messages in no window can be in none (message {first}: {why}); "
                "they are left as stored, the others go on",
                highlight=False,
                soft_wrap=True,
            )
        waiting = await episodes_by_status(rt.store, [EpisodeStatus.PENDING, EpisodeStatus.FAILED], guild_id=guild, limit=10_000)
        total = sum(
            1
            for e in waiting
            if e.status == EpisodeStatus.PENDING or retry_failed or e.attempts < settings.extraction.max_attempts
        )
        out.print(f"ingest: {total:,} windows to extract with {settings.llm.model}", highlight=False)
        with watching(out, total) as seen:
            watch.append(seen)
            result = await ingestor.process_backlog(guild_id=guild, retry_failed=retry_failed)
        await llm.aclose()
        totals = llm.meter.total()
        out.print(
            f"done {result.done}, failed {result.failed}, skipped {result.skipped}, still pending {result.pending}, "
            f"parked {result.parked} (LLM unreachable); {totals.calls} calls, {totals.prompt_tokens:,} prompt + "
            f"{totals.completion_tokens:,} completion tokens{cost_text(settings.llm, totals)}"
        )
        return result.failed + result.parked

    try:
        lost = run_or_exit(with_store(settings, work))
    except KeyboardInterrupt:
        said = watch[0].summary() if watch else "before any window was extracted"
        err.print(f"ingest: stopped by Ctrl-C: {said}; the rest stay pending for the next `grapevine ingest --pending`")
        raise typer.Exit(130) from None
    if lost:
        err.print(
            "some windows failed or were parked: see `grapevine query windows_by_status -p guild_id=<guild id>` for the reasons",
            soft_wrap=True,
        )
        raise typer.Exit(1)
