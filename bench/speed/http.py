"""MCP over HTTP, as fast as the SDK allows: Pinax beside the SDK's floor and today's main.

    python -m bench.speed.http [--clients 16] [--seconds 8] [--era legacy|modern|both]
        [--main /work/wt/r39-main-copy] [--asgi]

16 closed-loop clients on loopback call `search_pages` over the drf manifest
(manifests/drf.json). In the same run, one after another on the same cores:

- the floor: the SDK's own low-level server answering a do-nothing tool, in each transport
  configuration (sessions with SSE, the SDK's default; stateless with SSE; stateless with
  JSON), under uvicorn (h11; httptools with uvloop) and granian;
- Pinax as `pinax serve --http` runs it (stateless, JSON answers), and with `--sessions`;
- Pinax's MCP and HTTP layer alone: the same app with each search's answer memoized by
  its arguments (the bench's queries repeat), so a call costs everything but the search;
  how far this row sits from the floor is what the layer costs, the rest is the search;
- today's main, installed beside it (`--main`, a worktree of main: its code on PYTHONPATH).

With `--asgi`, Pinax also runs under each ASGI server. Every server is started first, then
each is measured `--turns` times in turns, so the load other processes put on shared cores
falls on all alike; each row gives the median turn's calls per CPU second of the server (what
one core answers: the bars are on it) and req/s (whatever CPU was left; lowest-highest), p50
and p99 over all turns, and errors. Bars: Pinax >= 0.8x the floor's fastest configuration,
>= 1.5x main; exit status 1 if one fails.

The load generator (bench/harness/loadgen.py) runs alone as `python -m bench.speed.http load
URL ...` (one JSON line of results).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import socket
import subprocess
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from bench.harness.loadgen import LEGACY, MODERN, Client, HttpError, Tally, percentile, run_clients

# ---- the servers measured ---------------------------------------------------------------

ROOT = Path(__file__).resolve().parents[2]
SHARED = Path(os.environ.get("PINAX_SHARED", ROOT.parent / "shared"))
DRF = ROOT / "manifests" / "drf.json"
ASGI_SERVERS = ("h11", "httptools", "granian")
LAYER = "pinax layer alone: searches memoized, httptools"


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def floor_app(sessions: bool, json_response: bool) -> Any:
    """The SDK's low-level server with one tool that does nothing."""
    import mcp.types as types
    from mcp.server.lowlevel import Server

    async def list_tools(_ctx: Any, _params: Any) -> types.ListToolsResult:
        schema = {"type": "object", "additionalProperties": True}
        return types.ListToolsResult(tools=[types.Tool(name="search_pages", input_schema=schema)])

    async def call_tool(_ctx: Any, _params: Any) -> types.CallToolResult:
        return types.CallToolResult(content=[types.TextContent(type="text", text="ok")])

    server: Any = Server("floor", on_list_tools=list_tools, on_call_tool=call_tool)
    return server.streamable_http_app(stateless_http=not sessions, json_response=json_response)


def pinax_app(sessions: bool, memoized: bool = False) -> Any:
    """Pinax over the drf manifest, as `pinax serve --http` builds it (the branch's code);
    `memoized`: each search answered once, then from a memo (the layer alone)."""
    from pinax.cli.common import load_tools
    from pinax.server import HttpSettings, create_server, settle, share_the_gil
    from pinax.server.http_app import build_app

    tools = load_tools([str(DRF)], None, None, None, need_docs=True)
    tools.library.warm()
    if memoized:
        tools.search_pages = memoize(tools.search_pages)  # type: ignore[method-assign]
    mcp = create_server(tools, warm=False)
    settle()
    share_the_gil()
    return build_app(mcp, HttpSettings(sessions=sessions))


def memoize(search: Callable[..., dict[str, Any]]) -> Callable[..., dict[str, Any]]:
    """`search`, each answer kept by its arguments (the bench's few queries repeat)."""
    answers: dict[str, dict[str, Any]] = {}

    def memoized(**arguments: Any) -> dict[str, Any]:
        key = json.dumps(arguments, sort_keys=True)
        if key not in answers:
            answers[key] = search(**arguments)
        return answers[key]

    return memoized


def serve(app: Any, port: int, asgi: str) -> None:
    """Serve `app` on 127.0.0.1:`port` with the named ASGI server until killed."""
    if asgi == "granian":
        from granian.constants import Interfaces
        from granian.server.embed import Server as Granian

        granian = Granian(app, "127.0.0.1", port, interface=Interfaces.ASGI, log_enabled=False)
        asyncio.run(granian.serve())
        return
    import uvicorn

    config = uvicorn.Config(
        app, "127.0.0.1", port, http=asgi, lifespan="on", log_level="warning", access_log=False
    )
    server = uvicorn.Server(config)
    if asgi == "httptools":
        import uvloop

        uvloop.run(server.serve())
    else:
        asyncio.run(server.serve())


@dataclass
class Target:
    label: str
    argv: list[str]
    env: dict[str, str] = field(default_factory=dict)
    port: int = 0
    cwd: Path = ROOT  # `python -m` puts this first on sys.path, before PYTHONPATH


def bench_server(label: str, kind: str, asgi: str, sessions: bool, json_response: bool) -> Target:
    argv = [sys.executable, "-m", "bench.speed.http", "serve", kind, asgi]
    argv += ["--sessions"] * sessions + ["--json"] * json_response
    return Target(label, argv)


def cli_server(label: str, code: Path, sessions: bool = False) -> Target:
    """`pinax serve --http` from the code at `code` (this branch, or a copy of main), run
    from there: `python -m` imports from the working folder first, whatever PYTHONPATH says."""
    argv = [sys.executable, "-m", "pinax", "serve", "--http", "--docs", str(DRF)]
    argv += ["--cache-dir", "/tmp/pinax-bench-http-cache"] + ["--sessions"] * sessions
    return Target(label, argv, {"PYTHONPATH": str(code)}, cwd=code)


def start(target: Target) -> subprocess.Popen[bytes]:
    """Start the target on a free port; return once it answers an `initialize`."""
    target.port = free_port()
    argv = [*target.argv, "--port", str(target.port)]
    env = {**os.environ, **target.env}
    process = subprocess.Popen(argv, env=env, cwd=target.cwd, stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline and process.poll() is None:
        if asyncio.run(answers("127.0.0.1", target.port)):
            return process
        time.sleep(0.2)
    stop(process)
    raise RuntimeError(f"{target.label} never answered (exit code {process.returncode})")


async def answers(host: str, port: int, path: str = "/mcp", token: str | None = None) -> bool:
    """Whether an MCP server at host:port answers an `initialize` now."""
    client = Client(host, port, path=path, token=token)
    try:
        await asyncio.wait_for(client.hello(), 10)
        return True
    except (OSError, HttpError, asyncio.IncompleteReadError, TimeoutError):
        return False
    finally:
        client.close()


def cpu_seconds(pid: int) -> float:
    """User and system CPU time a process has used so far (all its threads)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def stop(process: subprocess.Popen[bytes]) -> None:
    process.terminate()
    try:
        process.wait(timeout=10)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()


def queries() -> list[str]:
    path = SHARED / "corpora" / "eval" / "drf.dev.jsonl"
    if path.exists():
        return [json.loads(line)["query"] for line in path.read_text().splitlines() if line]
    return ["serializers", "viewsets", "authentication", "pagination", "routers", "filtering"]


def search_arguments(texts: list[str], docs: str = "drf") -> Callable[[int], dict[str, Any]]:
    """The i-th call's arguments; `docs` "" searches every docs set."""
    if not docs:
        return lambda i: {"query": texts[i % len(texts)], "limit": 10}
    return lambda i: {"docs": docs, "query": texts[i % len(texts)], "limit": 5}


def measure(pid: int, port: int, era: str, clients: int, seconds: float) -> Tally:
    """Closed-loop search_pages calls from `clients` connections to the server `pid` on
    `port`; its CPU seconds over the whole run (warm-up included, as `all_calls` is)."""
    pool = [Client("127.0.0.1", port, era) for _ in range(clients)]
    before = cpu_seconds(pid)
    tally, _ = _runner()(run_clients(pool, search_arguments(queries()), seconds))
    tally.cpu = cpu_seconds(pid) - before
    return tally


def _runner() -> Callable[[Any], Any]:
    """uvloop's run where it is installed (a lighter load generator), else asyncio's."""
    try:
        import uvloop

        return uvloop.run  # type: ignore[no-any-return]
    except ImportError:
        return asyncio.run


def rounds(
    targets: list[Target], era: str, clients: int, seconds: float, count: int
) -> dict[str, list[tuple[float, Tally]]]:
    """Every target started at once (idle ones cost nothing), then measured `count` times,
    in turns, so the load others put on shared cores falls on all of them alike."""
    running: dict[str, subprocess.Popen[bytes]] = {}
    results: dict[str, list[tuple[float, Tally]]] = {t.label: [] for t in targets}
    try:
        for target in targets:
            try:
                running[target.label] = start(target)
            except RuntimeError as exc:
                print(f"{target.label:<44} did not start: {exc}", flush=True)
        for turn in range(count):
            order = targets if turn % 2 == 0 else targets[::-1]
            for target in order:
                if target.label in running:
                    pid = running[target.label].pid
                    tally = measure(pid, target.port, era, clients, seconds)
                    results[target.label].append((len(tally.latencies) / seconds, tally))
    finally:
        for process in running.values():
            stop(process)
    return results


def median_line(label: str, measured: list[tuple[float, Tally]]) -> tuple[float, float, str]:
    """(the median turn's req/s, its calls per CPU second of the server, a line): p50/p99
    over every turn's calls, and all errors."""
    if not measured:
        return 0.0, 0.0, f"{label:<46} not measured"
    rates = sorted(rate for rate, _ in measured)
    rate = rates[len(rates) // 2]
    per_cpu = sorted(t.all_calls / t.cpu for _, t in measured if t.cpu > 0) or [0.0]
    capacity = per_cpu[len(per_cpu) // 2]
    merged = Tally()
    for _, tally in measured:
        merged.latencies += tally.latencies
        for kind, n in tally.errors.items():
            merged.errors[kind] = merged.errors.get(kind, 0) + n
    ms = [v * 1000 for v in merged.latencies]
    errors = ", ".join(f"{k}: {v}" for k, v in sorted(merged.errors.items())) or "0"
    spread = f"{rates[0]:.0f}-{rates[-1]:.0f}"
    return (
        rate,
        capacity,
        f"{label:<46} {capacity:6.0f} calls/cpu-s {rate:6.0f} req/s ({spread:>9})  "
        f"p50 {percentile(ms, 0.5):6.1f} ms  p99 {percentile(ms, 0.99):6.1f} ms  errors {errors}",
    )


def targets(main: Path | None, asgi: bool) -> tuple[list[Target], list[Target], list[Target]]:
    """(floors, Pinax rows, main rows)."""
    floors = [
        bench_server("floor sessions+SSE h11 (SDK default)", "floor", "h11", True, False),
        bench_server("floor stateless+SSE h11", "floor", "h11", False, False),
        bench_server("floor stateless+JSON h11", "floor", "h11", False, True),
        bench_server("floor stateless+JSON httptools+uvloop", "floor", "httptools", False, True),
        bench_server("floor stateless+JSON granian", "floor", "granian", False, True),
    ]
    pinax = [
        cli_server("pinax serve --http (this branch)", ROOT),
        cli_server("pinax serve --http --sessions", ROOT, sessions=True),
    ]
    pinax.append(bench_server(LAYER, "layer", "httptools", False, True))
    for name in ASGI_SERVERS if asgi else ():
        pinax.append(bench_server(f"pinax stateless+JSON {name}", "pinax", name, False, True))
    mains = [cli_server("main: pinax serve --http", main)] if main else []
    return floors, pinax, mains


def compare(
    clients: int, seconds: float, eras: list[str], main: Path | None, asgi: bool, turns: int
) -> int:
    """Every target in turns; the bars on calls per CPU second of the server (what one core
    can answer: on a shared machine, req/s is whatever CPU the others left), req/s beside."""
    floors, pinax, mains = targets(main, asgi)
    print(
        f"{clients} closed-loop clients, search_pages over drf; the median of {turns} turns "
        f"of {seconds:g} s each: calls per CPU second of the server, req/s (lowest-highest), "
        "p50/p99 over all turns"
    )
    failed = 0
    for era in eras:
        print(f"-- protocol {era}", flush=True)
        results = rounds([*floors, *pinax, *mains], era, clients, seconds, turns)
        capacity = {}
        for label, measured in results.items():
            _, capacity[label], line = median_line(label, measured)
            print(line, flush=True)
        fastest = max(floors, key=lambda t: capacity[t.label])
        ours = capacity[pinax[0].label]
        ratio = ours / capacity[fastest.label] if capacity[fastest.label] else 0.0
        print(f"[{era}] pinax / fastest floor ({fastest.label}) = {ratio:.2f} (bar 0.8)")
        failed += ratio < 0.8
        print(split_line(era, ours, capacity[LAYER], capacity[fastest.label]))
        if mains:
            today = capacity[mains[0].label]
            ratio = ours / today if today else float("inf")
            print(f"[{era}] pinax / main = {ratio:.2f} (bar 1.5)")
            failed += ratio < 1.5
    return 1 if failed else 0


def split_line(era: str, ours: float, layer: float, floor: float) -> str:
    """Where a call's CPU goes: the layer beside the floor, and the search (what memoizing
    it saved), in microseconds a call."""
    if not (ours and layer and floor):
        return f"[{era}] layer and search: not measured"
    return (
        f"[{era}] CPU a call: floor {1e6 / floor:.0f} us; Pinax's layer {1e6 / layer:.0f} us "
        f"({layer / floor:.2f}x the floor's calls); the search {1e6 / ours - 1e6 / layer:.0f} us"
    )


def load_command(args: argparse.Namespace) -> None:
    """`load`: drive a running server, print one JSON line (rate, p50/p99 ms, errors, and
    how many answers carried each --mark, alone or with another)."""
    from urllib.parse import urlsplit

    url = urlsplit(args.url)
    marks = [m.encode() for m in args.mark or []]
    texts = args.query or queries()
    pool = [
        Client(url.hostname or "127.0.0.1", url.port or 80, args.era, url.path, args.token)
        for _ in range(args.clients)
    ]
    seen: dict[str, int] = {}

    def observe(body: bytes) -> None:
        found = "+".join(m.decode() for m in marks if m in body) or "-"
        seen[found] = seen.get(found, 0) + 1
        if marks and found == "-" and seen[found] <= 3:  # what an unmarked answer said
            print(body[:600].decode(errors="replace"), file=sys.stderr)

    tally, span = _runner()(
        run_clients(pool, search_arguments(texts, args.docs), args.seconds, args.warmup, observe)
    )
    ms = [v * 1000 for v in tally.latencies]
    report = {
        "calls": len(ms),
        "rate": len(ms) / span,
        "p50_ms": percentile(ms, 0.5),
        "p99_ms": percentile(ms, 0.99),
        "errors": tally.errors,
    }
    if marks:
        report["marks"] = seen
    print(json.dumps(report), flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    sub = parser.add_subparsers(dest="command")
    compare_args = sub.add_parser("compare", help="the comparison (the default)")
    for p in (parser, compare_args):
        p.add_argument("--clients", type=int, default=16)
        p.add_argument("--seconds", type=float, default=4.0)
        p.add_argument("--era", choices=["legacy", "modern", "both"], default="legacy")
        p.add_argument("--main", type=Path, default=None, help="a worktree of today's main")
        p.add_argument("--asgi", action="store_true", help="Pinax under each ASGI server too")
        p.add_argument("--turns", type=int, default=5, help="measurements of each, in turns")
    serve_args = sub.add_parser("serve", help="run one measured server (internal)")
    serve_args.add_argument("kind", choices=["floor", "pinax", "layer"])
    serve_args.add_argument("asgi", choices=ASGI_SERVERS)
    for flag in ("--sessions", "--json"):
        serve_args.add_argument(flag, action="store_true")
    serve_args.add_argument("--port", type=int, required=True)
    load_args = sub.add_parser("load", help="drive a running server, print JSON")
    load_args.add_argument("url")
    load_args.add_argument("--clients", type=int, default=16)
    load_args.add_argument("--seconds", type=float, default=5.0)
    load_args.add_argument("--warmup", type=float, default=0.5)
    load_args.add_argument("--era", choices=[LEGACY, MODERN], default=LEGACY)
    load_args.add_argument("--token", default=os.environ.get("PINAX_TOKEN"))
    load_args.add_argument("--mark", action="append", help="a byte string to count answers by")
    load_args.add_argument("--query", action="append", help="the queries (default: drf's)")
    load_args.add_argument("--docs", default="drf", help='the docs set searched ("": all)')
    args = parser.parse_args()
    if args.command == "serve":
        if args.kind == "floor":
            app = floor_app(args.sessions, args.json)
        else:
            app = pinax_app(args.sessions, memoized=args.kind == "layer")
        return serve(app, args.port, args.asgi)
    if args.command == "load":
        return load_command(args)
    eras = {"legacy": [LEGACY], "modern": [MODERN], "both": [LEGACY, MODERN]}[args.era]
    sys.exit(compare(args.clients, args.seconds, eras, args.main, args.asgi, args.turns))


if __name__ == "__main__":
    main()
