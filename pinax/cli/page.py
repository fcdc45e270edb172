"""`pinax page` and `pinax extract`: read a page as get_page does, live or from a saved file."""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path
from typing import Annotated

import typer

from pinax.cli.common import (
    AllowPrivateOption,
    CacheDirOption,
    CacheRedisOption,
    DocsOption,
    HeaderOption,
    HeadersFileOption,
    JsonOption,
    LogLevelOption,
    SiteUrlOption,
    TtlOption,
    credentials_or_fail,
    fail,
    fail_on,
    json_errors,
    load_tools,
    safe,
    safe_json,
    setup_logging,
    shown,
)
from pinax.errors import PinaxError


def page(
    url: Annotated[
        str, typer.Argument(metavar="URL", help="The page URL (on a loaded manifest's site).")
    ],
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
    as_json: JsonOption = False,
    site_url: SiteUrlOption = None,
    header: HeaderOption = None,
    headers_file: HeadersFileOption = None,
    cache_redis: CacheRedisOption = None,
    log_level: LogLevelOption = "warning",
) -> None:
    """Print a page as Markdown, as the get_page tool returns it (metadata on stderr)."""
    json_errors(as_json)
    setup_logging(log_level)
    credentials = credentials_or_fail(header, headers_file)
    tools = load_tools(
        docs,
        cache_dir,
        ttl,
        allow_private,
        site_url=site_url,
        credentials=credentials,
        cache_redis=cache_redis,
    )
    try:
        result = asyncio.run(tools.get_page(url, max_tokens, section, cursor))
    except PinaxError as exc:
        fail_on(exc)
    if as_json:
        typer.echo(safe_json(result, indent=2))
        return
    meta = {k: v for k, v in result.items() if k != "markdown"}
    typer.echo(safe_json(meta), err=True)
    typer.echo(safe(result["markdown"]))


def extract(
    file: Annotated[
        str, typer.Argument(metavar="FILE", help="A saved HTML page, or - for standard input.")
    ],
    url: SiteUrlOption = None,
    charset: Annotated[
        str | None, typer.Option("--charset", help="The charset its server declared, if any.")
    ] = None,
    as_json: JsonOption = False,
) -> None:
    """Print a saved page's main content as Markdown, as get_page extracts it (no server)."""
    from dataclasses import asdict

    from pinax.pages import decode_html, extract_page

    json_errors(as_json)
    try:
        body = sys.stdin.buffer.read() if file == "-" else Path(file).read_bytes()
    except OSError as exc:
        fail(f"cannot read {shown(file)}: {exc.strerror or exc}")
    page = extract_page(decode_html(body, charset), url or "")
    if as_json:
        typer.echo(safe_json(asdict(page), indent=2))
    elif page.refresh_url:
        typer.echo(safe(f"pinax: this page redirects to {page.refresh_url}"), err=True)
    else:
        typer.echo(safe(page.markdown), nl=False)
    if page.js_shell:  # get_page refuses such a page with the same words
        fail(page.shell_problem(url or file), 1, "fetch_failed")
