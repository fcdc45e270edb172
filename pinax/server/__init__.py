"""The MCP binding: tool specs, the server, its stdio and HTTP transports, resources, reload,
and the text the tools answer with.

This package's door, a thin shell over `pinax.tools`. Its names load the MCP SDK on first use,
so a start-up refused for a bad option is quick.

- `create_server(tools)`: the MCP server over a `Tools` (or a `LiveTools` that reloads).
- `serve_stdio(server)`: run it over standard input and output.
- `serve_http(server, HttpSettings(...), ...)`: run it over streamable HTTP.
- `LiveTools`: the current `Tools`, replaced whole when watched manifests change;
  `one_generation(docs)`: the real files `--docs` names now, all of one generation.
- `settle()`: freeze the loaded heap out of the garbage collector's walks (a serving process
  calls it once loaded, and `settle_after_reload()` after reloads), so no client waits on a
  long collection;
  `share_the_gil()`: a short GIL switch interval, so the event loop never waits long on a
  worker thread's CPU-bound work.
"""

from typing import TYPE_CHECKING

from pinax.lazy import lazy_names

if TYPE_CHECKING:
    from pinax.server.app import create_server
    from pinax.server.http_app import HttpSettings
    from pinax.server.http_app import run as serve_http
    from pinax.server.pauses import settle, settle_after_reload, share_the_gil
    from pinax.server.reload import LiveTools, one_generation
    from pinax.server.stdio import serve_stdio

__getattr__ = lazy_names(
    __name__,
    {
        "create_server": "app",
        "serve_stdio": "stdio",
        "HttpSettings": "http_app",
        "serve_http": "http_app:run",
        "LiveTools": "reload",
        "one_generation": "reload",
        "settle": "pauses",
        "settle_after_reload": "pauses",
        "share_the_gil": "pauses",
    },
)

__all__ = [
    "HttpSettings",
    "LiveTools",
    "create_server",
    "one_generation",
    "serve_http",
    "serve_stdio",
    "settle",
    "settle_after_reload",
    "share_the_gil",
]
