"""search_pages through a real MCP client: requests/s and p50/p99 over HTTP and stdio.

    python -m bench.speed.mcp [--seconds 5] [--clients 1 8 32] [--docs FILE ...]

Starts `pinax serve --http` on loopback (and `pinax serve` on stdio), then drives
search_pages with the real `mcp.Client`: over HTTP with N concurrent clients, each its own
connection; over stdio with N concurrent calls on the one connection a host would hold. The
baseline is the same queries as plain `Tools.search_pages` calls in this process. Clients and
server share the machine, so the figures are for the whole loop on this box.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from contextlib import AbstractAsyncContextManager
from itertools import cycle
from pathlib import Path

import anyio
import httpx
from mcp import Client, StdioServerParameters

from bench.harness.corpora import SHARED
from bench.harness.timing import percentile
from pinax.tools import Tools

ROOT = Path(__file__).resolve().parents[2]

MANIFESTS = SHARED / "corpora" / "manifests"
EVAL = SHARED / "corpora" / "eval"
DEFAULT_DOCS = ("react", "django", "fastapi", "kubernetes", "drf")


def queries() -> list[str]:
    found = []
    for path in sorted(EVAL.glob("*.dev.jsonl")):
        lines = path.read_text().splitlines()
        found += [json.loads(line)["query"] for line in lines[:200] if line.strip()]
    return found or ["getting started", "configuration", "api reference"]


def summary(label: str, latencies: list[float], elapsed: float) -> str:
    ms = [v * 1000 for v in latencies]
    return (
        f"{label:<28} {len(ms) / elapsed:9.0f} req/s   p50 {percentile(ms, 0.5):7.2f} ms   "
        f"p99 {percentile(ms, 0.99):7.2f} ms   ({len(ms)} calls)"
    )


async def drive(
    connect: Callable[[], AbstractAsyncContextManager[Client]],
    connections: int,
    per_connection: int,
    texts: list[str],
    seconds: float,
) -> tuple[list[float], float]:
    """Run search_pages for `seconds` on `connections` clients x `per_connection` callers."""
    latencies: list[float] = []
    source = cycle(texts)
    deadline = 0.0

    async def caller(client: Client) -> None:
        while time.perf_counter() < deadline:
            started = time.perf_counter()
            result = await client.call_tool("search_pages", {"query": next(source)})
            assert not result.is_error, result
            latencies.append(time.perf_counter() - started)

    async def connection(ready: anyio.Event, go: anyio.Event, count: list[int]) -> None:
        async with connect() as client:
            await client.call_tool("search_pages", {"query": "warm up"})
            count[0] += 1
            if count[0] == connections:
                ready.set()
            await go.wait()
            async with anyio.create_task_group() as callers:
                for _ in range(per_connection):
                    callers.start_soon(caller, client)

    ready, go, count = anyio.Event(), anyio.Event(), [0]
    async with anyio.create_task_group() as group:
        for _ in range(connections):
            group.start_soon(connection, ready, go, count)
        await ready.wait()
        started = time.perf_counter()
        deadline = started + seconds
        go.set()
    return latencies, time.perf_counter() - started


def start_http(docs: list[Path]) -> tuple[subprocess.Popen[str], str]:
    args = [sys.executable, "-m", "pinax", "serve", "--http", "--port", "0"]
    args += ["--cache-dir", "/tmp/pinax-bench-cache"]
    for path in docs:
        args += ["--docs", str(path)]
    process = subprocess.Popen(args, stderr=subprocess.PIPE, text=True, cwd=ROOT)
    assert process.stderr is not None
    for line in process.stderr:
        if "serving MCP at " in line:
            url = line.split("serving MCP at ", 1)[1].split()[0]
            break
    else:
        raise RuntimeError("pinax serve --http did not start")
    threading.Thread(target=process.stderr.read, daemon=True).start()  # keep the pipe drained
    for _ in range(600):  # the socket is bound before the server listens: wait for /health
        try:
            if httpx.get(url.removesuffix("/mcp") + "/health").status_code == 200:
                return process, url
        except httpx.TransportError:
            time.sleep(0.1)
    raise RuntimeError(f"{url} never answered /health")


def baseline(docs: list[Path], texts: list[str], seconds: float) -> str:
    tools = Tools.open(docs, cache_dir=Path("/tmp/pinax-bench-cache"))
    tools.library.warm()
    latencies = []
    started = time.perf_counter()
    for text in cycle(texts):
        t = time.perf_counter()
        tools.search_pages(text)
        latencies.append(time.perf_counter() - t)
        if t - started > seconds:
            break
    return summary("baseline (function call)", latencies, time.perf_counter() - started)


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--seconds", type=float, default=5.0)
    parser.add_argument("--clients", type=int, nargs="+", default=[1, 8, 32])
    parser.add_argument("--docs", type=Path, nargs="+")
    options = parser.parse_args()
    docs = options.docs or [MANIFESTS / f"{name}.json" for name in DEFAULT_DOCS]
    texts = queries()
    pages = sum(len(json.loads(p.read_text())["pages"]) for p in docs)
    print(f"{len(docs)} manifests, {pages} pages, {len(texts)} queries, {os.cpu_count()} CPUs")
    print(baseline(docs, texts, options.seconds))

    process, url = start_http(docs)
    try:
        for mode in ("auto", "legacy"):
            for n in options.clients:
                latencies, elapsed = await drive(
                    lambda mode=mode: Client(url, mode=mode), n, 1, texts, options.seconds
                )
                era = "2026-07-28" if mode == "auto" else "2025-11-25"
                print(summary(f"http {era}, {n} clients", latencies, elapsed))
    finally:
        process.terminate()
        process.wait()

    command = [sys.executable, "-m", "pinax", "serve", "--cache-dir", "/tmp/pinax-bench-cache"]
    for path in docs:
        command += ["--docs", str(path)]
    params = StdioServerParameters(
        command=command[0], args=command[1:], env={"PYTHONPATH": str(ROOT)}
    )
    for n in options.clients:
        latencies, elapsed = await drive(lambda: Client(params), 1, n, texts, options.seconds)
        print(summary(f"stdio, {n} in flight", latencies, elapsed))


if __name__ == "__main__":
    anyio.run(main)
