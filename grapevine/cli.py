"""The `grapevine` command: the bot, the embedded engine, and the operators' tools."""

from __future__ import annotations

import asyncio
import json
import os
from collections.abc import Awaitable, Callable
from datetime import datetime, timezone
from pathlib import Path
from typing import Annotated, Any, TypeVar

import typer
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
from rich.table import Table

from grapevine import events
from grapevine.settings import ConfigError, Settings, load_settings

app = typer.Typer(help="grapevine: long-term memory for Discord communities.", no_args_is_help=True,
                  pretty_exceptions_enable=False)
out = Console()
err = Console(stderr=True)
T = TypeVar("T")


def _settings(*, quiet: bool = True) -> Settings:
    """Read the configuration; operator commands log warnings only unless LOG_LEVEL is set."""
    try:
        settings = load_settings()
    except ConfigError as exc:
        err.print(f"[red]configuration error:[/red] {exc}")
        raise typer.Exit(2) from None
    level = "WARNING" if quiet and "LOG_LEVEL" not in os.environ else settings.log.level
    events.configure(level, log_content=settings.log.content, file=settings.log.file)
    return settings


def _run(coro: Awaitable[T]) -> T:
    try:
        return asyncio.run(coro)  # type: ignore[arg-type]
    except (ConfigError, ValueError, LookupError, RuntimeError, OSError) as exc:
        err.print(f"[red]error:[/red] {exc}")
        raise typer.Exit(1) from None


def _table(rows: list[dict[str, Any]], title: str | None = None) -> Table:
    table = Table(title=title, show_lines=False)
    columns = list(rows[0]) if rows else []
    for col in columns:
        table.add_column(col, overflow="fold")
    for row in rows:
        table.add_row(*(_cell(row.get(c)) for c in columns))
    return table


def _cell(value: Any) -> str:
    if value is None:
        return ""
    if isinstance(value, datetime):
        return value.isoformat(timespec="minutes")
    if isinstance(value, (list, tuple, dict)):
        return json.dumps(value, default=str, ensure_ascii=False)
    return str(value)


def _date(value: str | None) -> datetime | None:
    if value is None:
        return None
    try:
        parsed = datetime.fromisoformat(value.replace("Z", "+00:00"))
    except ValueError:
        raise typer.BadParameter(f"not an ISO date or datetime: {value!r} (e.g. 2024-05-03 or 2024-05-03T18:00Z)") from None
    return parsed if parsed.tzinfo else parsed.replace(tzinfo=timezone.utc)


@app.command()
def run() -> None:
    """Run the Discord bot (needs DISCORD_TOKEN and LLM_BASE_URL)."""
    settings = _settings(quiet=False)
    from bot.app import check_bot_config, run_bot

    missing = check_bot_config(settings)
    if missing:
        err.print("[red]cannot start the bot:[/red] " + "; ".join(missing))
        raise typer.Exit(2)
    _run(run_bot(settings))


@app.command("serve-db")
def serve_db() -> None:
    """Run only the embedded ArcadeDB engine (Bolt on ARCADEDB_BOLT_PORT) until Ctrl-C."""
    settings = _settings()
    from grapevine.runtime import arcadedb_server

    server = arcadedb_server(settings)
    engine = server.start()
    out.print(f"ArcadeDB serving database [bold]{engine.database}[/bold] on {engine.uri} "
              f"(user root, password in {settings.graph.data_dir / 'arcadedb.password'} unless ARCADEDB_PASSWORD is set)")
    try:
        server.wait()
    except KeyboardInterrupt:
        out.print("stopping…")
    finally:
        server.stop()


async def _with_store(settings: Settings, work: Callable[[Any], Awaitable[T]]) -> T:
    from grapevine.runtime import open_store

    async with open_store(settings) as rt:
        return await work(rt)


@app.command()
def stats() -> None:
    """Node and relationship counts per label and guild."""
    settings = _settings()

    async def work(rt: Any) -> None:
        data = await rt.store.stats()
        out.print(_table(data["nodes"], "nodes"))
        out.print(_table(data["relationships"], "relationships"))

    _run(_with_store(settings, work))


@app.command("import")
def import_(files: Annotated[list[Path], typer.Argument(help="DiscordChatExporter JSON exports", exists=True, dir_okay=False)]) -> None:
    """Import DiscordChatExporter JSON exports; windows are formed as the live bot forms them."""
    settings = _settings()
    from ingest.consent import Consent
    from ingest.export_format import ExportFormatError
    from ingest.history_import import import_export
    from ingest.llm import build_llm
    from ingest.pipeline import Ingestor

    async def work(rt: Any) -> int:
        llm = build_llm(settings.llm)
        if llm is None:
            out.print("[yellow]no LLM configured (LLM_BASE_URL): windows are stored as pending[/yellow]")
        consent = Consent(rt.store)
        await consent.load()
        ingestor = Ingestor(rt.store, llm, settings.extraction, settings.window,
                            hidden=lambda uid: not consent.allowed(uid))
        failures = 0
        for path in files:
            with Progress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(),
                          TextColumn("{task.fields[rate]}"), TimeElapsedColumn(), console=out) as progress:
                msgs = progress.add_task(f"{path.name}: messages", total=None, rate="")
                wins = progress.add_task(f"{path.name}: windows", total=None, rate="")
                started = datetime.now(timezone.utc)

                def rate(n: float) -> str:
                    seconds = max((datetime.now(timezone.utc) - started).total_seconds(), 1e-6)
                    return f"{n / seconds:.1f}/s"

                def on_messages(n: int) -> None:
                    progress.advance(msgs, n)
                    progress.update(msgs, rate=rate(progress.tasks[msgs].completed))

                def on_window(_: str) -> None:
                    progress.advance(wins, 1)
                    progress.update(wins, rate=rate(progress.tasks[wins].completed))

                try:
                    result = await import_export(path, rt.store, ingestor, consent, settings.window,
                                                 on_messages=on_messages, on_window=on_window)
                except ExportFormatError as exc:
                    err.print(f"[red]{exc}[/red] (nothing imported from this file)")
                    failures += 1
                    continue
            out.print(f"{path.name}: {result.messages} messages, {result.windows} windows {result.statuses}, "
                      f"{result.opted_out} from opted-out members left out")
            for skipped in result.skipped:
                err.print(f"  skipped message #{skipped.index} (id {skipped.message_id}): {skipped.reason}")
        if llm:
            await llm.aclose()
        return failures

    if _run(_with_store(settings, work)):
        raise typer.Exit(1)


@app.command()
def ingest(pending: Annotated[bool, typer.Option("--pending", help="process windows left pending or failed")] = False,
           guild: Annotated[str | None, typer.Option(help="only this guild")] = None) -> None:
    """Extract windows left pending (no LLM at the time) or parked as failed."""
    if not pending:
        raise typer.BadParameter("say what to ingest: --pending")
    settings = _settings()
    from ingest.consent import Consent
    from ingest.llm import build_llm
    from ingest.pipeline import Ingestor

    async def work(rt: Any) -> None:
        llm = build_llm(settings.llm)
        if llm is None:
            raise ConfigError("LLM_BASE_URL is not set: pending windows need an LLM to be extracted")
        consent = Consent(rt.store)
        await consent.load()
        ingestor = Ingestor(rt.store, llm, settings.extraction, settings.window,
                            hidden=lambda uid: not consent.allowed(uid))
        with Progress(TextColumn("windows"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(), console=out) as progress:
            task = progress.add_task("windows", total=None)
            result = await ingestor.process_backlog(guild_id=guild, progress=lambda _: progress.advance(task, 1))
        await llm.aclose()
        out.print(f"done {result.done}, failed {result.failed}, skipped {result.skipped}, still pending {result.pending}")

    _run(_with_store(settings, work))


from grapevine import cli_operator  # noqa: E402  (registers the operator commands on `app`)
from grapevine.explore.command import explore  # noqa: E402  (the explorer: grapevine/explore/)

app.command()(explore)

__all__ = ["app", "cli_operator"]

