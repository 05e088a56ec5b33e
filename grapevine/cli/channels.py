"""`grapevine channels`: every channel of a guild with its visibility and memory mode; `--set ID --mode M` sets
one (an imported channel stays private until the live bot sees it or an operator sets it here)."""

from __future__ import annotations

from typing import Annotated, Any

import typer

from grapevine.cli.base import app, out, run_or_exit, settings_or_exit, table, with_store
from grapevine.cli.names import Asked, checked, resolve

MODES = ("off", "private", "shared")


@app.command()
def channels(
    guild: Annotated[str, typer.Option(help="guild id or name")],
    set_id: Annotated[str | None, typer.Option("--set", help="the channel whose memory mode to set (id or name)")] = None,
    mode: Annotated[str | None, typer.Option(help="off, private or shared (with --set)")] = None,
) -> None:
    """The channels of a guild with their memory modes; with --set and --mode, set one."""
    if (set_id is None) != (mode is None):
        raise typer.BadParameter("give --set and --mode together")
    if mode is not None and mode not in MODES:
        raise typer.BadParameter(f"--mode must be one of {', '.join(MODES)}")
    asked = checked(Asked(guild=guild, channel=set_id, channel_option="--set"))
    settings = settings_or_exit()
    asked = resolve(settings, asked)
    guild, set_id = str(asked.guild), asked.channel

    async def work(rt: Any) -> None:
        from graph.privacy import channels as graph_channels

        if set_id is not None and mode is not None:
            if not await graph_channels.set_mode(rt.store, guild, set_id, mode):  # type: ignore[arg-type]  # checked above
                raise LookupError(f"no channel {set_id} in guild {guild}")
            out.print(f"channel {set_id}: memory mode {mode}", highlight=False, markup=False)
        rows = [
            {
                "id": c.id,
                "name": c.name,
                "kind": c.kind,
                "visibility": c.visibility or "not seen live",
                "mode": c.mode + (" (set)" if c.mode_set else ""),
                "messages": c.messages,
            }
            for c in await graph_channels.modes(rt.store, guild)
        ]
        out.print(table(rows, f"{len(rows)} channels"))

    run_or_exit(with_store(settings, work))
