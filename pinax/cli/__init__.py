"""The `pinax` command: a thin shell over `tools.py` (parse, call, print).

One module per command group (serve, search, page and extract, build, cache, doctor,
config), each over `common` (the shared options and `fail`). Heavy imports (the MCP SDK, HTML
extraction, the builders) happen inside the commands that need them, so `pinax search` starts
quickly and `pinax serve` pays only for what serving needs.
"""

from __future__ import annotations

from typing import Annotated

import typer

from pinax import __version__
from pinax.cli import build, cache, config, doctor, page, search, serve
from pinax.cli.common import json_errors
from pinax.cli.usage import PinaxCommand, PinaxGroup

app = typer.Typer(
    cls=PinaxGroup,  # click's usage errors in Pinax's words (usage.py)
    help="Pinax: a live, searchable index of documentation sites for coding agents.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
    # Plain help: flags shown as flags (rich help labels them `<bool>`), -h like --help.
    rich_markup_mode=None,
    context_settings={"help_option_names": ["-h", "--help"]},
)
app.command(cls=PinaxCommand)(serve.serve)
app.command(cls=PinaxCommand)(search.search)
app.command(cls=PinaxCommand)(page.page)
app.command(cls=PinaxCommand)(build.build)
app.add_typer(cache.cache_app, name="cache")
app.command(cls=PinaxCommand)(page.extract)
app.command(cls=PinaxCommand)(doctor.doctor)
app.command(cls=PinaxCommand)(config.config)


def version_callback(value: bool) -> None:
    if value:
        typer.echo(f"pinax {__version__}")
        raise typer.Exit()


@app.callback()
def root(
    version: Annotated[
        bool | None,
        typer.Option("--version", callback=version_callback, is_eager=True, help="Show version."),
    ] = None,
) -> None:
    """Pinax: a live, searchable index of documentation sites for coding agents."""
    json_errors(False)  # each command says whether its errors are JSON (--json)


def main() -> None:
    app()


__all__ = ["app", "main"]
