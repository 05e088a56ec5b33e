"""Operator commands for what the memory keeps: retention (MEMORY_RETAIN_* settings)."""

from __future__ import annotations

from typing import Annotated, Any

import typer

from grapevine.cli.base import app, out, run_or_exit, settings_or_exit, with_store


@app.command()
def retention(
    apply: Annotated[bool, typer.Option("--apply", help="remove what the settings no longer keep, then purge")] = False,
    no_purge: Annotated[
        bool, typer.Option("--no-purge", help="leave the engine's index files to the bot's next upkeep pass")
    ] = False,
) -> None:
    """The retention settings; with --apply, remove older messages and closed facts as upkeep does, and purge
    the engine's files of them (and of any erasure waiting for it) at once."""
    settings = settings_or_exit()
    memory = settings.memory
    from graph.privacy.purge import purge_if_due
    from graph.privacy.retention import apply_retention, retention_text

    out.print(retention_text(memory))
    if not apply:
        out.print("nothing removed: `grapevine retention --apply` removes what these settings no longer keep")
        return

    async def work(rt: Any) -> Any:
        kept = await apply_retention(rt.store, memory.retain_messages_days, memory.retain_closed_facts_days)
        purged = None if no_purge else await purge_if_due(rt.store)
        return kept, purged

    kept, purged = run_or_exit(with_store(settings, work))
    out.print(
        f"removed {kept.messages} messages ({kept.episodes} conversations left empty, {kept.replies} replies unlinked), "
        f"{kept.facts} closed facts and {kept.entities} entities left with no facts, in {kept.batches} transactions"
    )
    if purged is None:
        out.print("engine files: the bot's next upkeep pass purges them")
    elif purged.since is None:
        out.print("engine files: no erasure waited for a purge")
    elif purged.failed:
        out.print(f"[red]engine files: these were not purged: {', '.join(sorted(purged.failed))}[/red]")
        raise typer.Exit(1)
    else:
        out.print(f"engine files purged in {purged.seconds:.1f} s ({purged.erasures} erasures since {purged.since})")
