"""The soak of tests/soak.py at any size: requests/s, p50/p99 per tool, answers, server RSS.

    python -m bench.speed.soak [--clients 8] [--calls 500] [--seed 6]

`pinax serve --http` on loopback, the real fixture sites plus slow and failing pages, the real
corpora manifests; each client its own `mcp.Client`. The baseline is the same plans as plain
`Tools` calls in this process (as many concurrent tasks as clients, no MCP, no HTTP) over fresh
copies of the same sites, so the difference is the protocol, the transport and the process hop.
"""

from __future__ import annotations

import argparse
import logging
import os
import tempfile
import time
from inspect import isawaitable
from pathlib import Path

import anyio

from bench.harness.corpora import SHARED
from pinax.errors import PinaxError
from pinax.tools import Tools
from tests.support.soak import (
    OK,
    REFETCHED,
    STALE,
    Call,
    Outcome,
    figures,
    plan,
    queries,
    soak,
    soak_sites,
)


async def in_process(tools: Tools, call: Call) -> Outcome:
    started = time.perf_counter()
    try:
        answer = getattr(tools, call.tool)(**call.args)
        result = await answer if isawaitable(answer) else answer
        got, detail = (STALE if result.get("stale") else OK), ""
    except PinaxError as exc:
        got, detail = exc.code, exc.message
    return Outcome(call, got, time.perf_counter() - started, detail)


async def baseline(folder: Path, clients: int, calls: int, seed: int) -> list[str]:
    """The same plans through `Tools` in this process, after the same warm-up reads."""
    with soak_sites(SHARED, folder) as sites:
        ttls = dict.fromkeys(REFETCHED, 0.0)
        tools = Tools.open(
            sites.manifests, folder / "cache", ttls=ttls, allow_private=["127.0.0.1/32"]
        )
        tools.library.warm()
        sections = {
            entry["name"]: [s["section"] for s in tools.list_sections(entry["name"])["sections"]]
            for entry in tools.list_docs()["docs"]
        }
        for url in sites.pages.all():
            await in_process(tools, Call("get_page", {"url": url}, OK))
        texts = queries(SHARED)
        plans = [plan(seed + i, calls, sites.pages, sections, texts) for i in range(clients)]
        outcomes: list[Outcome] = []

        async def client(calls: list[Call]) -> None:
            for call in calls:
                outcomes.append(await in_process(tools, call))

        started = time.perf_counter()
        async with anyio.create_task_group() as group:
            for calls_of_one in plans:
                group.start_soon(client, calls_of_one)
        return figures(outcomes, time.perf_counter() - started)


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--clients", type=int, default=8)
    parser.add_argument("--calls", type=int, default=500, help="per client")
    parser.add_argument("--seed", type=int, default=6)
    options = parser.parse_args()
    logging.basicConfig(level=logging.ERROR)  # the baseline's stale-copy warnings, as the server's
    print(f"{os.cpu_count()} CPUs; shared data at {SHARED}")
    with tempfile.TemporaryDirectory() as served, tempfile.TemporaryDirectory() as plain:
        result = await soak(SHARED, Path(served), options.clients, options.calls, options.seed)
        print(result.report())
        print("baseline: the same plans as plain Tools calls in this process")
        print("\n".join(await baseline(Path(plain), options.clients, options.calls, options.seed)))
    for outcome in result.mismatches()[:10]:
        print(f"unexpected: {outcome.call} -> {outcome.got}: {outcome.detail}")


if __name__ == "__main__":
    anyio.run(main)
