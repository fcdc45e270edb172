"""`pinax config CLIENT`: the exact configuration snippet an MCP client needs to start this
Pinax, printed on stdout (where the client keeps it goes to stderr), so it can be pasted or
piped into a file without editing.

The command is the `pinax` that runs this: its console script when started as `pinax`, else
this Python with `-m pinax`; local `--docs` paths and `--cache-dir` are made absolute, since a
client starts servers from a folder of its own choosing.
"""

from __future__ import annotations

import json
import shlex
import sys
from pathlib import Path
from typing import Annotated, Any, Literal

import typer

from pinax.cli.common import (
    AllowPrivateOption,
    CacheDirOption,
    OptionalDocsOption,
    SiteUrlOption,
    fail,
)

NAME = "pinax"
DEFAULT_HTTP_URL = "http://127.0.0.1:8765/mcp"


ClientKind = Literal["claude-desktop", "claude-code", "cursor", "vscode", "stdio", "http"]


WHERE: dict[str, str] = {
    "claude-desktop": "put this in claude_desktop_config.json (Settings > Developer > Edit "
    "Config); Claude Desktop starts local servers only, so --http-url goes through the "
    "mcp-remote bridge (Node's npx)",
    "claude-code": "run this in a shell (add --scope project to share it in .mcp.json)",
    "cursor": "put this in ~/.cursor/mcp.json, or .cursor/mcp.json in a project",
    "vscode": "put this in .vscode/mcp.json in the workspace",
    "stdio": "the mcpServers form most clients that start MCP servers over stdio read",
    "http": "for clients that connect over streamable HTTP, to a server started with "
    "`pinax serve --http`",
}


def pinax_command() -> list[str]:
    """The absolute command of the `pinax` that runs now."""
    started = Path(sys.argv[0]) if sys.argv and sys.argv[0] else None
    if started is not None and started.name == "pinax" and started.is_file():
        return [str(started.resolve())]
    return [sys.executable, "-m", "pinax"]


def absolute(value: str) -> str:
    """A local path made absolute; a URL (or anything else with a scheme) as given."""
    if "://" in value:
        return value
    return str(Path(value).expanduser().resolve())


def serve_args(
    docs: list[str],
    cache_dir: Path | None = None,
    allow_private: list[str] | None = None,
    site_url: str | None = None,
) -> list[str]:
    args = ["serve"]
    for value in docs:
        args += ["--docs", absolute(value)]
    if cache_dir is not None:
        args += ["--cache-dir", absolute(str(cache_dir))]
    for network in allow_private or ():
        args += ["--allow-private", network]
    if site_url:
        args += ["--url", site_url]
    return args


def snippet(kind: ClientKind, args: list[str], http_url: str | None = None) -> str:
    """The text to paste: JSON for the clients that read a file, a command line for Claude
    Code. `http_url` (or the `http` kind) gives the form that connects to a running server."""
    command = pinax_command()
    if kind == "http" and http_url is None:
        http_url = DEFAULT_HTTP_URL
    if kind == "claude-code":
        if http_url:
            line = ["claude", "mcp", "add", "--transport", "http", NAME, http_url]
        else:
            line = ["claude", "mcp", "add", NAME, "--", *command, *args]
        return shlex.join(line)
    local: dict[str, Any] = {"command": command[0], "args": [*command[1:], *args]}
    if kind == "vscode":
        entry = {"type": "http", "url": http_url} if http_url else {"type": "stdio", **local}
        return _json({"servers": {NAME: entry}})
    if http_url and kind == "claude-desktop":
        entry = {"command": "npx", "args": ["-y", "mcp-remote", http_url]}
    elif http_url:
        entry = {"type": "http", "url": http_url} if kind == "http" else {"url": http_url}
    else:
        entry = local
    return _json({"mcpServers": {NAME: entry}})


def _json(data: dict[str, Any]) -> str:
    return json.dumps(data, indent=2)


def config(
    client: Annotated[
        ClientKind,
        typer.Argument(
            metavar="CLIENT",
            help="claude-desktop, claude-code, cursor, vscode, or a generic stdio or http form.",
            show_default=False,
        ),
    ],
    docs: OptionalDocsOption = None,
    cache_dir: CacheDirOption = None,
    allow_private: AllowPrivateOption = None,
    site_url: SiteUrlOption = None,
    http_url: Annotated[
        str | None,
        typer.Option(
            "--http-url",
            metavar="URL",
            help=f"Connect to a server already running over HTTP (pinax serve --http) instead "
            f"of starting one [the http form's default: {DEFAULT_HTTP_URL}]",
            show_default=False,
        ),
    ] = None,
) -> None:
    """Print the configuration snippet for an MCP client to start (or reach) this Pinax."""
    if http_url is not None and "://" not in http_url:
        fail(f"--http-url {http_url!r} is not a URL (e.g. {DEFAULT_HTTP_URL})")
    if not docs and http_url is None and client != "http":
        typer.echo(
            "pinax: note: no --docs given; the server will start with none (add --docs)",
            err=True,
        )
    args = serve_args(docs or [], cache_dir, allow_private, site_url)
    typer.echo(f"pinax: {WHERE[client]}:", err=True)
    typer.echo(snippet(client, args, http_url))
