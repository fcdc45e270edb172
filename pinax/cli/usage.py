"""Usage errors (click's, before a command runs) in Pinax's words: an unknown option is met
with a suggestion only when one is close (`--colour` is not `--url`), and with --json the
error is also a JSON line on stdout, as every command's own errors are."""

from __future__ import annotations

import sys
from collections.abc import Sequence
from typing import Any

import typer

# typer 0.29 carries its own click (typer._click); its usage errors derive from TyperException.
from typer._click.exceptions import NoSuchOption
from typer.core import TyperCommand, TyperGroup
from typer.exceptions import Abort, TyperException

from pinax.cli.common import safe_json


class PinaxCommand(TyperCommand):
    """A command whose usage line names a required argument plainly (`URL`, as man pages
    and click do; typer 0.29 writes `{URL}`, which reads as a placeholder to fill in)."""

    def collect_usage_pieces(self, ctx: Any) -> list[str]:
        return [_plain(piece) for piece in super().collect_usage_pieces(ctx)]


def _plain(piece: str) -> str:
    return piece[1:-1] if piece.startswith("{") and piece.endswith("}") else piece


class PinaxGroup(TyperGroup):
    """The `pinax` group: runs a command, and reports click's usage errors itself."""

    def main(  # type: ignore[override]
        self,
        args: Sequence[str] | None = None,
        prog_name: str | None = None,
        complete_var: str | None = None,
        standalone_mode: bool = True,
        **extra: Any,
    ) -> Any:
        if not standalone_mode:
            return super().main(args, prog_name, complete_var, standalone_mode, **extra)
        argv = list(sys.argv[1:] if args is None else args)
        try:
            code = super().main(argv, prog_name, complete_var, False, **extra)
        except TyperException as exc:
            report(exc, as_json="--json" in argv)
            sys.exit(getattr(exc, "exit_code", 1))
        except Abort:
            typer.echo("Aborted!", err=True)
            sys.exit(1)
        sys.exit(code if isinstance(code, int) else 0)


def report(exc: Any, as_json: bool) -> None:
    """Show a usage error as click does (usage line, hint, message), with a close
    suggestion only; with `as_json`, the message as a JSON error on stdout too."""
    if isinstance(exc, NoSuchOption):
        exc.message, exc.possibilities = unknown_option(exc), []
    if as_json:
        error = {"code": "invalid_args", "message": exc.format_message()}
        typer.echo(safe_json({"error": error}))
    exc.show()


def unknown_option(exc: NoSuchOption) -> str:
    """`No such option: --limt (did you mean --limit?)`, or a pointer to --help."""
    command = exc.ctx.command if exc.ctx is not None else None
    known = [
        name
        for param in (command.params if command is not None else [])
        if getattr(param, "param_type_name", "") == "option"
        for name in (*param.opts, *param.secondary_opts)
        if name.startswith("--")
    ]
    from pinax.hints import closest_names, did_you_mean  # rapidfuzz: only on a usage error

    close = closest_names(exc.option_name[:200], known, limit=3)
    shown = exc.option_name if len(exc.option_name) <= 80 else exc.option_name[:80] + "..."
    return f"No such option: {shown}{did_you_mean(close) or ' (see --help for the options)'}"
