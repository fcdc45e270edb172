"""The shared page cache (`--cache-redis`): a cold-page stampede, and get_page with Redis down.

    python -m bench.speed.redis_cache [--clients 50] [--replicas 3] [--rounds 10]
                                      [--site-delay 0.05] [--pages 200]

Starts a real `redis-server` (Debian's) on a free loopback port and a loopback docs site whose
every page answers after `--site-delay` seconds, counting what reaches it.

1. Stampede: `--clients` readers, spread over `--replicas` processes, each reader a Pinax of its
   own (its own disk cache, its own in-process flights), ask one cold page at the same moment;
   `--rounds` pages in turn. Printed: requests that reached the site per page, and the
   latency of the asks (p50, p99, max), with the shared cache and without it.
2. Redis down: 16 concurrent clients of one Pinax read `--pages` pages new to its disk, with
   Redis up and holding them (another replica read them; then again, from its disk), with no
   Redis at all, with Redis hung (SIGSTOP: accepts, never answers), with Redis stopped
   (connections refused), and once Redis is started again (pages another replica read since).
   Printed: p50, p99 and max of get_page, and failed calls (there must be none).
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import anyio

os.environ.setdefault("PINAX_ALLOW_PRIVATE", "127.0.0.1/32")  # the loopback site

from pinax.tools import Tools

ROOT = Path(__file__).resolve().parents[2]
CLIENTS_DOWN = 16


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


class Redis:
    """redis-server on a free loopback port, no persistence."""

    def __init__(self, folder: Path) -> None:
        self.folder, self.port = folder, free_port()
        self.process: subprocess.Popen[bytes] | None = None
        self.url = f"redis://127.0.0.1:{self.port}/0"

    def start(self) -> None:
        import redis

        self.process = subprocess.Popen(
            ["redis-server", "--port", str(self.port), "--bind", "127.0.0.1", "--save", "",
             "--appendonly", "no", "--dir", str(self.folder)],
            stdout=subprocess.DEVNULL,
        )  # fmt: skip
        client = redis.Redis(port=self.port, socket_timeout=1)
        for _ in range(500):
            try:
                client.ping()
                return
            except redis.RedisError:
                time.sleep(0.02)
        raise SystemExit("redis-server did not start")

    def stop(self) -> None:
        if self.process is not None:
            self.process.send_signal(signal.SIGCONT)
            self.process.terminate()
            self.process.wait(10)
            self.process = None


class DocsSite:
    """Markdown at every path, after `delay` seconds; `hits` counts requests by path."""

    def __init__(self, delay: float) -> None:
        self.delay, self.hits = delay, dict[str, int]()
        site = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def do_GET(self) -> None:
                site.hits[self.path] = site.hits.get(self.path, 0) + 1
                time.sleep(site.delay)
                body = f"# Page {self.path}\n\n{'Words of the page. ' * 200}\n".encode()
                self.send_response(200)
                self.send_header("Content-Type", "text/markdown; charset=utf-8")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, *args: Any) -> None:
                pass

        class Server(ThreadingHTTPServer):
            request_queue_size = 256  # 5 by default: a burst of connections waits 1 s for SYN

        self.server = Server(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        threading.Thread(target=self.server.serve_forever, daemon=True).start()
        self.origin = f"http://127.0.0.1:{self.server.server_address[1]}"


def manifest(folder: Path, origin: str) -> Path:
    path = folder / "site.json"
    pages = [{"url": f"{origin}/page/0", "title": "Page 0"}]
    path.write_text(
        json.dumps({"pinax_manifest": 1, "name": "site", "url": origin, "pages": pages})
    )
    return path


def percentiles(values: list[float]) -> str:
    ordered = sorted(values)
    if not ordered:
        return "no calls"

    def at(share: float) -> float:
        return ordered[min(len(ordered) - 1, int(share * len(ordered)))] * 1000

    return f"p50 {at(0.5):7.1f} ms  p99 {at(0.99):7.1f} ms  max {ordered[-1] * 1000:7.1f} ms"


def worker(manifest_path: str, folder: str, readers: int, redis_url: str) -> None:
    """A replica process: `readers` Pinax instances; each line on stdin names a page they all
    ask at once; each answer line lists their latencies (or the failures)."""
    replicas = [
        Tools.open([Path(manifest_path)], Path(folder) / str(n), cache_redis=redis_url or None)
        for n in range(readers)
    ]
    for tools in replicas:
        tools.warm_pages()
    print("ready", flush=True)

    async def stampede(url: str) -> list[float | str]:
        started = time.perf_counter()
        found: list[float | str] = []

        async def ask(tools: Tools) -> None:
            try:
                await tools.get_page(url)
                found.append(time.perf_counter() - started)
            except Exception as exc:
                found.append(f"{type(exc).__name__}: {exc}")

        async with anyio.create_task_group() as group:
            for tools in replicas:
                group.start_soon(ask, tools)
        return found

    for line in sys.stdin:
        print(json.dumps(anyio.run(stampede, line.strip())), flush=True)


def stampede(args: argparse.Namespace, site: DocsSite, path: Path, redis_url: str) -> None:
    share = [args.clients // args.replicas + (n < args.clients % args.replicas)
             for n in range(args.replicas)]  # fmt: skip
    workers = [
        subprocess.Popen(
            [
                sys.executable,
                "-m",
                "bench.speed.redis_cache",
                "--worker",
                str(path),
                tempfile.mkdtemp(prefix="pinax-bench-"),
                str(readers),
                redis_url,
            ],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
            cwd=ROOT,
        )
        for readers in share
    ]
    for process in workers:
        assert process.stdout is not None and process.stdout.readline().strip() == "ready"
    latencies: list[float] = []
    failures: list[str] = []
    upstream: list[int] = []
    tag = "redis" if redis_url else "alone"
    for round_ in range(args.rounds):
        url = f"{site.origin}/cold/{tag}/{round_}"
        for process in workers:
            assert process.stdin is not None
            process.stdin.write(url + "\n")
            process.stdin.flush()
        for process in workers:
            assert process.stdout is not None
            for item in json.loads(process.stdout.readline()):
                (latencies if isinstance(item, float) else failures).append(item)
        upstream.append(site.hits.get(f"/cold/{tag}/{round_}", 0))
    for process in workers:
        assert process.stdin is not None
        process.stdin.close()
        process.wait(30)
    label = "shared cache " if redis_url else "no shared cache"
    print(
        f"  {label}: upstream requests per cold page {upstream}  {percentiles(latencies)}  "
        f"failed {len(failures)}"
    )
    for failure in failures[:3]:
        print(f"    {failure}")


def read_all(tools: Tools, urls: list[str]) -> tuple[list[float], list[str]]:
    """`urls` read by CLIENTS_DOWN concurrent clients: latencies and failures."""
    latencies: list[float] = []
    failures: list[str] = []
    queue = list(reversed(urls))

    async def client() -> None:
        while queue:
            url = queue.pop()
            started = time.perf_counter()
            try:
                await tools.get_page(url)
                latencies.append(time.perf_counter() - started)
            except Exception as exc:
                failures.append(f"{url}: {type(exc).__name__}: {exc}")

    async def clients() -> None:
        async with anyio.create_task_group() as group:
            for _ in range(CLIENTS_DOWN):
                group.start_soon(client)

    anyio.run(clients)
    return latencies, failures


def redis_down(args: argparse.Namespace, site: DocsSite, path: Path, redis: Redis) -> None:
    folder = Path(tempfile.mkdtemp(prefix="pinax-bench-"))
    shared = Tools.open([path], folder / "reader", cache_redis=redis.url)
    other = Tools.open([path], folder / "other", cache_redis=redis.url)

    def pages(phase: str) -> list[str]:
        return [f"{site.origin}/down/{phase}/{n}" for n in range(args.pages)]

    read_all(other, pages("up"))  # another replica read them: in Redis
    alone = Tools.open([path], folder / "alone")
    for tools in (shared, alone):
        tools.warm_pages()
    measure("Redis up, pages in it", site, shared, pages("up"))
    measure("the same, now on disk", site, shared, pages("up"))
    measure("no --cache-redis", site, alone, pages("alone"))
    assert redis.process is not None
    redis.process.send_signal(signal.SIGSTOP)
    measure("Redis hung (SIGSTOP)", site, shared, pages("hung"))
    redis.process.send_signal(signal.SIGCONT)
    redis.stop()
    measure("Redis stopped", site, shared, pages("stopped"))
    redis.start()  # empty, on the same port; neither replica is restarted
    time.sleep(1.5)  # past the second a failing Redis is left alone
    read_all(other, pages("restarted"))
    measure("Redis restarted, shared", site, shared, pages("restarted"))


def measure(name: str, site: DocsSite, tools: Tools, urls: list[str]) -> None:
    """Read `urls` and print the latencies, failures and requests that reached the site."""
    before = sum(site.hits.values())
    latencies, failures = read_all(tools, urls)
    print(
        f"  {name:24} {percentiles(latencies)}  failed {len(failures)}  "
        f"site requests {sum(site.hits.values()) - before}/{len(urls)}"
    )
    for failure in failures[:3]:
        print(f"    {failure}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--clients", type=int, default=50)
    parser.add_argument("--replicas", type=int, default=3)
    parser.add_argument("--rounds", type=int, default=10)
    parser.add_argument("--site-delay", type=float, default=0.05)
    parser.add_argument("--pages", type=int, default=200)
    parser.add_argument(
        "--socket-timeout",
        type=float,
        help="seconds Pinax gives Redis to answer in the stampede (default: Pinax's 50 ms)",
    )
    parser.add_argument("--worker", nargs=4, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.worker:
        manifest_path, folder, readers, redis_url = args.worker
        worker(manifest_path, folder, int(readers), redis_url)
        return
    if shutil.which("redis-server") is None:
        raise SystemExit("redis-server is not installed (Debian: apt-get install redis-server)")
    with tempfile.TemporaryDirectory(prefix="pinax-bench-") as scratch:
        redis = Redis(Path(scratch))
        redis.start()
        site = DocsSite(args.site_delay)
        path = manifest(Path(scratch), site.origin)
        try:
            print(
                f"Cold-page stampede: {args.clients} readers over {args.replicas} processes, "
                f"{args.rounds} pages, site answering in {args.site_delay * 1000:g} ms, "
                f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores"
            )
            timeout = args.socket_timeout
            query = f"?socket_timeout={timeout}" if timeout else ""
            stampede(args, site, path, redis.url + query)
            stampede(args, site, path, "")
            print(
                f"get_page of {args.pages} pages new to the replica's disk, "
                f"{CLIENTS_DOWN} concurrent clients:"
            )
            redis_down(args, site, path, redis)
        finally:
            redis.stop()
            site.server.shutdown()


if __name__ == "__main__":
    main()
