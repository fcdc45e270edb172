"""Streamable HTTP for `pinax serve --http`: loopback by default, a bearer token beyond it.

Every request but `GET /health` must carry the token when one is set (compared in constant
time). Host and Origin headers are checked against an allow-list on every MCP request, so a
web page cannot reach the server through DNS rebinding. `/health` answers from memory.

Clients are hostile too. Each connection must deliver a complete request (headers and body)
within REQUEST_TIMEOUT of its first byte (or of connecting), and may idle KEEP_ALIVE between
requests; at most `max_connections()` are open at once, and one past that is closed at once.
Each refusal is one short log line, at most one a second. Sessions (handshake-era clients)
expire after SESSION_IDLE_TIMEOUT without a request in flight, and the table holds at most
MAX_SESSIONS: near full, the sessions idle longest are closed to make room. At most
MAX_UNCONFIRMED sessions wait for their client's second request (a flood of `initialize`
requests never sends one), the oldest closed first.
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

if TYPE_CHECKING:  # the SDK is imported only when serving, so a refused start-up is quick
    from mcp.server.mcpserver import MCPServer
    from starlette.types import ASGIApp, Receive, Scope, Send

MCP_PATH = "/mcp"
HEALTH_PATH = "/health"
MIN_TOKEN_LENGTH = 16
REQUEST_TIMEOUT = 10.0  # seconds from a request's first byte (or the connection) to its end
KEEP_ALIVE = 5.0  # seconds an idle connection stays open between requests
SESSION_IDLE_TIMEOUT = 300.0  # seconds a session lives without a request in flight
MAX_SESSIONS = 1_000  # about 50 KB each
MAX_UNCONFIRMED = 64  # sessions whose client has not come back since its initialize
_ROOM = 0.9  # past this share of MAX_SESSIONS, idle sessions are closed oldest first
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


class BoundedSessions:
    """ASGI middleware: before a request that would open a session, make room, so new clients
    get in and memory stays flat. (The SDK alone refuses new sessions with 503 until old ones
    expire.)

    A session costs about 200 objects the garbage collector walks at each full collection,
    ~0.2 ms of every client's time per session on a 2-core machine, and a flood of
    `initialize` requests made a thousand of them: stalls of 200 to 500 ms. So sessions whose
    client has not come back since its `initialize` (a real client sends
    `notifications/initialized` at once) are held to MAX_UNCONFIRMED, the oldest closed
    first; and when the whole table is nearly full, the sessions idle longest are closed.
    """

    def __init__(
        self,
        app: ASGIApp,
        mcp: MCPServer,
        limit: int = MAX_SESSIONS,
        unconfirmed: int = MAX_UNCONFIRMED,
    ) -> None:
        self.app = app
        self.mcp = mcp
        self.limit = limit
        self.unconfirmed_limit = unconfirmed
        self.unconfirmed: dict[str, None] = {}  # session ids, oldest first

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        session = next((v for k, v in scope["headers"] if k == b"mcp-session-id"), None)
        if session is not None:
            self.unconfirmed.pop(session.decode("latin-1"), None)  # its client came back
        elif scope.get("method") == "POST":
            self.make_room()
            send = self._noting_new_session(send)
        await self.app(scope, receive, send)

    def _noting_new_session(self, send: Send) -> Send:
        """`send`, noting the session id a successful answer opens, as unconfirmed."""

        async def noting(message: Any) -> None:
            if message["type"] == "http.response.start" and message["status"] < 400:
                for name, value in message.get("headers", ()):
                    if name.lower() == b"mcp-session-id":
                        self.unconfirmed[value.decode("latin-1")] = None
            await send(message)

        return noting

    def make_room(self) -> int:
        """Close unconfirmed sessions past their limit, oldest first; then, when the table is
        nearly full, idle sessions, longest idle first, down to _ROOM of the limit. Say how
        many were closed."""
        # The SDK's session table (a private attribute; without it, nothing is closed).
        sessions = getattr(self.mcp.session_manager, "_server_instances", None)
        if not isinstance(sessions, dict):
            return 0
        closed = 0
        while len(self.unconfirmed) >= self.unconfirmed_limit:
            oldest = next(iter(self.unconfirmed))
            del self.unconfirmed[oldest]
            # Closed even if its opening answer is still being sent: MAX_UNCONFIRMED newer
            # sessions opened since, and a real client comes back within milliseconds.
            scope = getattr(sessions.get(oldest), "idle_scope", None)
            if scope is not None and not scope.cancel_called:
                scope.cancel()
                closed += 1
        keep = int(self.limit * _ROOM)
        if len(sessions) - closed >= keep:
            idle = []
            for transport in list(sessions.values()):
                scope = _idle_scope(transport)
                if scope is not None:
                    idle.append((scope.deadline, id(scope), scope))
            idle.sort()
            closing = idle[: len(sessions) - closed - keep + 1]
            for _, _, scope in closing:
                scope.cancel()
            closed += len(closing)
            _refusals.note(f"session table nearly full: closed {len(closing)} idle sessions")
        return closed


def _idle_scope(transport: Any) -> Any:
    """The session's idle scope when it is idle (no request in flight) and still open."""
    scope = getattr(transport, "idle_scope", None)
    if scope is None or scope.cancel_called or scope.deadline == float("inf"):
        return None
    return scope


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
    """uvicorn's h11 protocol with a deadline per request and a cap on connections."""
    import h11
    from uvicorn.protocols.http.h11_impl import H11Protocol

    limit = max_connections()
    state = {"open": 0}

    class Guarded(H11Protocol):
        _deadline: Any = None
        _counted = False

        def connection_made(self, transport: Any) -> None:
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

        def data_received(self, data: bytes) -> None:
            super().data_received(data)
            if self.conn.their_state in (h11.DONE, h11.MUST_CLOSE, h11.CLOSED):
                self._disarm()  # the request is in: the app's answer takes what it takes
            elif self._deadline is None:
                self._arm()  # a new request began on a kept-alive connection

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
        streamable_http_path=MCP_PATH,
        transport_security=security,
        host=settings.host,
        session_idle_timeout=SESSION_IDLE_TIMEOUT,
        max_sessions=MAX_SESSIONS,
    )
    app = BoundedSessions(app, mcp)
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
        timeout_keep_alive=KEEP_ALIVE,
        http=guarded_protocol(),
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
