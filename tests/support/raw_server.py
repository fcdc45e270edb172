"""A loopback TCP server that answers with raw bytes, for answers no HTTP library would send:
bodies that never end, bytes that trickle, connections reset mid-body, TLS that fails.

`with RawServer(handler) as server:` runs `handler(connection)` on a thread for each
connection, after the request head was read; `server.sent` counts the body bytes written.
"""

from __future__ import annotations

import contextlib
import socket
import ssl
import struct
import threading
import time
from collections.abc import Callable, Iterator


class RawServer:
    def __init__(
        self,
        handler: Callable[[RawServer, socket.socket], None],
        tls: ssl.SSLContext | None = None,
    ) -> None:
        self.handler = handler
        self.tls = tls
        self.sent = 0
        self.connections = 0
        self._socket: socket.socket | None = None
        self._closed = threading.Event()

    @property
    def port(self) -> int:
        assert self._socket is not None
        return self._socket.getsockname()[1]

    def url(self, path: str = "/", host: str = "127.0.0.1") -> str:
        scheme = "https" if self.tls else "http"
        return f"{scheme}://{host}:{self.port}{path}"

    def send(self, connection: socket.socket, data: bytes) -> bool:
        """Write `data`; False once the client has gone."""
        try:
            connection.sendall(data)
        except OSError:
            return False
        self.sent += len(data)
        return True

    def stream(self, connection: socket.socket, chunks: Iterator[bytes], pause: float = 0) -> None:
        """Send chunks until they run out, the client leaves or the server stops."""
        for chunk in chunks:
            if self._closed.is_set() or not self.send(connection, chunk):
                return
            if pause:
                time.sleep(pause)

    def __enter__(self) -> RawServer:
        self._socket = socket.create_server(("127.0.0.1", 0))
        threading.Thread(target=self._accept, daemon=True).start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._closed.set()
        assert self._socket is not None
        with contextlib.suppress(OSError):
            self._socket.shutdown(socket.SHUT_RDWR)  # wakes accept(); close() alone does not
        self._socket.close()

    def _accept(self) -> None:
        assert self._socket is not None
        while not self._closed.is_set():
            try:
                connection, _ = self._socket.accept()
            except OSError:
                return
            self.connections += 1
            threading.Thread(target=self._serve, args=(connection,), daemon=True).start()

    def _serve(self, connection: socket.socket) -> None:
        try:
            if self.tls is not None:
                connection = self.tls.wrap_socket(connection, server_side=True)
            head = b""
            while b"\r\n\r\n" not in head:
                data = connection.recv(4096)
                if not data:
                    return
                head += data
            self.handler(self, connection)
        except (OSError, ssl.SSLError):
            pass
        finally:
            connection.close()


def head(status: str = "200 OK", **headers: str) -> bytes:
    """A response head; keyword names use '_' for '-' (content_type=...)."""
    lines = [f"HTTP/1.1 {status}"] + [f"{k.replace('_', '-')}: {v}" for k, v in headers.items()]
    return ("\r\n".join(lines) + "\r\n\r\n").encode()


def reset(connection: socket.socket) -> None:
    """Close with a TCP RST instead of a FIN: the peer sees 'connection reset'."""
    connection.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
    connection.close()
