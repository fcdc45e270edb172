"""Hostile answers vs get_page's limits: outcome, time and peak memory per case.

    python -m bench.speed.limits [--slow]

Each case runs in a fresh process: a loopback server sends the hostile answer, get_page
(wired as `pinax serve` wires it, default limits unless said) reads it, and the process
reports the outcome, the seconds the call took, its peak RSS and the RSS it had before the
call. The plain baselines are honest pages in the same harness, and the same hostile input
given to the unguarded path (httpx's own decoding, lexbor without the nesting check) where
that finishes in reasonable time (`--slow` adds the 100,000-deep parse: minutes).
"""

from __future__ import annotations

import argparse
import gzip
import itertools
import json
import os
import subprocess
import sys
import tempfile
import time
import zlib
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from bench.harness.corpora import SHARED
from bench.harness.memory import peak_mb

os.environ.setdefault("PINAX_ALLOW_PRIVATE", "127.0.0.1/32")  # the loopback servers

MiB = 1 << 20


def zeros_gzip(size: int, wbits: int = zlib.MAX_WBITS | 16) -> bytes:
    packer = zlib.compressobj(9, zlib.DEFLATED, wbits)
    return b"".join(packer.compress(bytes(MiB)) for _ in range(size // MiB)) + packer.flush()


def fixture(name: str) -> bytes:
    folder = SHARED / "fixtures" / "sites" / name
    meta = json.loads((folder / "meta.json").read_text())
    page = folder / meta["page_file"]
    return gzip.decompress(page.read_bytes()) if page.suffix == ".gz" else page.read_bytes()


@dataclass
class Case:
    """How the loopback server answers, with Limits overrides; or a function to run instead."""

    serve: Callable | None = None
    limits: dict = field(default_factory=dict)
    run: Callable[[str], str] | None = None


def streaming(head: bytes, chunks: Callable, pause: float = 0) -> Callable:
    def handler(server, connection) -> None:
        server.send(connection, head)
        server.stream(connection, chunks(), pause)

    return handler


def fixed(body: bytes, **headers: str) -> Callable:
    from tests.support.raw_server import head

    def handler(server, connection) -> None:
        server.send(connection, head(content_length=str(len(body)), **headers) + body)

    return handler


def redirect_forever(server, connection) -> None:
    from tests.support.raw_server import head

    location = f"/r{time.monotonic_ns()}"
    server.send(connection, head("302 Found", location=location, content_length="0"))


def deep(levels: int) -> bytes:
    return ("<main>" + "<div>" * levels + "deep text" + "</div>" * levels).encode()


def httpx_reads_all(url: str) -> str:
    """What a plain httpx client does with a bomb: decodes it all."""
    import httpx

    return f"read {len(httpx.get(url, timeout=30).content):,} decoded bytes"


def gunzip_bomb(bomb: bytes) -> Callable[[str], str]:
    def unpack(url: str) -> str:
        from pinax.pages.fetch import gunzip

        gunzip(bomb, 50 * MiB, f"sitemap.xml.gz ({len(bomb):,} bytes)")
        return "unpacked"

    return unpack


def lexbor(levels: int) -> Callable[[str], str]:
    page = deep(levels).decode()

    def parse(url: str) -> str:
        from selectolax.lexbor import LexborHTMLParser

        LexborHTMLParser(page)
        return "parsed"

    return parse


def cases() -> dict[str, Callable[[], Case]]:
    """name -> how to make the case (built only in the process that runs it)."""
    from tests.support.raw_server import head

    html = {"content_type": "text/html; charset=utf-8"}
    close = head(connection="close", **html)
    return {
        "baseline: real page (63 KB)": lambda: Case(fixed(fixture("mdbook/cli-build"), **html)),
        "baseline: largest real page (5.5 MB)": lambda: Case(
            fixed(fixture("hard-cases/huge-python-changelog"), **html)
        ),
        "endless body": lambda: Case(streaming(close, lambda: itertools.repeat(b"x" * 65536))),
        "50 MB single line, declared": lambda: Case(
            streaming(
                head(content_length=str(50 * 10**6), **html),
                lambda: itertools.repeat(b"x" * MiB, 48),
            )
        ),
        "50 MB single line, undeclared": lambda: Case(
            streaming(close, lambda: itertools.repeat(b"x" * MiB, 50))
        ),
        "9 MB single Markdown line (under the cap)": lambda: Case(
            fixed(b"# One line\n\n" + b"word " * (9 * MiB // 5), content_type="text/markdown")
        ),
        "gzip bomb 64 MiB -> 64 KB": lambda: Case(
            fixed(zeros_gzip(64 * MiB), content_encoding="gzip", **html)
        ),
        "gzip bomb, ratio check off (size cap only)": lambda: Case(
            fixed(zeros_gzip(64 * MiB), content_encoding="gzip", **html), {"max_ratio": 10**9}
        ),
        "unguarded: httpx decoding the same bomb": lambda: Case(
            fixed(zeros_gzip(64 * MiB), content_encoding="gzip", **html), run=httpx_reads_all
        ),
        "stacked gzip, gzip": lambda: Case(
            fixed(gzip.compress(zeros_gzip(256 * MiB)), content_encoding="gzip, gzip", **html)
        ),
        "raw deflate bomb": lambda: Case(
            fixed(zeros_gzip(64 * MiB, -zlib.MAX_WBITS), content_encoding="deflate", **html)
        ),
        "sitemap.xml.gz bomb, 1 GiB (gunzip)": lambda: Case(run=gunzip_bomb(zeros_gzip(1 << 30))),
        "trickle, 1 byte / 50 ms (deadline 3 s)": lambda: Case(
            streaming(close, lambda: itertools.repeat(b"x"), 0.05), {"total_timeout": 3.0}
        ),
        "endless redirects": lambda: Case(redirect_forever),
        "100,000 nested elements": lambda: Case(fixed(deep(100_000), **html)),
        "400 nested elements (allowed, flattened)": lambda: Case(fixed(deep(400), **html)),
        "unguarded: lexbor parsing 20,000 nested": lambda: Case(run=lexbor(20_000)),
        "invalid UTF-8 (1 MB)": lambda: Case(
            fixed(b"<main><p>" + b"ok \xff\xfe \xc3\x28 " * 100_000 + b"</p></main>", **html)
        ),
        "charset=punycode (2 MB)": lambda: Case(
            fixed(
                ("<main><p>" + "ä" * MiB + "</p></main>").encode(),
                content_type="text/html; charset=punycode",
            )
        ),
    }


SLOW = {"unguarded: lexbor parsing 100,000 nested": lambda: Case(run=lexbor(100_000))}


def run_case(name: str) -> dict:
    """In this (fresh) process: serve the case, read it, report."""
    import anyio

    from pinax.errors import PinaxError
    from pinax.pages import Fetcher, Limits
    from pinax.tools import Tools
    from tests.support.raw_server import RawServer

    case = {**cases(), **SLOW}[name]()
    serve = case.serve or (lambda server, connection: None)
    with RawServer(serve) as server, tempfile.TemporaryDirectory() as folder:
        url = server.url("/page")
        manifest = Path(folder) / "bench.json"
        page = {"url": url, "title": "p"}
        manifest.write_text(
            json.dumps({"pinax_manifest": 1, "name": "b", "url": url, "pages": [page]})
        )
        tools = Tools.open([manifest], Path(folder) / "cache", ttl=0)
        reader = tools.reader
        assert reader is not None
        limits = Limits(**case.limits)
        reader.fetcher = Fetcher(reader.policy.check, limits, addresses=reader.policy.addresses)
        before = peak_mb()
        started = time.perf_counter()
        try:
            if case.run is not None:
                outcome = "ok: " + case.run(url)
            else:
                result = anyio.run(tools.get_page, url)
                outcome = f"ok: {len(result['markdown']):,} chars of Markdown"
        except PinaxError as exc:
            outcome = f"{exc.code}: {exc.message.split(': ', 1)[-1]}"
        seconds = time.perf_counter() - started
    return {"outcome": outcome, "seconds": seconds, "rss_before": before, "rss_peak": peak_mb()}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--case", help=argparse.SUPPRESS)
    parser.add_argument("--slow", action="store_true", help="also the unguarded 100,000-deep parse")
    args = parser.parse_args()
    if args.case:
        print(json.dumps(run_case(args.case)))
        return
    names = list(cases()) + (list(SLOW) if args.slow else [])
    print(f"{'case':<44} {'seconds':>8} {'RSS before':>11} {'peak RSS':>9}  outcome")
    for name in names:
        done = subprocess.run(
            [sys.executable, "-m", "bench.speed.limits", "--case", name],
            capture_output=True,
            text=True,
            timeout=3600,
        )
        if done.returncode != 0:
            print(f"{name:<44} failed: {done.stderr.strip().splitlines()[-1:]}")
            continue
        r = json.loads(done.stdout.strip().splitlines()[-1])
        outcome = r["outcome"] if len(r["outcome"]) < 90 else r["outcome"][:87] + "..."
        memory = f"{r['rss_before']:>8.0f} MB {r['rss_peak']:>6.0f} MB"
        print(f"{name:<44} {r['seconds']:>7.2f}s {memory}  {outcome}")


if __name__ == "__main__":
    main()
