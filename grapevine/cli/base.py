"""What every `grapevine` command shares: the typer app, the consoles, reading the settings, running a
coroutine with one-line errors, tables, and opening the store for one command's run.

Every command starts by importing the CLI, so a library only some commands use (the graph driver and numpy with
it, the settings' validation) is imported by the function that uses it, here and in each command's module."""

from __future__ import annotations

import json
import os
import re
from collections.abc import Awaitable, Callable, Coroutine
from datetime import datetime
from typing import TYPE_CHECKING, Any, TypeVar

import typer
from rich.console import Console
from rich.markup import escape

from common import bounds, events
from common.files import private_umask, touch_private
from common.urls import mask_credentials
from grapevine.cli.usage import OneLineErrors

if TYPE_CHECKING:
    from rich.table import Table

    from common.settings import Settings

app = typer.Typer(
    cls=OneLineErrors,
    rich_markup_mode="markdown",
    help="grapevine: long-term memory for Discord communities.",
    no_args_is_help=True,
    pretty_exceptions_enable=False,
)
out = Console()
err = Console(stderr=True)
T = TypeVar("T")
_LOADED: list[Settings] = []  # the settings this command read, for the hints of its error lines


@app.callback()
def _private_files() -> None:
    """Whatever a command creates (the data directory, its logs, the engine's files) is its user's alone."""
    private_umask()


def settings_or_exit(*, quiet: bool = True) -> Settings:
    """Read the configuration. Operator commands (`quiet`) log warnings only unless LOG_LEVEL is set, to
    LOG_FILE or else `<data dir>/logs/grapevine.log`, so stderr carries only what happened, in one line."""
    from common.settings import ConfigError
    from grapevine.config import load_settings

    try:
        settings = load_settings()
    except ConfigError as exc:
        err.print(f"[red]configuration error:[/red] {exc}", soft_wrap=True)
        raise typer.Exit(2) from None
    _LOADED.append(settings)
    level = "WARNING" if quiet and not _log_level_set() else settings.log.level
    file = settings.log.file
    if quiet and file is None:  # a one-shot command's terminal gets its outcome; its events go to the data dir
        file = settings.graph.data_dir / "logs" / "grapevine.log"
    if file is not None:
        touch_private(file)
    events.configure(level, log_content=settings.log.content, file=file)
    return settings


def invoked_as() -> str:
    """How the user ran grapevine, for the commands a hint suggests: `grapevine` when that is what PATH finds,
    else the script as typed (`.venv/bin/grapevine`), or `python -m grapevine`."""
    import shutil
    import sys
    from pathlib import Path

    script = Path(sys.argv[0]) if sys.argv and sys.argv[0] else Path("grapevine")
    if script.name == "__main__.py":
        return "python -m grapevine"
    found = shutil.which("grapevine")
    if found and Path(found).absolute() == script.absolute():
        return "grapevine"
    if script.is_absolute() and script.is_relative_to(Path.cwd()):
        return str(script.relative_to(Path.cwd()))
    return str(script)


def _log_level_set() -> bool:
    """Whether LOG_LEVEL was given, in the environment or in the `.env` the settings were read from."""
    from dotenv import dotenv_values

    return "LOG_LEVEL" in os.environ or bool(dotenv_values(".env").get("LOG_LEVEL"))


def run_or_exit(coro: Coroutine[Any, Any, T], failed: str | None = None) -> T:
    """Run a command's work; a fault a user can cause (configuration, input, the engine, the LLM) is one
    line on stderr and exit code 1, never a traceback. `failed` says what did not happen and what comes next."""
    import asyncio

    from neo4j.exceptions import DriverError, Neo4jError

    from common.settings import ConfigError

    try:
        return asyncio.run(coro)
    except (Neo4jError, DriverError) as exc:
        what = f"{failed} (graph engine error: {_one_line(exc)})" if failed else f"graph engine error: {_one_line(exc)}"
        err.print(f"[red]{what}[/red]{'' if failed else _engine_hint()}", highlight=False, soft_wrap=True)
        raise typer.Exit(1) from None
    except (ConfigError, ValueError, LookupError, RuntimeError, OSError, OverflowError) as exc:
        err.print(f"[red]{failed or 'error'}:[/red] {_one_line(exc)}", highlight=False, soft_wrap=True)
        raise typer.Exit(1) from None


_STATEMENT = "Error executing Cypher command:"  # ArcadeDB quotes the whole statement after this


def _one_line(exc: BaseException) -> str:
    text = str(getattr(exc, "message", None) or str(exc) or type(exc).__name__)
    if _STATEMENT in text:  # the statement is the project's, not what went wrong: its code says that
        text = f"{text.split(_STATEMENT)[0]}{getattr(exc, 'code', None) or type(exc).__name__}"
    return mask_credentials(" ".join(text.split()))[:500]


def _engine_hint() -> str:
    settings = _LOADED[-1] if _LOADED else None
    if settings is None:
        return ""
    if settings.graph.engine == "neo4j":
        return f" (Neo4j at {mask_credentials(settings.neo4j.uri)}: is it running, and are NEO4J_USER/NEO4J_PASSWORD right?)"
    folder = settings.graph.data_dir / "arcadedb"
    return f" (the embedded engine's log: {folder / 'server.out'} and {folder / 'log'})"


MIN_COLUMN = 14  # characters: narrower than this, a table is printed one record at a time
_UNBROKEN = re.compile(r"[0-9]{15,}|https?://|^[0-9a-f]{32}$")  # an id, a link, a uuid: never wrapped mid-way


def print_rows(rows: list[dict[str, Any]], title: str, as_json: bool) -> None:
    """JSON lines; or a table whose ids and links are never wrapped mid-way; or, when the terminal (or the
    width a pipe is given) is too narrow for that, one record at a time, each value on one line; or one line
    saying there is nothing."""
    if as_json:
        for row in rows:
            print(json.dumps(row, default=str, ensure_ascii=False))
    elif not rows:
        out.print(f"{title}: nothing found")
    else:
        if out.width // len(rows[0]) >= MIN_COLUMN and _fits(rows, out.width):
            out.print(table(rows, title))
            return
        out.print(f"[bold]{title}[/bold]")
        width = max(len(key) for key in rows[0])
        for number, row in enumerate(rows, 1):
            out.rule(f"{number}", align="left")
            for key, value in row.items():
                out.print(f"{key:<{width}}  {cell(value)}", highlight=False, markup=False, soft_wrap=True)


def _unbroken_width(rows: list[dict[str, Any]], column: str) -> int | None:
    """How wide a column of ids or links must be to keep each whole; None for a column that may fold."""
    values = [cell(row.get(column)) for row in rows]
    return max(len(v) for v in [column, *values]) if any(_UNBROKEN.search(v) for v in values) else None


def _fits(rows: list[dict[str, Any]], width: int) -> bool:
    """Whether a table of `rows` keeps its ids and links whole within `width`, the other columns folded to
    MIN_COLUMN at the least (each column takes 3 characters of borders and padding, the table one more)."""
    columns = list(rows[0])
    needed = sum(_unbroken_width(rows, c) or MIN_COLUMN for c in columns)
    return needed + 3 * len(columns) + 1 <= width


def table(rows: list[dict[str, Any]], title: str | None = None) -> Table:
    """Rows as a rich table: a column holding ids or links keeps each on one line (the others fold)."""
    from rich.table import Table

    table = Table(title=title, show_lines=False)
    columns = list(rows[0]) if rows else []
    for col in columns:
        whole = _unbroken_width(rows, col)
        if whole is None:
            table.add_column(col, overflow="fold")
        else:
            table.add_column(col, no_wrap=True, min_width=whole)
    for row in rows:
        table.add_row(*(cell(row.get(c)) for c in columns))
    return table


def cell(value: Any) -> str:
    if value is None:
        return ""
    if isinstance(value, datetime):
        return value.isoformat(timespec="minutes")
    if isinstance(value, (list, tuple, dict)):
        return json.dumps(value, default=str, ensure_ascii=False)
    return str(value)


def strict(parse: Callable[[str, str], T], value: str, option: str) -> T:
    """A command-line value read by `parse` (common.ids, common.bounds); when it is wrong, the reason in one line
    on stderr and exit code 2, as for any other bad argument."""
    try:
        return parse(value, option)
    except ValueError as exc:
        err.print(f"[red]error:[/red] {escape(str(exc))}", highlight=False, soft_wrap=True)
        raise typer.Exit(2) from None


def optional(parse: Callable[[str, str], T], value: str | None, option: str) -> T | None:
    return None if value is None else strict(parse, value, option)


def parse_date(value: str | None, option: str = "--at") -> datetime | None:
    return optional(bounds.instant, value, option)


def say_if_starting(settings: Settings) -> None:
    """A line on stderr, when it is a terminal, as soon as a command is about to start the embedded engine (20-40 s
    of nothing otherwise), or to wait for the one another command is starting; nothing when it serves already. A
    script reading stderr gets only the command's outcome there."""
    if settings.graph.engine != "arcadedb" or settings.arcadedb.external or not err.is_terminal:
        return
    from grapevine.ownership import DataDirLock, process_alive

    owner = DataDirLock(settings.graph.data_dir).owner()
    if owner is not None and process_alive(owner.pid):
        if not owner.ready:
            err.print(f"waiting for the embedded engine, which `{owner.command}` is starting…", highlight=False)
        return
    minutes = settings.warm.idle_minutes
    then = f"; it then serves the next commands until it has been idle {minutes:g} minutes" if minutes > 0 else ""
    err.print(f"starting the embedded engine (20-40 s){then}…", highlight=False, soft_wrap=True)


async def with_store(settings: Settings, work: Callable[[Any], Awaitable[T]]) -> T:
    from grapevine.runtime import open_store

    say_if_starting(settings)
    async with open_store(settings) as rt:
        return await work(rt)
