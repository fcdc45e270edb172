"""The MCP binding: the tools of `tools.py` as declared in `toolspecs.py` (resources.py adds
the resources).

Each tool takes its arguments loosely (aliases resolved, then checked by `tools.py`), so a bad
argument comes back as the same `invalid_args` result the CLI prints. A result carries
`structuredContent` and a readable text rendering; an error carries its JSON in the text block
only, with `isError: true`, the one shape every client accepts (notes/mcp-sdk-2.md, pitfall 2).

The docs are read through `current()` at every call, so a live reload (reload.py) swaps the
whole library between two calls; clients are told through both protocol eras' channels.
"""

from __future__ import annotations

import json
import logging
import threading
import time
import weakref
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from functools import partial
from inspect import iscoroutinefunction
from typing import Any

import anyio
from mcp import types
from mcp.server.lowlevel import NotificationOptions
from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.tools import Tool
from mcp.server.mcpserver.utilities.func_metadata import ArgModelBase, FuncMetadata
from mcp.server.subscriptions import InMemorySubscriptionBus, ResourcesListChanged
from mcp.types import CallToolResult, Resource, TextContent, ToolAnnotations
from mcp_types.version import MODERN_PROTOCOL_VERSIONS
from pydantic import ConfigDict

from pinax import __version__
from pinax.errors import NotFound, PinaxError, error_result
from pinax.hints import closest_names, did_you_mean
from pinax.server.reload import LiveTools, generation
from pinax.server.render import render
from pinax.server.resources import add_resources, docs_resources
from pinax.server.roots import ClientRoots
from pinax.server.specs import ToolSpec, bind, input_schema
from pinax.server.toolspecs import SPECS
from pinax.tools import Tools

log = logging.getLogger("pinax.server")

INSTRUCTIONS = (
    "Pinax indexes documentation sites so you can read the docs as they are today.\n"
    "Find pages with search_pages (or browse: list_docs, list_sections, get_section_pages),\n"
    "then read one with get_page(url) before relying on an API; errors say how to recover."
)
PROGRESS_EVERY = 1.0  # seconds between progress notifications of a slow call


class _AnyArguments(ArgModelBase):
    """Takes every argument as sent: `toolspecs.bind` and `tools.py` do the checking."""

    model_config = ConfigDict(extra="allow")

    def model_dump_one_level(self) -> dict[str, Any]:
        return dict(self.model_extra or {})


def _text(text: str) -> list[TextContent]:
    return [TextContent(type="text", text=text)]


def _success(tool: str, data: dict[str, Any]) -> CallToolResult:
    return CallToolResult(content=_text(render(tool, data)), structured_content=data)


def _failure(tool: str, exc: Exception) -> CallToolResult:
    error = error_result(exc)
    if not isinstance(exc, PinaxError):
        log.error("%s failed unexpectedly", tool, exc_info=exc)
    text = json.dumps(error, ensure_ascii=False, separators=(",", ":"))
    return CallToolResult(content=_text(text), is_error=True)


async def _heartbeat(ctx: Context, what: str) -> None:
    """Progress every second while a slow call runs: keeps clients' timeouts from firing."""
    started = time.monotonic()
    beats = 0
    while True:
        await anyio.sleep(PROGRESS_EVERY)
        beats += 1
        message = f"{what}: {time.monotonic() - started:.0f} s"
        try:
            await ctx.report_progress(beats, None, message)
        except Exception:  # the client went away; the call itself will notice
            return


class Announcer:
    """Tells every connected client that the resources changed, in both protocol eras."""

    def __init__(self) -> None:
        self.bus = InMemorySubscriptionBus()  # 2026-07-28 clients listen here
        self._connections: weakref.WeakSet[Any] = weakref.WeakSet()  # handshake-era clients

    async def track(self, ctx: Any, call_next: Callable[[Any], Awaitable[Any]]) -> Any:
        """Middleware: remember each handshake-era connection, to notify it later.

        The SDK builds a session object per request; the connection behind it is what lasts
        (and what a closed client's garbage collection removes from the weak set). No public
        attribute leads to it in mcp 2.3.
        """
        if ctx.protocol_version not in MODERN_PROTOCOL_VERSIONS:
            self._connections.add(ctx.session._connection)
        return await call_next(ctx)

    async def resources_changed(self) -> None:
        await self.bus.publish(ResourcesListChanged())
        for connection in list(self._connections):
            with anyio.move_on_after(5):  # best effort: the SDK drops it for a closed client
                await connection.send_resource_list_changed()


class PinaxServer(MCPServer):
    """MCPServer whose resource list follows the loaded manifests."""

    def __init__(
        self, current: Callable[[], Tools], named: Callable[[], str], **kwargs: Any
    ) -> None:
        super().__init__(**kwargs)
        self._current = current
        self._named = named

    def loaded_docs(self) -> list[dict[str, Any]]:
        return self._current().list_docs()["docs"]

    def readiness(self) -> dict[str, Any]:
        """What /ready shows, from memory: whether every search index is built, which
        generation of the manifests is served, and how many docs sets and pages."""
        tools, name = self._current(), self._named()  # one step on the loop: one generation
        docs = tools.library.all()
        return {
            "ready": tools.library.ready,
            "generation": name,
            "docs": len(docs),
            "pages": sum(len(d.pages) for d in docs),
            "content_pending": tools.library.content_pending,
        }

    async def list_resources(self) -> list[Resource]:
        return [*await super().list_resources(), *docs_resources(self.loaded_docs())]

    async def call_tool(
        self, name: str, arguments: dict[str, Any], context: Context[Any, Any] | None = None
    ) -> Any:
        """An unknown tool answers in the error shape of every other failure (the SDK's own
        answer is plain text: `Unknown tool: x`)."""
        if self._tool_manager.get_tool(name) is None:
            return _failure(name, unknown_tool(name, [spec.name for spec in SPECS]))
        return await super().call_tool(name, arguments, context)


def unknown_tool(name: str, known: list[str]) -> NotFound:
    """`not_found` for a tool name, with the closest names (a long name shown cut short)."""
    shown = name if len(name) <= 80 else name[:80] + "..."
    hint = did_you_mean(closest_names(name[:200], known, limit=2))
    return NotFound(f"no tool named {shown!r}{hint}; tools: {', '.join(known)}")


def create_server(
    source: Tools | LiveTools,
    warm: bool = True,
    after_warm: Callable[[], None] | None = None,
) -> MCPServer:
    """An MCP server over `source`; `warm` builds the search indexes in the background, then
    calls `after_warm()` there."""
    live = source if isinstance(source, LiveTools) else None

    def current() -> Tools:
        return live.tools if live is not None else source  # type: ignore[return-value]

    announcer = Announcer()
    roots = ClientRoots(current)
    fixed = generation(current()) if live is None else ""

    def named() -> str:
        return live.generation if live is not None else fixed

    pending = current().library.content_pending  # page text to index after start-up

    entered = [0]  # HTTP runs two session managers (answers.py), each entering the lifespan

    @asynccontextmanager
    async def lifespan(_server: MCPServer) -> AsyncIterator[dict[str, Any]]:
        if entered[0]:  # already running: the work below is done once per process
            entered[0] += 1
            try:
                yield {}
            finally:
                entered[0] -= 1
            return
        entered[0] = 1
        native = _NativeWork()
        if warm:
            threading.Thread(
                target=_warm, args=(current(), after_warm, native), name="pinax-warm", daemon=True
            ).start()
        try:
            async with anyio.create_task_group() as tasks:
                if live is not None:
                    tasks.start_soon(live.watch, announcer.resources_changed)
                if warm and pending:
                    tasks.start_soon(_announce_content, current, announcer)
                yield {}
                tasks.cancel_scope.cancel()
        finally:
            entered[0] = 0
            await anyio.to_thread.run_sync(native.stop)

    mcp = PinaxServer(
        current,
        named,
        name="pinax",
        version=__version__,
        instructions=INSTRUCTIONS,
        lifespan=lifespan,
        log_level=logging.getLevelName(logging.getLogger().getEffectiveLevel()),
        subscriptions=announcer.bus,
        tools=[_tool(spec, current) for spec in SPECS],
        middleware=[announcer.track, roots.track],
    )
    mcp._lowlevel_server.add_notification_handler(
        "notifications/roots/list_changed", types.NotificationParams, roots.changed
    )
    _advertise_list_changed(mcp, resources=live is not None or pending)
    add_resources(mcp, current)
    return mcp


class _NativeWork:
    """Work on the warm-up thread that the process must not exit under. Making the page
    reader loads the TLS context inside OpenSSL, outside the GIL: a server told to stop then
    (its client gone at once) ran OpenSSL's exit handlers beside it and crashed. Such work
    runs only while the server is not stopping, and stopping waits for it (a fraction of a
    second); the rest of the warm-up (the indexes) is Python's to stop."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._stopping = False

    def run(self, work: Callable[[], None]) -> None:
        with self._lock:
            if not self._stopping:
                work()

    def stop(self) -> None:
        with self._lock:
            self._stopping = True


def _warm(tools: Tools, after: Callable[[], None] | None, native: _NativeWork) -> None:
    """The search indexes built, and the page reader made, before clients need them."""
    started = time.perf_counter()
    tools.library.warm()
    native.run(tools.warm_pages)
    if after is not None:
        after()
    log.info("warm: search indexes built and page reader made in %.2f s", _ms(started) / 1000)


async def _announce_content(current: Callable[[], Tools], announcer: Announcer) -> None:
    """Once the pages' text is searched too, say so: list_docs (a resource) has changed.
    Until then search_pages answers from titles and headings."""
    while current().library.content_pending:
        await anyio.sleep(0.2)
    await announcer.resources_changed()


def _tool(spec: ToolSpec, current: Callable[[], Tools]) -> Tool:
    """The MCP tool for one spec: schema from the spec, behaviour from `Tools`."""
    args = spec.accepted(getattr(Tools, spec.name))
    is_async = iscoroutinefunction(getattr(Tools, spec.name))

    async def execute(arguments: dict[str, Any]) -> dict[str, Any] | Exception:
        """The result, or the exception it raised (cancellation still propagates)."""
        try:
            kwargs = bind(spec, args, arguments)
            tools = current()
            method = getattr(tools, spec.name)
            if is_async:
                return await method(**kwargs)
            if tools.library.ready:  # answered from memory in about a millisecond at most:
                return method(**kwargs)  # cheaper here than a hop to a worker thread
            return await anyio.to_thread.run_sync(partial(method, **kwargs))
        except Exception as exc:
            return exc

    async def run(ctx: Context, **arguments: Any) -> CallToolResult:
        started = time.perf_counter()
        log.debug("%s called with %r", spec.name, arguments)
        try:
            if is_async:  # async tools reach the network: report progress while they run
                async with anyio.create_task_group() as beat:
                    beat.start_soon(_heartbeat, ctx, f"{spec.title} ({spec.name})")
                    data = await execute(arguments)
                    beat.cancel_scope.cancel()
            else:
                data = await execute(arguments)
        except anyio.get_cancelled_exc_class():
            log.info("%s cancelled after %.1f ms", spec.name, _ms(started))
            raise
        if isinstance(data, Exception):
            result = _failure(spec.name, data)
            outcome = f"error {error_result(data)['error']['code']}"
        else:
            result, outcome = _success(spec.name, data), "ok"
        log.info("%s %s in %.1f ms", spec.name, outcome, _ms(started))
        return result

    return Tool(
        fn=run,
        name=spec.name,
        title=spec.title,
        description=spec.description,
        parameters=input_schema(args),
        fn_metadata=FuncMetadata(arg_model=_AnyArguments, output_schema=spec.output),
        is_async=True,
        context_kwarg="ctx",
        annotations=ToolAnnotations(
            title=spec.title,
            read_only_hint=True,
            destructive_hint=False,
            idempotent_hint=True,
            open_world_hint=spec.open_world,
        ),
    )


def _ms(started: float) -> float:
    return (time.perf_counter() - started) * 1000


def _advertise_list_changed(mcp: MCPServer, resources: bool) -> None:
    """Say `listChanged` truthfully to handshake-era clients (notes/mcp-sdk-2.md, pitfall 4).

    MCPServer offers no setting for it, so the low-level server's initialization options get
    the right default for every transport.
    """
    low = mcp._lowlevel_server
    original = low.create_initialization_options
    options = NotificationOptions(resources_changed=resources)

    def with_notifications(notification_options: Any = None, *args: Any, **kw: Any) -> Any:
        return original(notification_options or options, *args, **kw)

    low.create_initialization_options = with_notifications  # type: ignore[method-assign]
