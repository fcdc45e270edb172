"""`pinax config CLIENT`: the exact configuration snippet an MCP client needs to start this
Pinax, printed on stdout (where the client keeps it goes to stderr), so it can be pasted or
piped into a file without editing.

The command is the `pinax` that runs this: its console script when started as `pinax`, else
this Python with `-m pinax`; local `--docs` paths and `--cache-dir` are made absolute, since a
client starts servers from a folder of its own choosing.
"""

from __future__ import annotations

import json
import os
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


TOKEN_VARIABLE = "PINAX_TOKEN"


def snippet(
    kind: ClientKind, args: list[str], http_url: str | None = None, token: bool = False
) -> str:
    """The text to paste: JSON for the clients that read a file, a command line for Claude
    Code. `http_url` (or the `http` kind) gives the form that connects to a running server;
    with `token`, that form sends `Authorization: Bearer` from the PINAX_TOKEN variable (by
    reference, in each client's own syntax: the secret itself is never printed)."""
    command = pinax_command()
    if kind == "http" and http_url is None:
        http_url = DEFAULT_HTTP_URL
    bearer = f"Bearer ${{{TOKEN_VARIABLE}}}"
    if kind == "claude-code":
        if not http_url:
            return shlex.join(["claude", "mcp", "add", NAME, "--", *command, *args])
        line = shlex.join(["claude", "mcp", "add", "--transport", "http", NAME, http_url])
        # Double quotes: the shell puts the token in when the command runs.
        return line + (f' --header "Authorization: Bearer ${TOKEN_VARIABLE}"' if token else "")
    local: dict[str, Any] = {"command": command[0], "args": [*command[1:], *args]}
    if kind == "vscode":
        if not http_url:
            return _json({"servers": {NAME: {"type": "stdio", **local}}})
        entry: dict[str, Any] = {"type": "http", "url": http_url}
        if not token:
            return _json({"servers": {NAME: entry}})
        prompt = {"type": "promptString", "id": "pinax-token", "description": "Pinax token"}
        entry["headers"] = {"Authorization": "Bearer ${input:pinax-token}"}
        return _json({"inputs": [{**prompt, "password": True}], "servers": {NAME: entry}})
    if http_url and kind == "claude-desktop":
        entry = {"command": "npx", "args": ["-y", "mcp-remote", http_url]}
        if token:  # mcp-remote puts ${PINAX_AUTH} in; Claude Desktop passes the env as written
            entry["args"] += ["--header", "Authorization:${PINAX_AUTH}"]
            entry["env"] = {"PINAX_AUTH": "Bearer <the server's PINAX_TOKEN>"}
    elif http_url:
        entry = {"type": "http", "url": http_url} if kind == "http" else {"url": http_url}
        if token:
            reference = "Bearer ${env:PINAX_TOKEN}" if kind == "cursor" else bearer
            entry["headers"] = {"Authorization": reference}
    else:
        entry = local
    return _json({"mcpServers": {NAME: entry}})


# Where the token comes from in each client's form, said on stderr when PINAX_TOKEN is set.
TOKEN_NOTE = {
    "claude-desktop": "replace <the server's PINAX_TOKEN> with the token (Claude Desktop "
    "passes env values as written)",
    "claude-code": "the shell puts $PINAX_TOKEN in when you run it (Claude Code then keeps "
    "the token in its configuration)",
    "cursor": "Cursor reads ${env:PINAX_TOKEN} from its environment",
    "vscode": "VS Code asks for the token once (the pinax-token input)",
    "http": "${PINAX_TOKEN} is read from the environment by clients that expand variables; "
    "for others, put the token there",
}


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
    remote = http_url is not None or client == "http"
    if not docs and not remote:
        fail(
            "give --docs (a manifest file, a folder of them, or a docs site URL): a server "
            "started without docs refuses to start; or --http-url URL to reach a running one"
        )
    for value in docs or []:
        if "://" not in value and not Path(value).expanduser().exists():
            fail(f"--docs {value}: no such file or folder (the client's server would not start)")
    token = remote and bool(os.environ.get(TOKEN_VARIABLE))
    args = serve_args(docs or [], cache_dir, allow_private, site_url)
    typer.echo(f"pinax: {WHERE[client]}:", err=True)
    if token:
        typer.echo(f"pinax: with the token from PINAX_TOKEN: {TOKEN_NOTE[client]}", err=True)
    typer.echo(snippet(client, args, http_url, token))
