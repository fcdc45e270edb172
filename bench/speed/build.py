"""Build figures: a 10,000-URL sitemap with `--titles fetch` against a loopback server.

    python -m bench.speed.build [--pages 10000] [--concurrency 8 32]

The server runs in its own process (a threading HTTP/1.1 server with keep-alive) and serves a
sitemap of N pages, each a real 74 KB MkDocs Material page from ../shared/fixtures (a
synthetic page of the same size when the shared data is absent) with its own `<title>`.
Every scenario runs in a fresh process, so its wall time and peak RSS are its own:

- baseline: plain httpx.AsyncClient, same concurrency, GET every page and regex the title;
  the least any title fetch can cost on this machine (no checks, no parsing, no manifest).
- slug: `pinax build SITEMAP` (titles from URLs: the sitemap only).
- fetch: `pinax build SITEMAP --titles fetch --delay 0 --concurrency C`.

Both processes share the machine's cores: the server's CPU time is part of every figure.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import re
import subprocess
import sys
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

from bench.harness.corpora import SHARED

PAGE = SHARED / "fixtures" / "sites" / "mkdocs-material" / "reference-lists" / "page.html"
_TITLE = re.compile(rb"<title>.*?</title>", re.S)


# --- the server (its own process) ------------------------------------------------------


def serve(pages: int, port_file: Path) -> None:
    template = PAGE.read_bytes() if PAGE.exists() else _synthetic_page()
    if not _TITLE.search(template):
        template = template.replace(b"<head>", b"<head><title>x</title>", 1)

    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def do_GET(self) -> None:
            origin = f"http://127.0.0.1:{self.server.server_address[1]}"
            if self.path == "/sitemap.xml":
                body = _sitemap(origin, pages)
                kind = "application/xml"
            elif self.path.startswith("/docs/p"):
                title = f"<title>Page {self.path.split('/')[2]} - Bench Docs</title>".encode()
                body = _TITLE.sub(title, template, count=1)
                kind = "text/html; charset=utf-8"
            else:
                body, kind = b"not found", "text/plain"
                self.send_response(404)
                self._finish(body, kind)
                return
            self.send_response(200)
            self._finish(body, kind)

        def _finish(self, body: bytes, kind: str) -> None:
            self.send_header("Content-Type", kind)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args: object) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    port_file.write_text(str(server.server_address[1]))
    server.serve_forever()


def _sitemap(origin: str, pages: int) -> bytes:
    rows = "".join(f"<url><loc>{origin}/docs/p{i}/</loc></url>" for i in range(pages))
    return f'<?xml version="1.0"?><urlset>{rows}</urlset>'.encode()


def _synthetic_page() -> bytes:
    filler = "<p>" + "lorem ipsum dolor sit amet " * 20 + "</p>"
    return f"<html><head><title>x</title></head><body>{filler * 130}</body></html>".encode()


# --- one scenario (its own process) ----------------------------------------------------


async def baseline(sitemap_url: str, concurrency: int) -> int:
    import httpx

    async with httpx.AsyncClient(trust_env=False) as client:
        xml = (await client.get(sitemap_url)).text
        urls = re.findall(r"<loc>([^<]+)</loc>", xml)
        todo = iter(urls)
        titles: list[str] = []

        async def worker() -> None:
            for url in todo:
                body = (await client.get(url)).content
                match = re.search(rb"<title>(.*?)</title>", body, re.S)
                titles.append(match.group(1).decode() if match else url)

        await asyncio.gather(*(worker() for _ in range(concurrency)))
    return len(titles)


def run_scenario(name: str, sitemap_url: str, concurrency: int) -> dict[str, float]:
    from bench.harness.memory import peak_mb
    from pinax.builder import BuildOptions
    from pinax.builder.core import build
    from pinax.builder.report import Reporter

    started = time.perf_counter()
    if name == "baseline":
        pages = asyncio.run(baseline(sitemap_url, concurrency))
    else:
        titles = "fetch" if name == "fetch" else "slug"
        # The loopback server is one a site's operator would allow (--allow-private).
        options = BuildOptions(
            titles=titles, delay=0.0, concurrency=concurrency, allow_private=("127.0.0.1/32",)
        )
        manifest = asyncio.run(build(sitemap_url, options, Reporter()))
        pages = len(manifest.pages)
        if titles == "fetch":
            assert manifest.pages[0].title.startswith("Page p"), manifest.pages[0].title
    seconds = time.perf_counter() - started
    return {"seconds": seconds, "pages": pages, "rss_mb": peak_mb()}


def measure(name: str, sitemap_url: str, concurrency: int) -> dict[str, float]:
    output = subprocess.run(
        [
            sys.executable,
            "-m",
            "bench.speed.build",
            "--scenario",
            name,
            sitemap_url,
            str(concurrency),
        ],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    return json.loads(output.splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--pages", type=int, default=10_000)
    parser.add_argument("--concurrency", type=int, nargs="+", default=[8, 32])
    parser.add_argument("--serve", nargs=2, metavar=("PAGES", "PORT_FILE"), help=argparse.SUPPRESS)
    parser.add_argument("--scenario", nargs=3, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.serve:
        serve(int(args.serve[0]), Path(args.serve[1]))
        return
    if args.scenario:
        name, url, concurrency = args.scenario
        print(json.dumps(run_scenario(name, url, int(concurrency))))
        return

    port_file = Path(f"/tmp/pinax-bench-build-{os.getpid()}.port")
    server = subprocess.Popen(
        [sys.executable, "-m", "bench.speed.build", "--serve", str(args.pages), str(port_file)]
    )
    try:
        while not port_file.exists() or not port_file.read_text():
            time.sleep(0.05)
        url = f"http://127.0.0.1:{port_file.read_text()}/sitemap.xml"
        page = (
            f"real MkDocs Material page, {PAGE.stat().st_size:,} bytes"
            if PAGE.exists()
            else "synthetic page"
        )
        print(f"{args.pages:,}-URL sitemap; each page a {page}; {os.cpu_count()} CPUs")
        head = ("scenario", "conc.", "pages", "seconds", "pages/s", "peak RSS")
        print(f"{head[0]:<28}{head[1]:>6}{head[2]:>8}{head[3]:>10}{head[4]:>10}{head[5]:>11}")
        rows = [("slug", 8)]
        for concurrency in args.concurrency:
            rows += [("baseline", concurrency), ("fetch", concurrency)]
        for name, concurrency in rows:
            result = measure(name, url, concurrency)
            label = {
                "slug": "pinax build (slug titles)",
                "baseline": "baseline: plain httpx",
                "fetch": "pinax build --titles fetch",
            }[name]
            rate = result["pages"] / result["seconds"]
            print(
                f"{label:<28}{concurrency:>6}{result['pages']:>8.0f}{result['seconds']:>10.2f}"
                f"{rate:>10.0f}{result['rss_mb']:>9.0f} MB"
            )
    finally:
        server.terminate()
        server.wait()
        port_file.unlink(missing_ok=True)


if __name__ == "__main__":
    main()
