"""A small real HTTP server on loopback for tests: routes in, requests recorded.

A route answers with fixed bytes or a handler function; the server records every request
(path and headers) so a test can check what reached the network and what did not.
"""

from __future__ import annotations

import sys
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


@dataclass
class Reply:
    status: int = 200
    body: bytes = b""
    headers: dict[str, str] = field(default_factory=dict)


@dataclass
class Request:
    path: str
    headers: dict[str, str]


Handler = Callable[[Request], Reply]


class Site:
    """`with Site() as site: site.add("/x", Reply(body=b"..."))`; `site.url("/x")`."""

    def __init__(self) -> None:
        self.routes: dict[str, Reply | Handler] = {}
        self.requests: list[Request] = []
        self._server: ThreadingHTTPServer | None = None

    def add(self, path: str, reply: Reply | Handler) -> str:
        self.routes[path] = reply
        return self.url(path)

    def url(self, path: str = "/") -> str:
        assert self._server is not None
        host, port = self._server.server_address[:2]
        return f"http://{host}:{port}{path}"

    @property
    def origin(self) -> str:
        return self.url("")

    def hits(self, path: str) -> int:
        return sum(1 for r in self.requests if r.path == path)

    def __enter__(self) -> Site:
        site = self

        class _Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def do_GET(self) -> None:
                request = Request(self.path, {k.lower(): v for k, v in self.headers.items()})
                site.requests.append(request)
                route = site.routes.get(self.path.split("?", 1)[0])
                if route is None:
                    reply = Reply(404, b"not found", {"Content-Type": "text/plain"})
                else:
                    reply = route(request) if callable(route) else route
                self.send_response(reply.status)
                headers = {"Content-Length": str(len(reply.body)), **reply.headers}
                for name, value in headers.items():
                    self.send_header(name, value)
                self.end_headers()
                self.wfile.write(reply.body)

            def log_message(self, *args: Any) -> None:
                pass

        class _Server(ThreadingHTTPServer):
            def handle_error(self, request: Any, client_address: Any) -> None:
                if not isinstance(sys.exc_info()[1], ConnectionError):  # a client hung up early
                    super().handle_error(request, client_address)

        self._server = _Server(("127.0.0.1", 0), _Handler)
        self._server.daemon_threads = True
        threading.Thread(target=self._server.serve_forever, args=(0.05,), daemon=True).start()
        return self

    def __exit__(self, *exc: object) -> None:
        assert self._server is not None
        self._server.shutdown()
        self._server.server_close()
