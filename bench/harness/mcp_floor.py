"""The two halves of an MCP round trip, measured apart: what the client costs, what the
server costs.

bench_search times `tools/call search_pages` through the official `mcp.Client`. Most of that
time is not the search: this module gives the figures to read it against.

- `client_floor`: the same client and the same calls against a server that does no work at
  all, replaying answers recorded from Pinax (`python -m bench.harness.mcp_floor ANSWERS.json` is
  that server). What is left is the client's own cost and the pipes'.
- `server_alone`: the same calls to `pinax serve`, written as raw JSON-RPC lines by a client
  that does nothing else. What is left is the server's cost and the pipes'.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from bench.harness.timing import percentile

ROOT = Path(__file__).resolve().parents[2]
HANDSHAKE_VERSION = "2025-06-18"


def record(tools: Any, result: Any) -> dict[str, Any]:
    """What the replaying server answers: the listed tools and one search result, as sent."""
    dump = {"mode": "json", "by_alias": True, "exclude_none": True}
    return {"tools/list": tools.model_dump(**dump), "tools/call": result.model_dump(**dump)}


async def client_floor(answers: Path, texts: list[str], calls: int) -> dict[str, float]:
    """p50/p99 (ms) of `mcp.Client.call_tool` against the replaying server."""
    from mcp import Client, StdioServerParameters

    args = ["-m", "bench.harness.mcp_floor", str(answers)]
    env = {"PYTHONPATH": str(ROOT), "PATH": os.environ.get("PATH", "")}
    params = StdioServerParameters(command=sys.executable, args=args, env=env)
    async with Client(params, mode="legacy") as client:
        for text in texts[:30]:
            await client.call_tool("search_pages", {"query": text})
        times = []
        for i in range(calls):
            started = time.perf_counter()
            await client.call_tool("search_pages", {"query": texts[i % len(texts)]})
            times.append((time.perf_counter() - started) * 1000)
    return {"client_floor_p50": percentile(times, 0.5), "client_floor_p99": percentile(times, 0.99)}


def server_alone(
    command: list[str], env: dict[str, str], texts: list[str], calls: int
) -> dict[str, float]:
    """p50/p99 (ms) of the server's answer to a raw `tools/call` line, read as it comes."""
    server = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, env=env)
    assert server.stdin is not None and server.stdout is not None
    stdin, stdout = server.stdin, server.stdout

    def send(message: dict[str, Any]) -> None:
        stdin.write(json.dumps(message).encode() + b"\n")
        stdin.flush()

    def answer(number: int) -> dict[str, Any]:
        """The answer to request `number` (notifications the server sends are passed over)."""
        while True:
            line = stdout.readline()
            assert line, "the server ended"
            message = json.loads(line)
            if message.get("id") == number:
                return message

    def call(number: int, text: str) -> dict[str, Any]:
        arguments = {"name": "search_pages", "arguments": {"query": text}}
        send({"jsonrpc": "2.0", "id": number, "method": "tools/call", "params": arguments})
        return answer(number)

    try:
        client = {"name": "bench", "version": "1"}
        hello = {"protocolVersion": HANDSHAKE_VERSION, "capabilities": {}, "clientInfo": client}
        send({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": hello})
        assert "result" in answer(0)
        send({"jsonrpc": "2.0", "method": "notifications/initialized"})
        for i, text in enumerate(texts[:30]):
            call(i + 1, text)
        times = []
        for i in range(calls):
            started = time.perf_counter()
            reply = call(100 + i, texts[i % len(texts)])
            times.append((time.perf_counter() - started) * 1000)
            assert "structuredContent" in reply["result"], reply
    finally:
        stdin.close()
        server.wait(timeout=30)
    return {"server_alone_p50": percentile(times, 0.5), "server_alone_p99": percentile(times, 0.99)}


def replay(answers: dict[str, Any]) -> None:
    """Answer every request at once from `answers`: a server with no work of its own."""
    for line in sys.stdin.buffer:
        message = json.loads(line)
        if "id" not in message:
            continue
        if message["method"] == "initialize":
            result = {
                "protocolVersion": message["params"]["protocolVersion"],
                "capabilities": {"tools": {}},
                "serverInfo": {"name": "replay", "version": "0"},
            }
        else:
            result = answers[message["method"]]
        reply = {"jsonrpc": "2.0", "id": message["id"], "result": result}
        sys.stdout.buffer.write(json.dumps(reply).encode() + b"\n")
        sys.stdout.buffer.flush()


if __name__ == "__main__":
    replay(json.loads(Path(sys.argv[1]).read_text()))
