"""`grapevine explore`: the command-line face of the explorer (registered on the CLI's app)."""

from __future__ import annotations

from typing import Annotated

import typer

DEFAULT_PORT = 8474


def explore(
    host: Annotated[str, typer.Option(help="address to listen on; only loopback unless --allow-remote")] = "127.0.0.1",
    port: Annotated[int, typer.Option(help="port to listen on (0: any free port)", min=0, max=65535)] = DEFAULT_PORT,
    allow_remote: Annotated[bool, typer.Option("--allow-remote", help="allow a --host beyond loopback")] = False,
) -> None:
    """Explore the graph in a browser: who knows what, since when, and what replaced it (read-only)."""
    from grapevine.cli.base import err, run_or_exit, say_if_starting, settings_or_exit
    from grapevine.explore.server import check_host, serve

    try:
        check_host(host, allow_remote)
    except ValueError as exc:
        err.print(f"[red]refused:[/red] {exc}")
        raise typer.Exit(2) from None
    settings = settings_or_exit()

    def ready(url: str) -> None:
        print(
            f"grapevine explore: serving the {settings.graph.engine} graph, read-only, at\n\n    {url}\n\n"
            "Open that address in a browser on this machine (the token in it changes at each start). Ctrl-C stops.",
            flush=True,
        )
        if not allow_remote:
            return
        print(f"warning: listening on {host}, beyond loopback: anyone who can reach it with this URL reads the graph", flush=True)

    say_if_starting(settings)
    run_or_exit(serve(settings, host, port, allow_remote=allow_remote, on_ready=ready))
    print("grapevine explore: stopped", flush=True)
