"""A client's MCP roots as projects: the folders it has open choose the default scope.

A handshake-era client that declared the `roots` capability is asked for its roots before its
first tool call, and again before the next call after it sends `roots/list_changed`; their
folders are projects beside the server's `--project` ones (`Tools.scope_with_roots`), and the
scope they give is that client's alone (`CALL_SCOPE`, set around each of its calls). A client
without the capability is never asked (a 2026-07-28 client has none: asking would fail).
"""

from __future__ import annotations

import logging
import warnings
import weakref
from collections.abc import Awaitable, Callable
from typing import Any

import anyio
from mcp import types
from mcp_types.version import MODERN_PROTOCOL_VERSIONS

from pinax.tools import CALL_SCOPE, Tools

log = logging.getLogger("pinax.server")
ROOTS_TIMEOUT = 5.0  # seconds a client has to list its roots; then the call goes on without


class ClientRoots:
    """Each connection's roots-given scope, read when first needed and after a change."""

    def __init__(self, current: Callable[[], Tools]) -> None:
        self._current = current
        # connection -> (the Tools the scope was made over, the scope)
        self._scopes: weakref.WeakKeyDictionary[Any, tuple[Tools, Any]] = (
            weakref.WeakKeyDictionary()
        )
        self._stale: weakref.WeakSet[Any] = weakref.WeakSet()

    async def track(self, ctx: Any, call_next: Callable[[Any], Awaitable[Any]]) -> Any:
        """Middleware: a tool call of a client with roots runs in the scope they give."""
        if ctx.method != "tools/call" or ctx.protocol_version in MODERN_PROTOCOL_VERSIONS:
            return await call_next(ctx)
        if not _declares_roots(ctx.session):
            return await call_next(ctx)
        connection = ctx.session._connection  # the lasting connection (see Announcer.track)
        tools = self._current()
        known = self._scopes.get(connection)
        if known is None or known[0] is not tools or connection in self._stale:
            self._stale.discard(connection)
            scope = await self._read(ctx.session, tools)
            self._scopes[connection] = (tools, scope)
        scope = self._scopes[connection][1]
        if scope is None:
            return await call_next(ctx)
        token = CALL_SCOPE.set(scope)
        try:
            return await call_next(ctx)
        finally:
            CALL_SCOPE.reset(token)

    async def changed(self, ctx: Any, _params: Any) -> None:
        """`notifications/roots/list_changed`: read the roots again before the next call."""
        self._stale.add(ctx.session._connection)

    async def _read(self, session: Any, tools: Tools) -> Any:
        try:
            with anyio.fail_after(ROOTS_TIMEOUT), warnings.catch_warnings():
                warnings.simplefilter("ignore", DeprecationWarning)
                found = await session.list_roots()
        except Exception as exc:  # a client that cannot answer keeps the server's scope
            log.warning("the client's roots could not be read (%s)", exc or type(exc).__name__)
            return None
        uris = [str(root.uri) for root in found.roots]
        scope, problems = await anyio.to_thread.run_sync(tools.scope_with_roots, uris)
        for problem in problems:
            log.warning("%s", problem)
        log.info("client roots: %s", ", ".join(uris) or "none")
        return scope


def _declares_roots(session: Any) -> bool:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        wanted = types.ClientCapabilities(roots=types.RootsCapability())
        return bool(session.check_client_capability(wanted))
