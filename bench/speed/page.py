"""get_page figures: cache-hit latency through the tool function, cold fetch + extract time.

    python -m bench.speed.page [--hits 300] [--colds 3]

Real fixture pages (../shared/fixtures/sites, or $PINAX_SHARED) are served from a loopback
HTTP server. A cache hit is `await Tools.get_page(url)` on a warm cache, in one event loop,
timed per call; beside it, in the same run, the plain baselines: one `diskcache` read of the
same entry, and `json.dumps` of the result (what the server does with it anyway). A cold call
is the first get_page on an empty cache (loopback fetch, extraction, cache write, budget);
beside it, a plain httpx GET and the extraction alone.
"""

from __future__ import annotations

import argparse
import gzip
import json
import statistics
import tempfile
import time
from pathlib import Path

import anyio
import httpx

from bench.harness.corpora import SHARED
from bench.harness.timing import percentile
from pinax.pages.extract import decode_html, extract
from pinax.tools import Tools
from tests.support.http_site import Reply, Site

PAGES = (
    "sphinx/requests-advanced",  # ~100 KB of HTML
    "mkdocs-material/changelog",  # ~140 KB of Markdown
    "hard-cases/huge-python-changelog",  # 5.5 MB of HTML
)


def page_body(name: str) -> bytes:
    folder = SHARED / "fixtures" / "sites" / name
    meta = json.loads((folder / "meta.json").read_text())
    raw = (folder / meta["page_file"]).read_bytes()
    return gzip.decompress(raw) if meta["page_file"].endswith(".gz") else raw


def open_tools(site: Site, cache_dir: Path) -> Tools:
    pages = [{"url": site.url(f"/{name}"), "title": name} for name in PAGES]
    manifest = cache_dir / "bench.json"
    manifest.write_text(
        json.dumps({"pinax_manifest": 1, "name": "bench", "url": site.url("/"), "pages": pages})
    )
    # The site is on loopback, which an operator must allow (as the tests do).
    return Tools.open([manifest], cache_dir=cache_dir / "cache", allow_private=["127.0.0.1/32"])


def ms(seconds: float) -> str:
    return f"{seconds * 1000:8.2f}"


async def timed_calls(
    tools: Tools, url: str, count: int, section: str | None = None, cursor: str | None = None
) -> list[float]:
    times = []
    for _ in range(count):
        started = time.perf_counter()
        await tools.get_page(url, section=section, cursor=cursor)
        times.append(time.perf_counter() - started)
    return times


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--hits", type=int, default=300)
    parser.add_argument("--colds", type=int, default=3)
    args = parser.parse_args()
    bodies = {name: page_body(name) for name in PAGES}
    with Site() as site:
        for name, body in bodies.items():
            site.add(f"/{name}", Reply(200, body, {"Content-Type": "text/html; charset=utf-8"}))
        print(f"{'page':36} {'html KB':>8} {'md KB':>7}   (times in ms)")
        cold_rows, hit_rows = [], []
        for name in PAGES:
            url = site.url(f"/{name}")
            colds, fetches, extracts = [], [], []
            for _ in range(args.colds):
                with tempfile.TemporaryDirectory() as folder:
                    tools = open_tools(site, Path(folder))
                    started = time.perf_counter()
                    anyio.run(tools.get_page, url)
                    colds.append(time.perf_counter() - started)
                    tools.reader.cache.close()
                started = time.perf_counter()
                body = httpx.get(url).content
                fetches.append(time.perf_counter() - started)
                started = time.perf_counter()
                extract(decode_html(body, "utf-8"), url)
                extracts.append(time.perf_counter() - started)
            cold_rows.append((name, colds, fetches, extracts))

            with tempfile.TemporaryDirectory() as folder:
                tools = open_tools(site, Path(folder))
                whole = anyio.run(tools.reader.read, url)
                first = anyio.run(tools.get_page, url)
                hits = anyio.run(timed_calls, tools, url, args.hits)
                anchor = (first.get("outline") or [{}])[-1].get("anchor")
                sections = anyio.run(timed_calls, tools, url, args.hits // 3, anchor)
                cursor = first.get("next_cursor")
                cursors = anyio.run(timed_calls, tools, url, args.hits // 3, None, cursor)
                cache = tools.reader.cache
                raw = []
                for _ in range(args.hits):
                    started = time.perf_counter()
                    cache.get(url)
                    raw.append(time.perf_counter() - started)
                dumps = []
                for _ in range(args.hits):
                    started = time.perf_counter()
                    json.dumps(first, ensure_ascii=False, separators=(",", ":"))
                    dumps.append(time.perf_counter() - started)
                cache.close()
            size = len(whole["markdown"].encode()) / 1024
            print(f"{name:36} {len(bodies[name]) / 1024:8.0f} {size:7.0f}")
            hit_rows.append((name, hits, sections, cursors, raw, dumps))

    print("\ncache hit through Tools.get_page (default max_tokens 8000), vs baselines")
    print(
        f"{'page':36} {'p50':>8} {'p99':>8} | {'section':>8} {'cursor':>8} | "
        f"{'cache.get':>9} {'dumps':>8}   (p50 ms; baselines: one diskcache read, one json.dumps)"
    )
    for name, hits, sections, cursors, raw, dumps in hit_rows:
        print(
            f"{name:36} {ms(percentile(hits, 0.5))} {ms(percentile(hits, 0.99))} | "
            f"{ms(percentile(sections, 0.5))} {ms(percentile(cursors, 0.5))} | "
            f"{ms(percentile(raw, 0.5)):>9} {ms(percentile(dumps, 0.5))}"
        )
    print("\ncold get_page (empty cache: loopback fetch + extract + cache write + budget)")
    print(f"{'page':36} {'cold':>8} | {'httpx GET':>9} {'extract':>8}   (median ms)")
    for name, colds, fetches, extracts in cold_rows:
        print(
            f"{name:36} {ms(statistics.median(colds))} | {ms(statistics.median(fetches)):>9} "
            f"{ms(statistics.median(extracts))}"
        )


if __name__ == "__main__":
    main()
