"""The light load generator of bench/speed/http.py (and, through its `load` command,
bench/speed/replicas.py): closed-loop MCP clients over raw keep-alive sockets.

Light by design, as it shares the cores with the servers it measures: each client is one
connection that speaks one protocol era; a response is read by its framing and checked by a
byte search, never parsed.
"""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

LEGACY = "2025-11-25"
MODERN = "2026-07-28"
CALL_TIMEOUT = 30.0  # seconds: a call not answered by then counts as an error


@dataclass
class Tally:
    """What the clients saw: each call's latency (s) and errors by kind."""

    latencies: list[float] = field(default_factory=list)
    errors: dict[str, int] = field(default_factory=dict)
    all_calls: int = 0  # warm-up included
    cpu: float = 0.0  # the server's CPU seconds meanwhile, when measured

    def error(self, kind: str) -> None:
        self.errors[kind] = self.errors.get(kind, 0) + 1


class HttpError(Exception):
    pass


async def read_response(reader: asyncio.StreamReader) -> tuple[int, dict[bytes, bytes], bytes]:
    """One HTTP/1.1 response: status, lower-cased headers, body (chunks joined)."""
    head = await reader.readuntil(b"\r\n\r\n")
    lines = head.split(b"\r\n")
    status = int(lines[0].split(b" ", 2)[1])
    headers = {}
    for line in lines[1:]:
        if line:
            name, _, value = line.partition(b":")
            headers[name.strip().lower()] = value.strip()
    if b"content-length" in headers:
        body = await reader.readexactly(int(headers[b"content-length"]))
    elif headers.get(b"transfer-encoding", b"").lower() == b"chunked":
        parts = []
        while True:
            size = int((await reader.readuntil(b"\r\n")).split(b";")[0], 16)
            if size == 0:
                await reader.readuntil(b"\r\n")
                break
            parts.append(await reader.readexactly(size))
            await reader.readexactly(2)
        body = b"".join(parts)
    else:
        body = b"" if status in (202, 204, 304) else await reader.read()
    return status, headers, body


def request(host: str, path: str, message: dict[str, Any], headers: dict[str, str]) -> bytes:
    body = json.dumps(message, separators=(",", ":")).encode()
    lines = [
        f"POST {path} HTTP/1.1",
        f"Host: {host}",
        "Content-Type: application/json",
        "Accept: application/json, text/event-stream",
        f"Content-Length: {len(body)}",
        *(f"{k}: {v}" for k, v in headers.items()),
    ]
    return ("\r\n".join(lines) + "\r\n\r\n").encode() + body


@dataclass
class Client:
    """One connection speaking one era to `host:port`."""

    host: str
    port: int
    era: str = LEGACY
    path: str = "/mcp"
    token: str | None = None
    tool: str = "search_pages"
    session: str | None = None
    reader: asyncio.StreamReader | None = None
    writer: asyncio.StreamWriter | None = None
    number: int = 0

    def close(self) -> None:
        if self.writer is not None:
            self.writer.close()
            self.reader = self.writer = None

    def _headers(self, method: str) -> dict[str, str]:
        headers = {"MCP-Protocol-Version": self.era}
        if self.token:
            headers["Authorization"] = f"Bearer {self.token}"
        if self.session:
            headers["Mcp-Session-Id"] = self.session
        if self.era == MODERN:
            headers["Mcp-Method"] = method
            if method == "tools/call":
                headers["Mcp-Name"] = self.tool
        return headers

    async def exchange(self, message: dict[str, Any]) -> tuple[int, dict[bytes, bytes], bytes]:
        """Send one message, read its answer; reconnects once if the kept-alive connection
        was closed under it (a server restarting, a proxy's idle timeout)."""
        headers = self._headers(message["method"])
        if message["method"] == "initialize":
            headers.pop("MCP-Protocol-Version")
        data = request(f"{self.host}:{self.port}", self.path, message, headers)
        for attempt in (0, 1):
            if self.writer is None:
                self.reader, self.writer = await asyncio.open_connection(self.host, self.port)
            assert self.reader is not None and self.writer is not None
            try:
                self.writer.write(data)
                response = await read_response(self.reader)
            except (ConnectionError, asyncio.IncompleteReadError) as exc:
                self.close()
                if attempt:
                    raise HttpError(f"connection: {type(exc).__name__}") from exc
                continue
            if response[1].get(b"connection", b"").lower() == b"close":
                self.close()
            return response
        raise AssertionError("unreachable")

    async def hello(self) -> bytes:
        """The handshake for a legacy client (nothing for a modern one); the answer's body."""
        if self.era == MODERN:
            return b""
        self.number += 1
        params = {
            "protocolVersion": self.era,
            "capabilities": {},
            "clientInfo": {"name": "loadgen", "version": "1"},
        }
        message = {"jsonrpc": "2.0", "id": self.number, "method": "initialize", "params": params}
        status, headers, body = await self.exchange(message)
        if status != 200 or b'"result"' not in body:
            raise HttpError(f"initialize answered {status}: {body[:200]!r}")
        session = headers.get(b"mcp-session-id")
        self.session = session.decode() if session else None
        note = {"jsonrpc": "2.0", "method": "notifications/initialized"}
        status, _, body = await self.exchange(note)
        if status not in (200, 202):
            raise HttpError(f"notifications/initialized answered {status}: {body[:200]!r}")
        return body

    async def call(self, arguments: dict[str, Any]) -> bytes:
        """One tools/call; its answer's body, or HttpError."""
        self.number += 1
        params: dict[str, Any] = {"name": self.tool, "arguments": arguments}
        if self.era == MODERN:
            params["_meta"] = {
                "io.modelcontextprotocol/protocolVersion": MODERN,
                "io.modelcontextprotocol/clientCapabilities": {},
            }
        message = {"jsonrpc": "2.0", "id": self.number, "method": "tools/call", "params": params}
        status, _, body = await self.exchange(message)
        if status != 200:
            raise HttpError(f"status {status}")
        if b'"result"' not in body:
            raise HttpError("no result")
        if b'"isError":true' in body:
            raise HttpError("tool error")
        return body


async def run_clients(
    clients: list[Client],
    arguments: Callable[[int], dict[str, Any]],
    seconds: float,
    warmup: float = 1.0,
    observe: Callable[[bytes], None] | None = None,
) -> tuple[Tally, float]:
    """Each client calls in a closed loop for `warmup` then `seconds` (only the latter
    counted, and shown to `observe`). The tally and the measured span (s)."""
    tally = Tally()
    loop = asyncio.get_running_loop()
    start = loop.time() + warmup
    end = start + seconds

    async def one(client: Client, index: int) -> None:
        count = index
        try:
            await client.hello()
        except (HttpError, OSError, asyncio.IncompleteReadError) as exc:
            tally.error(f"hello: {exc}")
            await asyncio.sleep(0.05)
        while (now := loop.time()) < end:
            began = time.perf_counter()
            try:
                async with asyncio.timeout(CALL_TIMEOUT):
                    body = await client.call(arguments(count))
            except TimeoutError:
                client.close()
                tally.error("timeout")
                continue
            except (HttpError, OSError, asyncio.IncompleteReadError) as exc:
                if now >= start:
                    tally.error(str(exc))
                await asyncio.sleep(0.01)
                continue
            finally:
                count += len(clients)
            tally.all_calls += 1
            if now >= start:
                tally.latencies.append(time.perf_counter() - began)
                if observe is not None:
                    observe(body)
        client.close()

    await asyncio.gather(*(one(c, i) for i, c in enumerate(clients)))
    return tally, seconds


def percentile(values: list[float], share: float) -> float:
    if not values:
        return float("nan")
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(share * len(ordered)))]
