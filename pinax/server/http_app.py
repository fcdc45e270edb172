"""Streamable HTTP for `pinax serve --http`: loopback by default, a bearer token beyond it.

Stateless by default: every request stands alone (the SDK's `stateless_http`), so any replica
behind a load balancer can answer any client, and answers are one JSON body each (the SDK's
`json_response`; a 2026-07-28 `subscriptions/listen` still streams). A handshake-era client's
`initialize` is answered and nothing is kept: its later requests need no session. `--sessions`
keeps server-held sessions and SSE answers (the SDK's idle timeout and cap on them), for a
client that needs progress or change notifications on a handshake-era connection.

Every request but `GET /health` and `GET /ready` must carry the token when one is set
(compared in constant time). Host and Origin headers are checked against an allow-list on
every MCP request, so a web page cannot reach the server through DNS rebinding; behind a
proxy named by `--forwarded-allow-ips`, the checks read the public name it forwards
(X-Forwarded-Host) and the client's address (X-Forwarded-For). `/health` and `/ready`
answer from memory.

Clients are hostile too. Each connection must deliver a complete request (headers and body)
within REQUEST_TIMEOUT of its first byte (or of connecting), and may idle KEEP_ALIVE between
requests; at most `max_connections()` are open at once, and one past that is closed at once.
Each refusal is one short log line, at most one a second.
"""

from __future__ import annotations

import contextlib
import hmac
import ipaddress
import socket
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from pinax import __version__
from pinax.server.forwarded import Forwarded, TrustedProxies

if TYPE_CHECKING:  # the SDK is imported only when serving, so a refused start-up is quick
    from mcp.server.mcpserver import MCPServer
    from starlette.types import ASGIApp, Receive, Scope, Send

MCP_PATH = "/mcp"
HEALTH_PATH = "/health"
READY_PATH = "/ready"
MIN_TOKEN_LENGTH = 16
REQUEST_TIMEOUT = 10.0  # seconds from a request's first byte (or the connection) to its end
KEEP_ALIVE = 5.0  # seconds an idle connection stays open between requests
SESSION_IDLE_TIMEOUT = 300.0  # with --sessions: seconds a session lives unused
MAX_SESSIONS = 1_000  # with --sessions: about 50 KB each; the SDK refuses more with 503
LOOPBACK_NAMES = ("127.0.0.1", "localhost", "[::1]")
# What a 401 says: a fixed token in a header, no OAuth. The challenge names the scheme only
# (HTTP wants one on a 401) and carries no `resource_metadata`, the parameter by which the MCP
# authorization spec has a server advertise OAuth; no /.well-known metadata is served either.
# OAuth-first clients (the MCP Inspector) still try discovery on any 401, and then show this
# body: it says what to set instead.
UNAUTHORIZED = (
    b'{"error":"unauthorized","message":"this server needs \'Authorization: Bearer <token>\' '
    b"(set it in the client's headers; the token is the server's PINAX_TOKEN). "
    b'Pinax has no OAuth: do not sign in."}'
)


@dataclass
class HttpSettings:
    host: str = "127.0.0.1"
    port: int = 8765
    token: str | None = None
    allow_hosts: list[str] = field(default_factory=list)  # extra Host values, e.g. docs.corp:*
    allow_origins: list[str] = field(default_factory=list)  # extra Origins, e.g. https://x.y
    sessions: bool = False  # server-held sessions and SSE answers, instead of stateless JSON
    forwarded_allow_ips: list[str] = field(default_factory=list)  # proxies trusted, e.g. 10.0.0.0/8

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
        if problem := TrustedProxies.problem(self.forwarded_allow_ips):
            return problem
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


class _Refusals:
    """One short log line per refusal, at most one a second (the rest counted into it)."""

    def __init__(self) -> None:
        self.last = 0.0
        self.skipped = 0

    def note(self, what: str) -> None:
        import logging
        import time

        now = time.monotonic()
        if now - self.last < 1.0:
            self.skipped += 1
            return
        more = f" (and {self.skipped} more since the last line)" if self.skipped else ""
        logging.getLogger("pinax.http").warning("%s%s", what, more)
        self.last, self.skipped = now, 0


_refusals = _Refusals()


def max_connections() -> int:
    """Open connections allowed: well under the file-descriptor limit, so accepting never
    fails (and never logs a traceback per attempt), with room for fetches and the cache."""
    try:
        import resource

        soft = resource.getrlimit(resource.RLIMIT_NOFILE)[0]
        if soft == resource.RLIM_INFINITY:
            soft = 65536
    except (ImportError, OSError, ValueError):
        soft = 1024
    return max(16, min(1000, soft // 2))


def guarded_protocol() -> type:
    """uvicorn's httptools protocol with a deadline per request and a cap on connections.

    httptools (uvicorn's C parser) on uvloop answered about 1.2x the requests of h11 on
    asyncio, for the SDK's own server and for Pinax alike; granian, no faster for Pinax,
    runs apps on threads of its own (bench/speed/http.py --asgi)."""
    from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol

    limit = max_connections()
    state = {"open": 0}

    class Guarded(HttpToolsProtocol):
        _deadline: Any = None
        _counted = False

        def connection_made(self, transport: Any) -> None:  # type: ignore[override]
            super().connection_made(transport)
            if state["open"] >= limit:
                _refusals.note(f"refused a connection: {limit} are open")
                transport.abort()
                return
            state["open"] += 1
            self._counted = True
            self._arm()

        def connection_lost(self, exc: Exception | None) -> None:
            if self._counted:
                state["open"] -= 1
                self._counted = False
            self._disarm()
            super().connection_lost(exc)

        def on_message_begin(self) -> None:
            super().on_message_begin()
            self._arm()  # a new request began (on a new or a kept-alive connection)

        def on_message_complete(self) -> None:
            super().on_message_complete()
            self._disarm()  # the request is in: the app's answer takes what it takes

        def on_response_complete(self) -> None:
            super().on_response_complete()
            self._disarm()  # uvicorn's keep-alive timer takes over

        def _arm(self) -> None:
            self._disarm()
            self._deadline = self.loop.call_later(REQUEST_TIMEOUT, self._expire)

        def _disarm(self) -> None:
            if self._deadline is not None:
                self._deadline.cancel()
                self._deadline = None

        def _expire(self) -> None:
            self._deadline = None
            if not self.transport.is_closing():
                _refusals.note(
                    f"closed a connection that sent no complete request in {REQUEST_TIMEOUT:g} s"
                )
                self.transport.abort()

    return Guarded


def build_app(
    mcp: MCPServer, settings: HttpSettings, readiness: Callable[[], dict[str, Any]] | None = None
) -> ASGIApp:
    """The ASGI app: MCP at /mcp, /health and /ready, Host/Origin checks, the forwarded
    headers of trusted proxies, and the token if set. `readiness()` says what /ready shows
    (the server's own `readiness()` by default); its "ready" key decides 200 or 503."""
    from contextlib import AsyncExitStack, asynccontextmanager

    from mcp.server.streamable_http_manager import StreamableHTTPASGIApp
    from mcp.server.transport_security import TransportSecuritySettings
    from starlette.applications import Starlette
    from starlette.requests import Request
    from starlette.responses import JSONResponse
    from starlette.routing import Route

    from pinax.server.answers import JsonOrSse

    status = readiness or mcp.readiness  # type: ignore[attr-defined]

    async def health(_request: Request) -> JSONResponse:  # alive: from memory, no I/O
        docs = status()["docs"]
        return JSONResponse({"status": "ok", "version": __version__, "docs": docs})

    async def ready(_request: Request) -> JSONResponse:  # loaded and indexed: from memory
        now = status()
        return JSONResponse(now, status_code=200 if now["ready"] else 503)

    security = TransportSecuritySettings(
        enable_dns_rebinding_protection=True,
        allowed_hosts=settings.hosts(),
        allowed_origins=settings.origins(),
    )

    def manager(json_response: bool) -> Any:
        """A session manager over `mcp` (the SDK makes one per app it builds)."""
        mcp.streamable_http_app(
            streamable_http_path=MCP_PATH,
            transport_security=security,
            host=settings.host,
            stateless_http=not settings.sessions,
            json_response=json_response,
            session_idle_timeout=SESSION_IDLE_TIMEOUT,
            max_sessions=MAX_SESSIONS,
        )
        return mcp.session_manager

    managers = [manager(json_response=False)]  # SSE: sessions, or a stateless call that streams
    endpoint: ASGIApp = StreamableHTTPASGIApp(managers[0])
    if not settings.sessions:
        managers.append(manager(json_response=True))
        endpoint = JsonOrSse(StreamableHTTPASGIApp(managers[1]), endpoint)

    @asynccontextmanager
    async def lifespan(_app: Starlette) -> Any:
        async with AsyncExitStack() as stack:  # the server's own lifespan runs once (app.py)
            for each in managers:
                await stack.enter_async_context(each.run())
            yield

    app: ASGIApp = Starlette(
        routes=[
            Route(MCP_PATH, endpoint=endpoint),
            Route(HEALTH_PATH, health, methods=["GET"]),
            Route(READY_PATH, ready, methods=["GET"]),
        ],
        lifespan=lifespan,
    )
    if settings.token:
        app = BearerToken(app, settings.token, frozenset({HEALTH_PATH, READY_PATH}))
    if settings.forwarded_allow_ips:
        app = Forwarded(app, TrustedProxies(settings.forwarded_allow_ips))
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
        timeout_keep_alive=KEEP_ALIVE,
        http=guarded_protocol(),
        proxy_headers=False,  # forwarded.py reads them, from --forwarded-allow-ips only
        lifespan="on",
    )
    await uvicorn.Server(config).serve(sockets=[sock])


def _has_uvloop() -> bool:
    """uvloop is installed wherever it builds (not on Windows): the faster loop if there."""
    import importlib.util

    return importlib.util.find_spec("uvloop") is not None


def describe(settings: HttpSettings) -> str:
    """What a start-up message should say about who may connect."""
    lines = [f"accepted Host headers: {', '.join(settings.hosts())} (add with --allow-host)"]
    if settings.token:
        lines.insert(
            0, "every request except GET /health and /ready needs 'Authorization: Bearer <token>'"
        )
    if settings.forwarded_allow_ips:
        proxies = ", ".join(settings.forwarded_allow_ips)
        lines.append(f"forwarded Host and client address read from proxies at: {proxies}")
    return "\n".join(lines)


def run(mcp: MCPServer, settings: HttpSettings, log_level: str, say: Callable[[str], None]) -> None:
    """Listen, `say` where and who may connect, and serve until interrupted; OSError if the
    address cannot be had."""
    import anyio

    sock = bind(settings.host, settings.port)
    app = build_app(mcp, settings)
    mode = "sessions, SSE" if settings.sessions else "stateless, JSON"
    say(f"serving MCP at {url_of(sock)} ({mode}; health: /health, readiness: /ready)")
    say(describe(settings))
    with contextlib.suppress(KeyboardInterrupt):  # uvicorn has shut down cleanly by then
        anyio.run(serve, app, sock, log_level, backend_options={"use_uvloop": _has_uvloop()})
