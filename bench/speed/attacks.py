"""Every class of attack on a served Pinax (regexes, nesting, slow and empty answers, hidden
text, terminal escapes, bad manifests, a tampered cache, redirects, idle and slow connections,
a session flood, URL scope, special files), numbered as they print, replayed on loopback
against a real `pinax serve --http`.

    python -m bench.speed.attacks

One server runs for the whole run: a hostile site's pages (a loopback server) and a real
docs manifest (React, from ../shared when present) in a watched folder, its page cache in a
temporary folder. Per class, several variants are replayed, while another client calls
`search_pages` in a loop. Printed per class: the variants, the slowest answer, that other
client's search p50/p99 meanwhile (the bar: p99 under 50 ms), the same client's p99 in the
seconds just before the class with no attack running (the idle floor: on a shared machine
it moves, so each class is judged beside its own), the server's peak RSS and the outcome
(every variant handled as expected, or which were not). Nothing leaves 127.0.0.1.

    python -m bench.speed.attacks --only 1,12 --idle 3    # some classes; idle seconds each
    python -m bench.speed.attacks --only 1,2 --rounds 5   # the page classes, longer
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import socket
import subprocess
import sys
import tempfile
import time
import zlib
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path

import httpx
from mcp import Client

from bench.harness.corpora import SHARED
from bench.harness.timing import percentile
from tests.cli.test_hostile_files import BAD_MANIFESTS
from tests.pages.test_hostile_hidden import HIDDEN_HTML, SECRET, VISIBLE
from tests.pages.test_hostile_pages import DEEP_PAGES, HOSTILE_HTML, HOSTILE_MARKDOWN
from tests.pages.test_hostile_redirects import LOCATIONS
from tests.server.test_hostile_args import CASES as ARG_CASES
from tests.support.http_site import Reply, Request, Site
from tests.support.serving import INITIALIZE, MCP_HEADERS, run_pinax, served_http

os.environ.setdefault("PINAX_ALLOW_PRIVATE", "127.0.0.1/32")  # the loopback site
P99_BAR_MS = 50.0
QUERIES = ["use effect", "state hook", "useRef", "render list", "context provider"]
# The other client: search_pages in a loop until its stdin closes. It says "ready" after its
# first search, then at the end prints each search as end:latency (monotonic s : ms), the
# clock this process shares, so the bench can tell searches before an attack from during.
PROBE = f"""
import sys, time, threading, anyio
from mcp import Client

queries = {QUERIES!r}
stop = threading.Event()
threading.Thread(target=lambda: (sys.stdin.read(), stop.set()), daemon=True).start()
async def main():
    out = []
    async with Client(sys.argv[1]) as client:
        i = 0
        while not stop.is_set():
            started = time.monotonic()
            await client.call_tool("search_pages", {{"query": queries[i % len(queries)]}})
            ended = time.monotonic()
            out.append(f"{{ended:.4f}}:{{(ended - started) * 1000:.2f}}")
            if i == 0:
                print("ready", flush=True)
            i += 1
            await anyio.sleep(0.02)
    print(" ".join(out))
anyio.run(main)
"""


def html(text: str) -> Reply:
    return Reply(200, text.encode(), {"Content-Type": "text/html; charset=utf-8"})


@dataclass
class Row:
    name: str
    variants: int = 0
    slowest: float = 0.0
    expected: int = 0
    notes: list[str] = field(default_factory=list)
    probe: list[float] = field(default_factory=list)
    idle: list[float] = field(default_factory=list)  # the same searches just before
    rss: float = 0.0


class Bench:
    def __init__(
        self,
        site: Site,
        server,
        folder: Path,
        work: Path,
        only: set[str] | None = None,
        idle: float = 3.0,
        rounds: int = 1,
    ) -> None:
        self.site = site
        self.server = server
        self.folder = folder
        self.work = work
        self.only = only  # class numbers to run (None: all)
        self.idle = idle  # seconds of searching with no attack before each class
        self.rounds = rounds  # times the page classes (1, 2) replay their variants
        self.rows: list[Row] = []

    def rss(self) -> float:
        for line in Path(f"/proc/{self.server.process.pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
        return 0.0

    async def run(self, name: str, attacks: list[Callable[[], Awaitable[bool]]]) -> None:
        """Search with no attack for `idle` seconds, then run the variants (four at a time)
        while the same probe client searches on; record the row."""
        if self.only is not None and name.split()[0] not in self.only:
            return
        row = Row(name, len(attacks))
        done = asyncio.Event()
        ready = asyncio.Event()
        peak = [self.rss()]

        async def probe() -> None:
            # In a process of its own, so the attacking clients' work here does not count.
            process = await asyncio.create_subprocess_exec(
                sys.executable,
                "-c",
                PROBE,
                self.server.url,
                stdin=asyncio.subprocess.PIPE,
                stdout=asyncio.subprocess.PIPE,
            )
            assert process.stdin is not None and process.stdout is not None
            await process.stdout.readline()  # "ready": connected, and one search answered
            ready.set()
            while not done.is_set():
                peak[0] = max(peak[0], self.rss())
                await asyncio.sleep(0.05)
            process.stdin.close()
            out, _ = await process.communicate()
            for pair in out.split():
                ended, took = (float(x) for x in pair.split(b":"))
                if ended <= attack_started:
                    row.idle.append(took)
                elif ended - took / 1000 < attack_ended:
                    row.probe.append(took)

        async def one(attack: Callable[[], Awaitable[bool]], gate: asyncio.Semaphore) -> None:
            async with gate:
                started = time.perf_counter()
                try:
                    ok = await attack()
                except Exception as exc:  # the benchmark reports, it does not stop
                    ok = False
                    row.notes.append(f"{type(exc).__name__}: {str(exc)[:80]}")
                row.slowest = max(row.slowest, time.perf_counter() - started)
                row.expected += bool(ok)

        prober = asyncio.create_task(probe())
        await asyncio.wait_for(ready.wait(), 60)
        await asyncio.sleep(self.idle)  # the idle floor, measured now, beside this class
        attack_started = time.monotonic()
        attack_ended = float("inf")
        gate = asyncio.Semaphore(4)
        await asyncio.gather(*(one(a, gate) for a in attacks))
        attack_ended = time.monotonic()
        done.set()
        await prober
        row.rss = peak[0]
        self.rows.append(row)
        self.print_row(row)

    def print_row(self, row: Row) -> None:
        p50 = percentile(row.probe, 0.5) if row.probe else float("nan")
        p99 = percentile(row.probe, 0.99) if row.probe else float("nan")
        idle = percentile(row.idle, 0.99) if row.idle else float("nan")
        outcome = (
            "ok" if row.expected == row.variants else f"{row.variants - row.expected} unexpected"
        )
        bar = "" if p99 < P99_BAR_MS else "  (p99 over the bar)"
        print(
            f"{row.name:<38} {row.variants:>4} {row.slowest:>8.2f} s {p50:>7.1f} {p99:>7.1f}"
            f" {len(row.probe):>5} {idle:>7.1f} ms {row.rss:>7.0f} MB  {outcome}{bar}",
            flush=True,
        )
        for note in row.notes[:3]:
            print(f"{'':<40}{note}", flush=True)


async def get_page(bench: Bench, url: str, **extra) -> dict:
    async with Client(bench.server.url) as client:
        result = await client.call_tool("get_page", {"url": url, **extra})
    if result.is_error:
        return json.loads(result.content[0].text)
    return {"page": result.structured_content}


def pinax(*args: str, env: dict | None = None) -> subprocess.CompletedProcess[str]:
    return run_pinax(*args, env=env)


def page_attack(bench: Bench, url: str, check: Callable[[dict], bool]) -> Callable:
    async def attack() -> bool:
        return check(await get_page(bench, url))

    return attack


def answered(answer: dict) -> bool:
    """A page, or a clear error that is not `internal`."""
    return "page" in answer or answer["error"]["code"] != "internal"


async def main(only: set[str] | None, idle: float, rounds: int) -> None:
    work = Path(tempfile.mkdtemp(prefix="pinax-attacks-"))
    folder = work / "manifests"
    folder.mkdir()
    routes: dict[str, Reply | Callable] = {}
    for i, text in enumerate(HOSTILE_HTML.values()):
        routes[f"/regex/h{i}"] = html(text)
    for i, text in enumerate(HOSTILE_MARKDOWN.values()):
        routes[f"/regex/m{i}"] = Reply(200, text.encode(), {"Content-Type": "text/markdown"})
    for i, text in enumerate(DEEP_PAGES.values()):
        routes[f"/deep/{i}"] = html(text + "<p>pad</p>" * (10_001 - text.count("<")))
    for i, text in enumerate(HIDDEN_HTML.values()):
        hidden = text.replace("{s}", SECRET).replace(
            "{tags}", "".join(chr(0xE0000 + ord(c)) for c in SECRET)
        )
        routes[f"/hidden/{i}"] = html(f"<main>{VISIBLE}{hidden}</main>")
    for i, location in enumerate(LOCATIONS):
        routes[f"/moved/{i}"] = Reply(302, b"", {"Location": location})
    from tests.pages.test_hostile_cache import big_page

    for kind in ("fifo", "escape"):  # big pages: each cached value lies in a file of its own
        routes[f"/trap/{kind}"] = html(big_page())

    def slow_stub(target: str, seconds: float) -> Callable:
        def handler(_: Request) -> Reply:
            time.sleep(seconds)
            return html(f'<head><meta http-equiv="refresh" content="0; url={target}"></head>')

        return handler

    for chain in range(3):
        for hop in range(4):
            routes[f"/stubs/{chain}/{hop}"] = slow_stub(f"/stubs/{chain}/{hop + 1}", 8.0)
    empty = {
        "204": Reply(204, b""),
        "304": Reply(304, b""),
        "300": Reply(300, b""),
        "200 empty": html(""),
    }
    good = html("<main><h1>Good</h1><p>the good copy of this page here</p></main>")
    flips = {name: [good, reply] for name, reply in empty.items()}
    for name in empty:
        routes[f"/flip/{name.replace(' ', '-')}"] = good

    with Site() as site:
        for path, reply in routes.items():
            site.add(path, reply)
        for name in empty:  # each answers a good page once, then its empty answer
            answers = [flips[name][0], flips[name][1]]
            site.add(
                f"/flip/{name.replace(' ', '-')}",
                lambda _, a=answers: a.pop(0) if len(a) > 1 else a[0],
            )
        pages = [
            {"url": site.url(path), "title": path}
            for path in routes
            if not path.startswith("/stubs/")
        ]
        pages += [{"url": site.url(f"/stubs/{c}/0"), "title": f"stub {c}"} for c in range(3)]
        (folder / "hostile.json").write_text(
            json.dumps(
                {
                    "pinax_manifest": 1,
                    "name": "hostile",
                    "url": site.url("/"),
                    "ttl": 0,
                    "pages": pages,
                }
            )
        )
        react = SHARED / "corpora" / "manifests" / "react.json"
        if react.exists():
            (folder / "react.json").write_bytes(react.read_bytes())
        else:
            print(f"(no {react}: searching the hostile manifest only)")
        cache = work / "cache"
        args = ("--docs", str(folder), "--cache-dir", str(cache), "--watch-interval", "0.2")
        with served_http(*args) as server:
            bench = Bench(site, server, folder, work, only, idle, rounds)
            heads = ("class", "vars", "slowest", "p50", "p99", "n", "idle99", "RSS")
            print("{:<38} {:>4} {:>10} {:>7} {:>7} {:>5} {:>7}    {:>7}     outcome".format(*heads))
            await run_all(bench, site)
            log = server.log_text()
    print(f"\nserver log: {len(log.encode()):,} bytes, {log.count('Traceback')} tracebacks")
    worst = max(percentile(r.probe, 0.99) for r in bench.rows if r.probe)
    floor = max(percentile(r.idle, 0.99) for r in bench.rows if r.idle)
    print(
        f"worst search p99 during an attack: {worst:.1f} ms (bar {P99_BAR_MS:.0f} ms); "
        f"worst idle floor: {floor:.1f} ms"
    )


async def run_all(bench: Bench, site: Site) -> None:
    url = site.url
    await bench.run(
        "1 super-linear regexes",
        (
            [page_attack(bench, url(f"/regex/h{i}"), answered) for i in range(len(HOSTILE_HTML))]
            + [
                page_attack(bench, url(f"/regex/m{i}"), answered)
                for i in range(len(HOSTILE_MARKDOWN))
            ]
        )
        * bench.rounds,
    )
    await bench.run(
        "2 nesting tricks",
        [
            page_attack(
                bench,
                url(f"/deep/{i}"),
                lambda a: "nests elements" in a.get("error", {}).get("message", ""),
            )
            for i in range(len(DEEP_PAGES))
        ]
        * bench.rounds,
    )
    await bench.run(
        "3 one deadline (4 slow stubs)",
        [
            page_attack(
                bench,
                url(f"/stubs/{c}/0"),
                lambda a: "in all" in a.get("error", {}).get("message", ""),
            )
            for c in range(3)
        ],
    )

    async def flip(name: str) -> bool:
        target = url(f"/flip/{name.replace(' ', '-')}")
        first = await get_page(bench, target)
        await asyncio.sleep(0.1)
        second = await get_page(bench, target, max_tokens=20000)
        return (
            "page" in first and second.get("page", {}).get("markdown") == first["page"]["markdown"]
        )

    # The hostile manifest's ttl is 0: the second read asks the site, which now answers empty.
    await bench.run(
        "4 empty answers vs a good copy",
        [lambda n=n: flip(n) for n in ("204", "304", "300", "200 empty")],
    )
    await bench.run(
        "5 hidden text",
        [
            page_attack(
                bench,
                url(f"/hidden/{i}"),
                lambda a: "page" in a and SECRET not in a["page"]["markdown"],
            )
            for i in range(len(HIDDEN_HTML))
        ],
    )

    async def cli(*args: str, check: Callable[[subprocess.CompletedProcess[str]], bool]) -> bool:
        done = await asyncio.to_thread(
            pinax, *args, env={"PINAX_CACHE_DIR": str(bench.work / "cli-cache")}
        )
        return check(done)

    llms = "# S\n\n> d\n\n## D\n\n" + "".join(
        f"- [Guide{e}]({url('/regex/h0')}): x\n"
        for e in ("\x1bc", "\x9b2J", "\x1b[31m]", "\u202e", "\x07")
    )
    bench.site.add("/esc/llms.txt", Reply(200, llms.encode(), {"Content-Type": "text/plain"}))
    no_raw = lambda d: not {"\x1b", "\x9b", "\u202e", "\x07"} & set(d.stdout + d.stderr)  # noqa: E731
    await bench.run(
        "6 terminal escapes (CLI)",
        [
            lambda: cli("search", "--docs", url("/esc/llms.txt"), "guide", check=no_raw),
            lambda: cli("search", "--docs", url("/esc/llms.txt"), "--json", "guide", check=no_raw),
            lambda: cli("build", url("/esc/llms.txt"), check=no_raw),
        ],
    )

    async def bad_manifest(i: int, text: str) -> bool:
        (bench.folder / f"bad{i}.json").write_text(text, encoding="utf-8")
        await asyncio.sleep(0.6)
        (bench.folder / f"bad{i}.json").unlink()
        await asyncio.sleep(0.6)
        async with Client(bench.server.url) as client:
            docs = (await client.call_tool("list_docs", {})).structured_content["docs"]
        return bench.server.process.poll() is None and "hostile" in {d["name"] for d in docs}

    bad = list(BAD_MANIFESTS.values())[:6]
    await bench.run(
        "7 bad manifests (live reload)",
        [lambda i=i, t=t: bad_manifest(i, t) for i, t in enumerate(bad)],
    )

    async def cache_trap(kind: str) -> bool:
        import sqlite3

        path = f"/trap/{kind}"  # a big page: its cached value lies in a file of its own
        await get_page(bench, url(path))
        db = bench.work / "cache" / "pages-v2" / "cache.db"
        with sqlite3.connect(db) as con:
            rows = con.execute(
                "SELECT key, filename FROM Cache WHERE filename IS NOT NULL"
            ).fetchall()
        keys = {json.loads(zlib.decompress(k)) if isinstance(k, bytes) else k: f for k, f in rows}
        target = keys[url(path)]  # JSONDisk stores keys as compressed JSON
        value = db.parent / target
        if kind == "fifo":
            value.unlink()
            os.mkfifo(value)
        else:
            victim = bench.work / "victim.txt"
            victim.write_text("keep")
            with sqlite3.connect(db) as con:
                con.execute(
                    "UPDATE Cache SET filename = ? WHERE filename = ?",
                    (os.path.relpath(victim, db.parent), target),
                )
        answer = await asyncio.wait_for(get_page(bench, url(path)), 20)
        return "page" in answer and (kind == "fifo" or (bench.work / "victim.txt").exists())

    await bench.run(
        "8 tampered cache folder", [lambda: cache_trap("fifo"), lambda: cache_trap("escape")]
    )

    async def bad_args(name: str, args: dict) -> bool:
        async with Client(bench.server.url) as client:
            result = await client.call_tool(name, args)
        return (
            not result.is_error or json.loads(result.content[0].text)["error"]["code"] != "internal"
        )

    await bench.run("9 arguments", [lambda n=n, a=a: bad_args(n, a) for n, a in ARG_CASES[::4]])
    await bench.run(
        "10 redirects to nowhere",
        [
            page_attack(
                bench,
                url(f"/moved/{i}"),
                lambda a: a.get("error", {}).get("code") == "fetch_failed",
            )
            for i in range(len(LOCATIONS))
        ],
    )

    port = int(bench.server.base.rsplit(":", 1)[1])

    async def sockets(kind: str, count: int) -> bool:
        def hold() -> bool:
            first = {"idle": b"", "slow": b"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\n"}[kind]
            held = []
            for _ in range(count):
                sock = socket.create_connection(("127.0.0.1", port), timeout=5)
                sock.sendall(first)
                held.append(sock)
            closed = 0
            deadline = time.monotonic() + 20
            for sock in held:
                sock.settimeout(max(0.1, deadline - time.monotonic()))
                try:
                    closed += sock.recv(1) == b""
                except (OSError, TimeoutError):
                    closed += 1
                sock.close()
            return closed == count

        return await asyncio.to_thread(hold)

    await bench.run(
        "11 idle and slow connections", [lambda: sockets("idle", 150), lambda: sockets("slow", 150)]
    )

    async def flood(count: int) -> bool:
        refused = 0
        async with httpx.AsyncClient(timeout=10) as http:
            for _ in range(count):
                refused += (
                    await http.post(bench.server.url, json=INITIALIZE, headers=MCP_HEADERS)
                ).status_code == 503
        return refused == 0

    before = bench.rss()
    await bench.run("12 session flood (3 x 600 initialize)", [lambda: flood(600) for _ in range(3)])
    if bench.only is None or "12" in bench.only:
        print(f"{'':<40}server RSS {before:.0f} MB before the flood, {bench.rss():.0f} MB after")

    other = Site().__enter__()
    try:
        secret = other.add("/secret", html("<main><h1>S</h1><p>other host</p></main>"))
        scope_llms = (
            f"# S\n\n> d\n\n## D\n\n- [Own]({url('/regex/h0')}): own\n- [Other]({secret}): other\n"
        )
        bench.site.add(
            "/scope/llms.txt", Reply(200, scope_llms.encode(), {"Content-Type": "text/plain"})
        )
        await bench.run(
            "13 --docs URL scope (CLI)",
            [
                lambda: cli(
                    "page",
                    secret,
                    "--docs",
                    url("/scope/llms.txt"),
                    check=lambda d: d.returncode != 0 and other.hits("/secret") == 0,
                )
            ],
        )
    finally:
        other.__exit__(None, None, None)

    fifo = bench.work / "trap.json"
    os.mkfifo(fifo)
    sparse = bench.work / "huge.json"
    with sparse.open("wb") as f:
        f.truncate(3 << 30)
    refused = lambda d: d.returncode != 0 and "Traceback" not in d.stderr  # noqa: E731
    await bench.run(
        "14 special local files (CLI)",
        [
            lambda: cli("search", "--docs", str(fifo), "x", check=refused),
            lambda: cli("search", "--docs", "/dev/zero", "x", check=refused),
            lambda: cli("search", "--docs", str(sparse), "x", check=refused),
            lambda: cli("build", str(fifo), check=refused),
        ],
    )


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", help="class numbers to run, e.g. 1,12 (default: all)")
    parser.add_argument(
        "--idle", type=float, default=3.0, help="seconds of idle searching before each class"
    )
    parser.add_argument(
        "--rounds",
        type=int,
        default=1,
        help="times classes 1 and 2 replay their variants (more searches for their p99)",
    )
    options = parser.parse_args()
    classes = set(options.only.split(",")) if options.only else None
    asyncio.run(main(classes, options.idle, options.rounds))
