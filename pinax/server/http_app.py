"""Streamable HTTP for `pinax serve --http`: loopback by default, a bearer token beyond it.

Every request but `GET /health` must carry the token when one is set (compared in constant
time). Host and Origin headers are checked against an allow-list on every MCP request, so a
web page cannot reach the server through DNS rebinding. `/health` answers from memory.
"""

from __future__ import annotations

import contextlib
import hmac
import ipaddress
import socket
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from pinax import __version__

if TYPE_CHECKING:  # the SDK is imported only when serving, so a refused start-up is quick
    from mcp.server.mcpserver import MCPServer
    from starlette.types import ASGIApp, Receive, Scope, Send

MCP_PATH = "/mcp"
HEALTH_PATH = "/health"
MIN_TOKEN_LENGTH = 16
LOOPBACK_NAMES = ("127.0.0.1", "localhost", "[::1]")
UNAUTHORIZED = b'{"error":"unauthorized","message":"send Authorization: Bearer <token>"}'


@dataclass
class HttpSettings:
    host: str = "127.0.0.1"
    port: int = 8765
    token: str | None = None
    allow_hosts: list[str] = field(default_factory=list)  # extra Host values, e.g. docs.corp:*
    allow_origins: list[str] = field(default_factory=list)  # extra Origins, e.g. https://x.y

    @property
    def loopback(self) -> bool:
        return is_loopback(self.host)

    def problem(self) -> str | None:
        """Why these settings must not be served, if they must not."""
        if self.token is not None and len(self.token) < MIN_TOKEN_LENGTH:
            return (
                f"the token must be at least {MIN_TOKEN_LENGTH} characters; make one with "
                "python -c 'import secrets; print(secrets.token_urlsafe(32))'"
            )
        if not self.loopback and not self.token:
            return (
                f"--host {self.host} serves beyond this machine, so a bearer token is required: "
                "set PINAX_TOKEN (or --token)"
            )
        return None

    def hosts(self) -> list[str]:
        """Host header values accepted: loopback, the bound name, this machine, the extras."""
        names = [*LOOPBACK_NAMES]
        if not self.loopback:
            bound = self.host.strip("[]")
            wildcard = bound in ("0.0.0.0", "::", "")
            names.append(socket.gethostname() if wildcard else _bracketed(bound))
        allowed = [f"{name}:*" for name in names]
        for extra in self.allow_hosts:
            allowed += [extra] if extra.endswith(":*") else [extra, f"{extra}:*"]
        return list(dict.fromkeys(allowed))

    def origins(self) -> list[str]:
        loopback = [
            f"{scheme}://{name}:*" for scheme in ("http", "https") for name in LOOPBACK_NAMES
        ]
        return list(dict.fromkeys([*loopback, *self.allow_origins]))


def _bracketed(host: str) -> str:
    try:
        return f"[{host}]" if ipaddress.ip_address(host).version == 6 else host
    except ValueError:
        return host


def is_loopback(host: str) -> bool:
    """True when every address `host` names is on this machine only."""
    try:
        infos = socket.getaddrinfo(host.strip("[]"), None, type=socket.SOCK_STREAM)
    except socket.gaierror:
        return False
    return bool(infos) and all(ipaddress.ip_address(info[4][0]).is_loopback for info in infos)


class BearerToken:
    """ASGI middleware: 401 unless `Authorization: Bearer <token>`; some paths are open."""

    def __init__(self, app: ASGIApp, token: str, open_paths: frozenset[str]) -> None:
        self.app = app
        self.token = token.encode()
        self.open_paths = open_paths

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope["path"] in self.open_paths or self._allowed(scope):
            await self.app(scope, receive, send)
            return
        headers = [
            (b"content-type", b"application/json"),
            (b"www-authenticate", b'Bearer realm="pinax"'),
        ]
        await send({"type": "http.response.start", "status": 401, "headers": headers})
        await send({"type": "http.response.body", "body": UNAUTHORIZED})

    def _allowed(self, scope: Scope) -> bool:
        for name, value in scope["headers"]:
            if name == b"authorization":
                scheme, _, given = value.partition(b" ")
                return scheme.lower() == b"bearer" and hmac.compare_digest(
                    given.strip(), self.token
                )
        return False


def build_app(mcp: MCPServer, settings: HttpSettings, docs_count: Callable[[], int]) -> ASGIApp:
    """The ASGI app: MCP at /mcp, /health, Host/Origin checks, and the token if set."""
    from mcp.server.transport_security import TransportSecuritySettings
    from starlette.requests import Request
    from starlette.responses import JSONResponse

    @mcp.custom_route(HEALTH_PATH, methods=["GET"])
    async def health(_request: Request) -> JSONResponse:  # from memory, no I/O
        return JSONResponse({"status": "ok", "version": __version__, "docs": docs_count()})

    security = TransportSecuritySettings(
        enable_dns_rebinding_protection=True,
        allowed_hosts=settings.hosts(),
        allowed_origins=settings.origins(),
    )
    app: ASGIApp = mcp.streamable_http_app(
        streamable_http_path=MCP_PATH, transport_security=security, host=settings.host
    )
    if settings.token:
        app = BearerToken(app, settings.token, frozenset({HEALTH_PATH}))
    return app


def bind(host: str, port: int) -> socket.socket:
    """A listening-ready socket (port 0 picks a free one); OSError if the address is taken."""
    family, kind, proto, _, address = socket.getaddrinfo(
        host.strip("[]"), port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE
    )[0]
    sock = socket.socket(family, kind, proto)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind(address)
    except OSError:
        sock.close()
        raise
    return sock


def url_of(sock: socket.socket) -> str:
    host, port = sock.getsockname()[:2]
    return f"http://{_bracketed(host)}:{port}{MCP_PATH}"


async def serve(app: ASGIApp, sock: socket.socket, log_level: str) -> None:
    """Serve until interrupted; logging stays as the CLI configured it (stderr)."""
    import uvicorn

    config = uvicorn.Config(
        app,
        log_config=None,
        log_level=log_level.lower(),
        access_log=False,  # an access log line would carry client addresses and paths
        timeout_graceful_shutdown=3,
        lifespan="on",
    )
    await uvicorn.Server(config).serve(sockets=[sock])


def describe(settings: HttpSettings) -> str:
    """What a start-up message should say about who may connect."""
    lines = [f"accepted Host headers: {', '.join(settings.hosts())} (add with --allow-host)"]
    if settings.token:
        lines.insert(0, "every request except GET /health needs 'Authorization: Bearer <token>'")
    return "\n".join(lines)


def run(mcp: MCPServer, settings: HttpSettings, log_level: str, say: Callable[[str], None]) -> None:
    """Listen, `say` where and who may connect, and serve until interrupted; OSError if the
    address cannot be had."""
    import anyio

    sock = bind(settings.host, settings.port)
    app = build_app(mcp, settings, lambda: len(mcp.loaded_docs()))
    say(f"serving MCP at {url_of(sock)} (health: /health)")
    say(describe(settings))
    with contextlib.suppress(KeyboardInterrupt):  # uvicorn has shut down cleanly by then
        anyio.run(serve, app, sock, log_level)
