"""How the `grapevine` command line itself answers (typer's group, its help and its usage errors): a usage error
is one line on stderr naming what was wrong and where the options are listed (exit 2, as click says), and an
on/off flag shows in `--help` as the flag it is, without a value type (typer 0.2x labels every flag `<bool>`)."""

from __future__ import annotations

import sys
from typing import Any

import typer
from rich.console import Console
from rich.markup import escape
from typer.core import TyperGroup, TyperOption

_err = Console(stderr=True)


class OneLineErrors(TyperGroup):
    """typer's own group, run as click's non-standalone `main`, so that this class prints its usage errors."""

    def get_command(self, ctx: Any, cmd_name: str) -> Any:
        command = super().get_command(ctx, cmd_name)
        if command is not None:
            _flags_as_flags([*command.params, command.get_help_option(ctx)])
        return command

    def get_params(self, ctx: Any) -> Any:
        return _flags_as_flags(super().get_params(ctx))

    def main(self, *args: Any, **kwargs: Any) -> Any:
        if kwargs.get("standalone_mode", True) is False:
            return super().main(*args, **kwargs)
        try:
            done = super().main(*args, **{**kwargs, "standalone_mode": False})
        except typer.TyperException as exc:  # click's exceptions, as typer vendors them
            if type(exc).__name__ != "NoArgsIsHelpError":  # that one has printed the help: nothing else to say
                _err.print(f"[red]error:[/red] {escape(one_line(exc))}", highlight=False, soft_wrap=True)
            sys.exit(exc.exit_code)
        except typer.Abort:
            _err.print("aborted", highlight=False)
            sys.exit(1)
        sys.exit(done if isinstance(done, int) else 0)


def _flags_as_flags(params: list[Any]) -> list[Any]:
    for param in params:
        if isinstance(param, TyperOption) and param.is_flag and param.metavar is None:
            param.metavar = ""  # typer shows a metavar in place of the type; a flag takes no value
    return params


def one_line(exc: typer.TyperException) -> str:
    """A usage error's message, then where the command's options are listed."""
    said = " ".join(exc.format_message().split())
    ctx = getattr(exc, "ctx", None)  # a usage error's (click.UsageError) command
    if ctx is not None:
        return f"{said} (`{ctx.command_path} --help` lists what it takes)"
    return said
