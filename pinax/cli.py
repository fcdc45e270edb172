"""The `pinax` command: a thin shell over `tools.py` (parse, call, print).

Heavy imports (the MCP SDK, HTML extraction) happen inside the commands that need them, so
`pinax search` starts quickly and `pinax serve` pays only for what serving needs.
"""

from __future__ import annotations

import asyncio
import json
import logging
import sys
from collections.abc import Iterable
from pathlib import Path
from typing import Annotated, Any, NoReturn

import typer

from pinax import __version__
from pinax.errors import PinaxError

app = typer.Typer(
    help="Pinax: a live, searchable index of documentation sites for coding agents.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)

DocsOption = Annotated[
    list[Path],
    typer.Option(
        "--docs",
        "-d",
        help="A manifest file (JSON). Repeat for several docs sets.",
        show_default=False,
    ),
]
CacheDirOption = Annotated[
    Path | None,
    typer.Option(
        "--cache-dir",
        help="Page cache folder [default: $PINAX_CACHE_DIR or the user cache folder]",
        show_default=False,
    ),
]
TtlOption = Annotated[
    float, typer.Option("--ttl", help="Seconds a cached page stays fresh.", min=0)
]
LogLevelOption = Annotated[
    str, typer.Option("--log-level", help="debug, info, warning or error (logs go to stderr).")
]


def fail(message: str, code: int = 2) -> NoReturn:
    typer.echo(f"pinax: error: {message}", err=True)
    raise typer.Exit(code)


def setup_logging(level: str) -> None:
    numeric = logging.getLevelName(level.upper())
    if not isinstance(numeric, int):
        fail(f"unknown log level {level!r} (use debug, info, warning or error)")
    logging.basicConfig(
        level=numeric, stream=sys.stderr, format="%(asctime)s %(levelname)s %(name)s: %(message)s"
    )


def load_tools(
    docs: list[Path],
    cache_dir: Path | None = None,
    ttl: float | None = None,
    read_pages: bool = True,
) -> Any:
    """Load the manifests (exit 2 naming the file and place if one is bad) and wire the tools."""
    from pinax.tools import Tools

    if not docs:
        fail("give at least one manifest with --docs FILE")
    try:
        return Tools.open(docs, cache_dir, ttl, read_pages=read_pages)
    except PinaxError as exc:
        fail(exc.message)


@app.command()
def serve(
    docs: DocsOption,
    cache_dir: CacheDirOption = None,
    ttl: TtlOption = 24 * 3600,
    log_level: LogLevelOption = "warning",
) -> None:
    """Run the MCP server on stdio."""
    setup_logging(log_level)
    tools = load_tools(docs, cache_dir, ttl)
    from pinax.server import create_server

    create_server(tools).run()


@app.command()
def search(
    docs: DocsOption,
    query: Annotated[
        str | None,
        typer.Argument(help="Words to search for. Omit to read one query per line from stdin."),
    ] = None,
    limit: Annotated[int, typer.Option("--limit", "-n", help="Maximum results.")] = 10,
    within: Annotated[
        str | None, typer.Option("--in", help="Search only this manifest (by name).")
    ] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print JSON instead of a table.")] = False,
) -> None:
    """Search the manifests from the shell, as the search_pages tool does."""
    tools = load_tools(docs, read_pages=False)
    if query is None:
        if sys.stdin.isatty():
            fail("give a QUERY, or pipe queries on standard input (one per line)")
        search_lines(tools, sys.stdin, limit, within)
        return
    try:
        answer = tools.search_pages(query, limit, within)
    except PinaxError as exc:
        fail(exc.message, 1)
    if as_json:
        typer.echo(json.dumps(answer, ensure_ascii=False, indent=2))
        return
    print_table(answer)


def search_lines(tools: Any, lines: Iterable[str], limit: int, within: str | None) -> None:
    """One JSON line per query line (blank lines skipped), in order; a bad query gets its
    error, and the others go on."""
    write = sys.stdout.write
    for line in lines:
        text = line.strip()
        if not text:
            continue
        try:
            row: dict[str, Any] = tools.search_pages(text, limit, within)
        except PinaxError as exc:
            row = {"query": text, **exc.to_dict()}
        write(json.dumps(row, ensure_ascii=False) + "\n")


def print_table(answer: dict[str, Any]) -> None:
    if answer.get("did_you_mean"):
        typer.echo(f"(searched for: {answer['did_you_mean']})")
    results = answer["results"]
    if not results:
        typer.echo("no results")
        return
    for row in results:
        where = f"[{row['docs']}] " if "docs" in row else ""
        typer.echo(f"{row['score']:.2f}  {where}{row['title']}")
        typer.echo(f"      {row['url']}")


@app.command()
def page(
    url: Annotated[str, typer.Argument(help="The page URL (on a loaded manifest's site).")],
    docs: DocsOption,
    cache_dir: CacheDirOption = None,
    ttl: TtlOption = 24 * 3600,
    as_json: Annotated[
        bool, typer.Option("--json", help="Print the whole result as JSON.")
    ] = False,
) -> None:
    """Print a page as Markdown, as the get_page tool returns it."""
    tools = load_tools(docs, cache_dir, ttl)
    try:
        result = asyncio.run(tools.get_page(url))
    except PinaxError as exc:
        fail(exc.message, 1)
    if as_json:
        typer.echo(json.dumps(result, ensure_ascii=False, indent=2))
        return
    meta = {k: v for k, v in result.items() if k != "markdown"}
    typer.echo(json.dumps(meta, ensure_ascii=False), err=True)
    typer.echo(result["markdown"])


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


def main() -> None:
    app()
