"""The HTTP server under abuse (issue 19, items 11 and 12), `pinax serve --http` for real.

Idle and slow (slowloris) connections are closed after the request deadline; connections past
the cap are closed at once; each refusal is one short log line, rate-limited, never a
traceback; `/health` and a real MCP client keep working throughout. Thousands of `initialize`
requests leave the server admitting new clients: stateless, they open nothing.
"""

from __future__ import annotations

import json
import socket
import sys
import time
from pathlib import Path

import httpx
import pytest
from mcp import Client

from tests.support.loop_stalls import WATCHED, longest_stall, start_watching
from tests.support.serving import INITIALIZE, MCP_HEADERS, served_http
from tests.support.work import HANG

GOOD = {
    "pinax_manifest": 1,
    "name": "site",
    "url": "http://127.0.0.1:9/",
    "pages": [{"url": "http://127.0.0.1:9/guide", "title": "Guide"}],
}


@pytest.fixture
def manifest(tmp_path: Path) -> Path:
    path = tmp_path / "site.json"
    path.write_text(json.dumps(GOOD))
    return path


def _connect(port: int, first: bytes = b"") -> socket.socket:
    sock = socket.create_connection(("127.0.0.1", port), timeout=5)
    if first:
        sock.sendall(first)
    return sock


def _closed_by_server(sock: socket.socket, within: float) -> bool:
    sock.settimeout(within)
    try:
        while True:
            data = sock.recv(4096)
            if not data:
                return True
    except (ConnectionResetError, BrokenPipeError):
        return True
    except TimeoutError:
        return False


def _rss_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return 0.0


# The server with a request deadline of 2 s instead of its 10 (the same code path, sooner).
SHORT_DEADLINE = [
    sys.executable,
    "-c",
    "import sys; import pinax.server.http_app as h; h.REQUEST_TIMEOUT = 2.0;"
    " sys.argv[0] = 'pinax'; from pinax.cli import main; main()",
]


def test_idle_and_slow_connections_are_closed_at_the_deadline(manifest: Path) -> None:
    with served_http("--docs", str(manifest), python=SHORT_DEADLINE) as server:
        port = int(server.base.rsplit(":", 1)[1])
        idle = [_connect(port) for _ in range(30)]
        slow = [_connect(port, b"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\n") for _ in range(30)]
        body = [
            _connect(
                port,
                b"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 1000\r\n"
                b"Content-Type: application/json\r\n\r\n{",
            )
            for _ in range(10)
        ]
        assert httpx.get(f"{server.base}/health", timeout=5).status_code == 200
        # Closed by the server (after its REQUEST_TIMEOUT): a kept connection would wait
        # out the hang guard instead.
        deadline = time.monotonic() + HANG
        for sock in [*idle, *slow, *body]:
            remaining = deadline - time.monotonic()
            assert _closed_by_server(sock, max(remaining, 0.5)), "a connection was kept"
            sock.close()
        assert httpx.get(f"{server.base}/health", timeout=5).status_code == 200
    log = server.log_text()
    assert "Traceback" not in log
    assert "sent no complete request in 2 s" in log
    assert len(log.encode()) < 20_000, "the log grew with each refusal"


def test_connections_past_the_cap_are_closed_at_once(manifest: Path) -> None:
    from pinax.server.http_app import max_connections

    cap = max_connections()
    with served_http("--docs", str(manifest)) as server:
        port = int(server.base.rsplit(":", 1)[1])
        held = [_connect(port) for _ in range(cap)]
        time.sleep(0.5)
        extra = [_connect(port) for _ in range(20)]
        assert all(_closed_by_server(sock, 3) for sock in extra)
        for sock in [*held, *extra]:
            sock.close()
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:  # the slots free again
            try:
                if httpx.get(f"{server.base}/health", timeout=2).status_code == 200:
                    break
            except httpx.TransportError:
                time.sleep(0.2)
        assert httpx.get(f"{server.base}/health", timeout=5).status_code == 200
    log = server.log_text()
    assert "Traceback" not in log and "refused a connection" in log
    assert log.count("refused a connection") <= 3, "one line per refusal, rate-limited"


@pytest.mark.anyio
async def test_a_flood_of_sessions_leaves_room_and_memory_flat(manifest: Path) -> None:
    """...and the server's other clients unstalled: a thousand idle sessions made each full
    collection of the garbage collector walk ~200,000 objects (200 to 500 ms)."""
    with served_http("--docs", str(manifest), python=WATCHED) as server:
        start_watching(server)
        refused = 0
        rss = []
        async with httpx.AsyncClient(timeout=10) as http:
            for i in range(2_400):
                answer = await http.post(server.url, json=INITIALIZE, headers=MCP_HEADERS)
                refused += answer.status_code == 503
                if i in (1_200, 2_399):
                    rss.append(_rss_mb(server.process.pid))
        assert refused == 0, f"{refused} initialize requests were refused"
        assert rss[1] - rss[0] < 40, f"memory grew from {rss[0]:.0f} to {rss[1]:.0f} MB"
        async with Client(server.url, mode="legacy") as client:
            assert not (await client.call_tool("list_docs", {})).is_error
        stalled, what = longest_stall(server)
    assert "Traceback" not in server.log_text()
    assert stalled < 100, f"the event loop was held {stalled:.0f} ms by {what}"


async def _initialize(http: httpx.AsyncClient, url: str) -> str | None:
    answer = await http.post(url, json=INITIALIZE, headers=MCP_HEADERS)
    assert answer.status_code == 200
    return answer.headers.get("mcp-session-id")


@pytest.mark.anyio
async def test_initialize_keeps_nothing_and_later_calls_need_no_session(manifest: Path) -> None:
    """Stateless by default: a flood of `initialize` requests opens no session (nothing to
    reap, nothing to refuse), and a handshake-era client's calls are answered without one,
    in one JSON body."""
    with served_http("--docs", str(manifest)) as server:
        async with httpx.AsyncClient(timeout=10) as http:
            flood = [await _initialize(http, server.url) for _ in range(200)]
            assert flood == [None] * 200
            headers = {**MCP_HEADERS, "mcp-protocol-version": "2025-11-25"}
            call = {"jsonrpc": "2.0", "id": 7, "method": "tools/call"}
            call["params"] = {"name": "list_docs", "arguments": {}}
            answer = await http.post(server.url, json=call, headers=headers)
            assert answer.status_code == 200
            assert answer.headers["content-type"] == "application/json"
            assert answer.json()["result"]["structuredContent"]["docs"][0]["name"] == "site"


@pytest.mark.anyio
async def test_sessions_mode_keeps_sessions_over_sse(manifest: Path) -> None:
    """`--sessions`: today's behaviour, a session per `initialize`, SSE answers."""
    with served_http("--docs", str(manifest), "--sessions") as server:
        async with httpx.AsyncClient(timeout=10) as http:
            answer = await http.post(server.url, json=INITIALIZE, headers=MCP_HEADERS)
            assert answer.headers["content-type"] == "text/event-stream"
            session = answer.headers["mcp-session-id"]
            headers = {**MCP_HEADERS, "mcp-session-id": session}
            headers["mcp-protocol-version"] = "2025-11-25"
            note = {"jsonrpc": "2.0", "method": "notifications/initialized"}
            assert (await http.post(server.url, json=note, headers=headers)).status_code == 202
        async with Client(server.url, mode="legacy") as client:
            assert not (await client.call_tool("list_docs", {})).is_error
