"""`pinax serve`: the MCP server over stdio or streamable HTTP."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any

import typer

from pinax.cli.common import (
    AllowPrivateOption,
    CacheDirOption,
    CacheRedisOption,
    ContentOption,
    ContentWeightOption,
    DocsFolderOption,
    EmbeddingWeightOption,
    ExcludeOption,
    FolderOptions,
    HeaderOption,
    HeadersFileOption,
    IncludeOption,
    LayoutOption,
    LexicalWeightOption,
    LogLevelOption,
    OptionalDocsOption,
    ProjectOption,
    SiteUrlOption,
    TtlOption,
    credentials_or_fail,
    fail,
    load_tools,
    open_tools,
    parse_contents,
    plural,
    setup_logging,
    shipped_docs,
    use_projects,
    warn,
    weights_or_fail,
    with_docs_folders,
)
from pinax.errors import PinaxError


def port_in_range(value: int) -> int:
    """A TCP port, 0..65535: the socket layer would wrap 99999 around to 34463."""
    if not 0 <= value <= 65535:
        raise typer.BadParameter(f"a port is 0..65535 (0 picks a free one), got {value}")
    return value


def serve(
    docs: OptionalDocsOption = None,
    docs_folder: DocsFolderOption = None,
    include: IncludeOption = None,
    exclude: ExcludeOption = None,
    project: ProjectOption = None,
    cache_dir: CacheDirOption = None,
    ttl: TtlOption = None,
    allow_private: AllowPrivateOption = None,
    site_url: SiteUrlOption = None,
    layout: LayoutOption = None,
    header: HeaderOption = None,
    headers_file: HeadersFileOption = None,
    cache_redis: CacheRedisOption = None,
    lexical_weight: LexicalWeightOption = None,
    embedding_weight: EmbeddingWeightOption = None,
    content_weight: ContentWeightOption = None,
    content: ContentOption = None,
    http: Annotated[
        bool, typer.Option("--http", help="Serve streamable HTTP at /mcp instead of stdio.")
    ] = False,
    host: Annotated[
        str, typer.Option("--host", help="HTTP address; beyond loopback a token is required.")
    ] = "127.0.0.1",
    port: Annotated[
        int,
        typer.Option(
            "--port", help="HTTP port, 0..65535 (0 picks a free one).", callback=port_in_range
        ),
    ] = 8765,
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
    sessions: Annotated[
        bool,
        typer.Option(
            "--sessions",
            help="Keep MCP sessions and answer over SSE (as earlier versions did), for "
            "handshake-era clients that need progress or change notifications; one process.",
        ),
    ] = False,
    forwarded_allow_ips: Annotated[
        list[str] | None,
        typer.Option(
            "--forwarded-allow-ips",
            envvar="PINAX_FORWARDED_ALLOW_IPS",
            help="Proxies whose X-Forwarded-Host/-For/-Proto are believed, e.g. 10.0.0.0/8 "
            "or * (repeatable, or comma-separated).",
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
        float | None,
        typer.Option(
            "--watch-interval",
            help="Seconds between checks for changes [default: 1; 0.25 with a docs folder, "
            "longer for a big one].",
            min=0.05,
            show_default=False,
        ),
    ] = None,
    log_level: LogLevelOption = "warning",
) -> None:
    """Run the MCP server: stdio by default, or streamable HTTP with --http."""
    setup_logging(log_level)
    from pinax.server import HttpSettings

    weights = weights_or_fail(lexical_weight, embedding_weight, content_weight)  # the defaults
    docs, labels = shipped_docs(docs, project)
    contents = parse_contents(content)
    credentials = credentials_or_fail(header, headers_file)
    settings = HttpSettings(
        host,
        port,
        token or None,
        allow_host or [],
        allow_origin or [],
        sessions=sessions,
        forwarded_allow_ips=forwarded_allow_ips or [],
    )
    if http and (problem := settings.problem()):
        fail(problem)
    docs = with_docs_folders(docs, docs_folder)
    folder_options = FolderOptions(layout, tuple(include or ()), tuple(exclude or ()))
    if docs and (watch or any(_is_folder(arg) for arg in docs)):
        from pinax.cli.folders import DocsFolders, split_docs
        from pinax.server import LiveTools, one_generation, settle_after_reload

        try:
            others, folder_paths = split_docs(docs)
            folders = DocsFolders(folder_paths, site_url, options=folder_options, labels=labels)
            tools: Any = LiveTools(
                lambda: projected(
                    weighted(
                        open_tools(
                            one_generation(others),  # resolved at each load: one generation
                            cache_dir,
                            ttl,
                            allow_private,
                            site_url=site_url,
                            folders=folders,
                            credentials=credentials,
                            contents=contents,
                            cache_redis=cache_redis,
                        ),
                        weights,
                    ),
                    project,
                ),
                [Path(arg) for arg in others],
                watch_interval if watch_interval is not None else 0.25 if folders else 1.0,
                folders.signature if folders else None,
                after_reload=settle_after_reload,
            )
        except PinaxError as exc:
            fail(exc.message)
    else:
        tools = load_tools(
            docs,
            cache_dir,
            ttl,
            allow_private,
            site_url=site_url,
            need_docs=False,
            contents=contents,
            credentials=credentials,
            folder_options=folder_options,
            cache_redis=cache_redis,
            labels=labels,
        )
        projected(weighted(tools, weights), project)
    from pinax.server import create_server, settle, share_the_gil

    # What is loaded now, and what warming up adds, lives as long as the server: both are
    # frozen out of the collector's walks.
    server = create_server(tools, after_warm=settle)
    settle(collect=False)
    share_the_gil()  # the event loop waits less on page extraction's worker threads
    if not http:
        import anyio

        from pinax.server import serve_stdio

        line = start_line(getattr(tools, "tools", tools))
        typer.echo(f"pinax: {line}; MCP over stdio, waiting for a client", err=True)
        anyio.run(serve_stdio, server)
        return
    typer.echo(f"pinax: {start_line(getattr(tools, 'tools', tools))}", err=True)
    serve_http(server, settings, log_level)


def _is_folder(arg: str) -> bool:
    return arg.startswith("dir:") or Path(arg).is_dir()


def projected(tools: Any, projects: list[Path] | None) -> Any:
    """The tools with the projects' dependencies as the default scope (at every reload)."""
    use_projects(tools, projects)
    return tools


def weighted(tools: Any, weights: tuple[float, float, float]) -> Any:
    """The tools, with `weights` as search_pages' default (lexical, embedding, content)."""
    tools.weights = weights
    return tools


def serve_http(server: Any, settings: Any, log_level: str) -> None:
    from pinax.server import serve_http as run

    try:
        run(server, settings, log_level, say)
    except OSError as exc:
        fail(f"cannot listen on {settings.host}:{settings.port}: {exc.strerror or exc}")


def say(text: str) -> None:
    """A start-up message on stderr, each of its lines marked as Pinax's."""
    for line in text.splitlines():
        typer.echo(f"pinax: {line}", err=True)


def start_line(tools: Any) -> str:
    """What a person who started `pinax serve` by hand sees: that it runs, and with what."""
    from pinax import __version__

    docs = tools.library.describe()
    if not docs:
        warn("no documentation sets loaded: the server has nothing to search")
    listed = ", ".join(
        f"{d['name']}{'@' + d['version'] if d.get('version') else ''} "
        f"({plural(d['pages'], 'page')})"
        for d in docs
    )
    what = plural(len(docs), "documentation set") + (f": {listed}" if listed else "")
    return f"pinax {__version__} serving {what}"
