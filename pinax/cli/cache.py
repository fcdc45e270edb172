"""`pinax cache`: inspect or empty the page cache."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated, Any

import typer

from pinax.cli.common import CacheDirOption, JsonOption, fail, parse_duration
from pinax.errors import PinaxError

cache_app = typer.Typer(help="Inspect or empty the page cache.", no_args_is_help=True)


def open_cache(cache_dir: Path | None) -> Any:
    from pinax.pages import PageCache, default_cache_dir

    return PageCache(cache_dir or default_cache_dir())


@cache_app.command("stats")
def cache_stats(
    cache_dir: CacheDirOption = None,
    as_json: JsonOption = False,
) -> None:
    """How many pages the cache holds, how much disk they take, how old they are."""
    try:
        stats = open_cache(cache_dir).stats()
    except PinaxError as exc:
        fail(exc.message, 1)
    if as_json:
        typer.echo(json.dumps(stats, indent=2))
        return
    for key, value in stats.items():
        typer.echo(f"{key.replace('_', ' ')}: {'-' if value is None else value}")


@cache_app.command("clear")
def cache_clear(
    cache_dir: CacheDirOption = None,
    older_than: Annotated[
        str | None,
        typer.Option(
            "--older-than", help="Only pages stored longer ago than this (3600, 30m, 12h, 7d)."
        ),
    ] = None,
) -> None:
    """Remove cached pages (all of them, or those older than --older-than)."""
    seconds = None if older_than is None else parse_duration(older_than, "--older-than")
    try:
        removed = open_cache(cache_dir).clear(seconds)
    except PinaxError as exc:
        fail(exc.message, 1)
    typer.echo(f"removed {removed} cached page{'' if removed == 1 else 's'}")
