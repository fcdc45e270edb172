"""The `pinax` command: a thin shell over `tools.py` (parse, call, print).

Heavy imports (the MCP SDK, HTML extraction) happen inside the commands that need them, so
`pinax search` starts quickly and `pinax serve` pays only for what serving needs.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import sys
from collections.abc import Iterable
from pathlib import Path
from typing import Annotated, Any, Literal, NoReturn

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
    list[str],
    typer.Option(
        "--docs",
        "-d",
        help="A manifest file (JSON) or a folder of them, or a docs site URL / llms.txt / "
        "sitemap / objects.inv to build one from (cached). Repeat for several docs sets.",
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
    list[str] | None,
    typer.Option(
        "--ttl",
        help="Seconds a cached page stays fresh (default: the manifest's ttl, else 86400); "
        "NAME=SECONDS sets it for one manifest. Repeatable.",
        show_default=False,
    ),
]
AllowPrivateOption = Annotated[
    list[str] | None,
    typer.Option(
        "--allow-private",
        metavar="CIDR",
        help="Let get_page connect to this private network (CIDR, e.g. 10.20.0.0/16 for an "
        "intranet docs site). Repeat for several; also $PINAX_ALLOW_PRIVATE, comma-separated. "
        "Loopback, private, link-local and other non-public addresses are refused otherwise.",
        show_default=False,
    ),
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
    # The SDK's info lines carry session ids; below debug, only Pinax's own lines (tool name,
    # outcome, time) and warnings are logged.
    if numeric > logging.DEBUG:
        logging.getLogger("mcp").setLevel(max(numeric, logging.WARNING))


def open_tools(
    docs: list[str],
    cache_dir: Path | None = None,
    ttl: list[str] | None = None,
    allow_private: list[str] | None = None,
    read_pages: bool = True,
) -> Any:
    """Load the manifests (a folder stands for its *.json files; a site URL or published file
    is built into the cache first) and wire the tools (`read_pages`: get_page too)."""
    from pinax.build import resolve_docs
    from pinax.reload import manifest_files
    from pinax.tools import Tools

    default, per_docs = parse_ttls(ttl or [])
    paths = manifest_files([resolve_docs(arg, cache_dir) for arg in docs])
    return Tools.open(paths, cache_dir, default, per_docs, allow_private or (), read_pages)


def load_tools(
    docs: list[str] | list[Path],
    cache_dir: Path | None = None,
    ttl: list[str] | None = None,
    allow_private: list[str] | None = None,
    read_pages: bool = True,
) -> Any:
    """Load the manifests (exit 2 naming the file and place if one is bad) and wire the tools."""
    if not docs:
        fail("give at least one manifest (or docs site URL) with --docs")
    try:
        return open_tools(docs, cache_dir, ttl, allow_private, read_pages)
    except PinaxError as exc:
        fail(exc.message)


def parse_ttls(values: list[str]) -> tuple[float | None, dict[str, float]]:
    """`--ttl SECONDS` (every manifest) and `--ttl NAME=SECONDS` (one manifest)."""
    default: float | None = None
    per_docs: dict[str, float] = {}
    for value in values:
        name, _, seconds = value.rpartition("=")
        number = parse_duration(seconds, "--ttl")
        if name:
            per_docs[name.strip()] = number
        else:
            default = number
    return default, per_docs


def parse_duration(text: str, option: str) -> float:
    """Seconds from `90`, `90s`, `15m`, `12h` or `7d`."""
    units = {"s": 1, "m": 60, "h": 3600, "d": 86400}
    value = text.strip().lower()
    scale = units.get(value[-1:], 0)
    try:
        number = float(value[:-1] if scale else value) * (scale or 1)
    except ValueError:
        fail(f"{option}: {text!r} is not a duration (e.g. 3600, 90s, 15m, 12h, 7d)")
    if not 0 <= number < float("inf"):
        fail(f"{option}: {text!r} must be a duration of 0 or more")
    return number


@app.command()
def serve(
    docs: DocsOption,
    cache_dir: CacheDirOption = None,
    ttl: TtlOption = None,
    allow_private: AllowPrivateOption = None,
    http: Annotated[
        bool, typer.Option("--http", help="Serve streamable HTTP at /mcp instead of stdio.")
    ] = False,
    host: Annotated[
        str, typer.Option("--host", help="HTTP address; beyond loopback a token is required.")
    ] = "127.0.0.1",
    port: Annotated[int, typer.Option("--port", help="HTTP port (0 picks a free one).")] = 8765,
    token: Annotated[
        str | None,
        typer.Option(
            "--token",
            envvar="PINAX_TOKEN",
            help="Bearer token HTTP clients must send (prefer the PINAX_TOKEN variable).",
            show_default=False,
        ),
    ] = None,
    allow_host: Annotated[
        list[str] | None,
        typer.Option(
            "--allow-host",
            help="Another Host header to accept over HTTP, e.g. docs.example.com (repeatable).",
            show_default=False,
        ),
    ] = None,
    allow_origin: Annotated[
        list[str] | None,
        typer.Option(
            "--allow-origin",
            help="Another browser Origin to accept, e.g. https://app.example.com (repeatable).",
            show_default=False,
        ),
    ] = None,
    watch: Annotated[
        bool,
        typer.Option(
            "--watch", help="Reload manifests when their files change (on with a folder)."
        ),
    ] = False,
    watch_interval: Annotated[
        float,
        typer.Option("--watch-interval", help="Seconds between checks for changes.", min=0.05),
    ] = 1.0,
    log_level: LogLevelOption = "warning",
) -> None:
    """Run the MCP server: stdio by default, or streamable HTTP with --http."""
    setup_logging(log_level)
    from pinax.http_app import HttpSettings

    settings = HttpSettings(host, port, token or None, allow_host or [], allow_origin or [])
    if http and (problem := settings.problem()):
        fail(problem)
    if docs and (watch or any(Path(arg).is_dir() for arg in docs)):
        from pinax.reload import LiveTools

        try:
            watched = [Path(arg) for arg in docs]
            tools: Any = LiveTools(
                lambda: open_tools(docs, cache_dir, ttl, allow_private), watched, watch_interval
            )
        except PinaxError as exc:
            fail(exc.message)
    else:
        tools = load_tools(docs, cache_dir, ttl, allow_private)
    from pinax.server import create_server

    server = create_server(tools)
    if not http:
        import anyio

        from pinax.stdio import serve_stdio

        anyio.run(serve_stdio, server)
        return
    serve_http(server, settings, log_level)


def serve_http(server: Any, settings: Any, log_level: str) -> None:
    import anyio

    from pinax import http_app

    try:
        sock = http_app.bind(settings.host, settings.port)
    except OSError as exc:
        fail(f"cannot listen on {settings.host}:{settings.port}: {exc.strerror or exc}")
    app = http_app.build_app(server, settings, lambda: len(server.loaded_docs()))
    typer.echo(f"pinax: serving MCP at {http_app.url_of(sock)} (health: /health)", err=True)
    typer.echo(f"pinax: {http_app.describe(settings)}", err=True)
    with contextlib.suppress(KeyboardInterrupt):  # uvicorn has shut down cleanly by then
        anyio.run(http_app.serve, app, sock, log_level)


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
    threshold: Annotated[
        float | None,
        typer.Option("--threshold", help="Leave out results scoring below this (0..1)."),
    ] = None,
    explain: Annotated[
        bool, typer.Option("--explain", help="Show how each result matched (terms, fields).")
    ] = False,
    as_json: Annotated[bool, typer.Option("--json", help="Print JSON instead of a table.")] = False,
    cache_dir: CacheDirOption = None,
) -> None:
    """Search the manifests from the shell, as the search_pages tool does."""
    tools = load_tools(docs, cache_dir, read_pages=False)
    options = {"limit": limit, "docs": within, "explain": explain, "threshold": threshold}
    if query is None:
        if sys.stdin.isatty():
            fail("give a QUERY, or pipe queries on standard input (one per line)")
        search_lines(tools, sys.stdin, options)
        return
    try:
        answer = tools.search_pages(query, **options)
    except PinaxError as exc:
        fail(exc.message, 1)
    if as_json:
        typer.echo(json.dumps(answer, ensure_ascii=False, indent=2))
        return
    print_table(answer)


def search_lines(tools: Any, lines: Iterable[str], options: dict[str, Any]) -> None:
    """One JSON line per query line (blank lines skipped), in order; a bad query gets its
    error, and the others go on."""
    write = sys.stdout.write
    for line in lines:
        text = line.strip()
        if not text:
            continue
        try:
            row: dict[str, Any] = tools.search_pages(text, **options)
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
        if row.get("explain"):
            typer.echo(f"      {explain_line(row['explain'])}")


def explain_line(explain: dict[str, Any]) -> str:
    """A hit's explanation on one line: each matched term with its score and fields."""
    parts = []
    for term in explain["terms"]:
        if not term["score"]:
            continue
        how = "" if term["match"] == "exact" else f" {term['match']}"
        fields = ",".join(term.get("fields", {}))
        parts.append(f"{term['term']}{how}={term['score']:g}" + (f" ({fields})" if fields else ""))
    boosts = explain["boosts"]
    if boosts["exact_title"] > 1:
        parts.append(f"exact title x{boosts['exact_title']:g}")
    return "; ".join(parts) or "no term matched"


@app.command()
def page(
    url: Annotated[str, typer.Argument(help="The page URL (on a loaded manifest's site).")],
    docs: DocsOption,
    cache_dir: CacheDirOption = None,
    ttl: TtlOption = None,
    allow_private: AllowPrivateOption = None,
    max_tokens: Annotated[
        int | None,
        typer.Option("--max-tokens", help="Largest result in estimated tokens (default 8000)."),
    ] = None,
    section: Annotated[
        str | None, typer.Option("--section", help="Only this section (heading or anchor).")
    ] = None,
    cursor: Annotated[
        str | None, typer.Option("--cursor", help="Read on from a result's next_cursor.")
    ] = None,
    as_json: Annotated[
        bool, typer.Option("--json", help="Print the whole result as JSON.")
    ] = False,
) -> None:
    """Print a page as Markdown, as the get_page tool returns it (metadata on stderr)."""
    tools = load_tools(docs, cache_dir, ttl, allow_private)
    try:
        result = asyncio.run(tools.get_page(url, max_tokens, section, cursor))
    except PinaxError as exc:
        fail(exc.message, 1)
    if as_json:
        typer.echo(json.dumps(result, ensure_ascii=False, indent=2))
        return
    meta = {k: v for k, v in result.items() if k != "markdown"}
    typer.echo(json.dumps(meta, ensure_ascii=False), err=True)
    typer.echo(result["markdown"])


@app.command()
def build(
    source: Annotated[
        str,
        typer.Argument(
            help="A docs site URL, or a published llms.txt / sitemap.xml[.gz] / objects.inv "
            "(URL or file).",
            show_default=False,
        ),
    ],
    output: Annotated[
        Path | None,
        typer.Option("--output", "-o", help="Manifest file to write (default: stdout)."),
    ] = None,
    name: Annotated[
        str | None, typer.Option("--name", help="Manifest name (default: from the host).")
    ] = None,
    title: Annotated[str | None, typer.Option("--title", help="Site title.")] = None,
    site_url: Annotated[
        str | None,
        typer.Option("--url", help="The site a local file describes (base of relative links)."),
    ] = None,
    include: Annotated[
        list[str] | None,
        typer.Option("--include", help="Keep only URLs matching this glob (repeatable)."),
    ] = None,
    exclude: Annotated[
        list[str] | None,
        typer.Option("--exclude", help="Leave out URLs matching this glob (repeatable)."),
    ] = None,
    max_pages: Annotated[
        int | None,
        typer.Option(
            "--max-pages", min=1, help="At most this many pages (default: 50000; crawl: 1000)."
        ),
    ] = None,
    titles: Annotated[
        Literal["slug", "fetch"],
        typer.Option("--titles", help="slug: titles from URLs; fetch: from each page."),
    ] = "slug",
    lang: Annotated[
        str | None, typer.Option("--lang", help="Sitemap language to keep (default: the site's).")
    ] = None,
    allow_host: Annotated[
        list[str] | None,
        typer.Option("--allow-host", help="Also fetch from this host (repeatable)."),
    ] = None,
    allow_private: AllowPrivateOption = None,
    concurrency: Annotated[
        int, typer.Option("--concurrency", min=1, max=64, help="Requests at once.")
    ] = 8,
    delay: Annotated[
        float, typer.Option("--delay", min=0, help="Seconds between requests to one host.")
    ] = 0.1,
    lastmod: Annotated[
        bool, typer.Option("--lastmod", help="Keep sitemap <lastmod> dates.")
    ] = False,
    check: Annotated[
        bool,
        typer.Option("--check", help="Compare with the -o file; exit 1 if it is out of date."),
    ] = False,
    max_removed: Annotated[
        float,
        typer.Option(
            "--max-removed",
            min=0,
            max=1,
            help="Refuse to write when a larger share of pages vanished.",
        ),
    ] = 0.2,
    quiet: Annotated[bool, typer.Option("--quiet", "-q", help="Warnings only.")] = False,
) -> None:
    """Build a manifest from a docs site or a file it publishes."""
    from pinax.build.console import ConsoleReporter
    from pinax.build.core import build as build_manifest
    from pinax.build.model import BuildOptions
    from pinax.build.publish import publish
    from pinax.manifest import dump

    if check and output is None:
        fail("--check compares with a manifest file: give it with -o FILE")
    options = BuildOptions(
        name=name,
        title=title,
        site_url=site_url,
        include=tuple(include or ()),
        exclude=tuple(exclude or ()),
        max_pages=max_pages,
        titles=titles,
        lang=lang,
        allow_hosts=tuple(allow_host or ()),
        allow_private=tuple(allow_private or ()),
        concurrency=concurrency,
        delay=delay,
        lastmod=lastmod,
    )
    reporter = ConsoleReporter(quiet=quiet)
    try:
        manifest = asyncio.run(build_manifest(source, options, reporter))
        if output is None:
            sys.stdout.write(dump(manifest))
            return
        outcome = publish(manifest, output, check, max_removed, reporter)
    except PinaxError as exc:
        fail(exc.message)
    if outcome.exit_code:
        raise typer.Exit(outcome.exit_code)


cache_app = typer.Typer(help="Inspect or empty the page cache.", no_args_is_help=True)
app.add_typer(cache_app, name="cache")


def open_cache(cache_dir: Path | None) -> Any:
    from pinax.pages.cache import PageCache, default_cache_dir

    return PageCache(cache_dir or default_cache_dir())


@cache_app.command("stats")
def cache_stats(
    cache_dir: CacheDirOption = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print JSON.")] = False,
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


@app.command()
def extract(
    file: Annotated[str, typer.Argument(help="A saved HTML page, or - for standard input.")],
    url: Annotated[
        str, typer.Option("--url", help="The page's address, to make its links absolute.")
    ] = "",
    charset: Annotated[
        str | None, typer.Option("--charset", help="The charset its server declared, if any.")
    ] = None,
    as_json: Annotated[
        bool, typer.Option("--json", help="Print title, signals and Markdown as JSON.")
    ] = False,
) -> None:
    """Print a saved page's main content as Markdown, as get_page extracts it (no server)."""
    from dataclasses import asdict

    from pinax.pages.extract import decode_html
    from pinax.pages.extract import extract as extract_page

    try:
        body = sys.stdin.buffer.read() if file == "-" else Path(file).read_bytes()
    except OSError as exc:
        fail(f"cannot read {file}: {exc.strerror or exc}")
    page = extract_page(decode_html(body, charset), url)
    if as_json:
        typer.echo(json.dumps(asdict(page), ensure_ascii=False, indent=2))
        return
    if page.refresh_url:
        typer.echo(f"pinax: this page redirects to {page.refresh_url}", err=True)
    if page.js_shell:
        typer.echo("pinax: this page renders in the browser: it has almost no text", err=True)
    typer.echo(page.markdown, nl=False)


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
