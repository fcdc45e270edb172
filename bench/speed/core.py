"""Core figures: spawn-to-initialize of `pinax serve`, index build, search latency vs rank-bm25.

    python -m bench.speed.core [--runs 5]

Loads every manifest in ../shared/corpora/manifests (or $PINAX_SHARED). Search latency is
measured on each corpus's DEV queries, as a function call, beside rank-bm25's
`BM25Okapi.get_scores` on the same tokens in the same run.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
import tracemalloc
from pathlib import Path

import anyio
from mcp import Client, StdioServerParameters
from rank_bm25 import BM25Okapi

from bench.harness.bm25 import page_tokens, plain_tokens
from bench.harness.corpora import SHARED
from bench.harness.timing import percentile
from pinax import manifest as manifest_io
from pinax.library import Library

ROOT = Path(__file__).resolve().parents[2]

MANIFESTS = SHARED / "corpora" / "manifests"
EVAL = SHARED / "corpora" / "eval"


async def spawn_to_initialize(paths: list[Path], mode: str) -> tuple[float, float]:
    """Seconds from spawn to the initialize answer, and to the first search answer."""
    args = ["-m", "pinax", "serve", "--cache-dir", "/tmp/pinax-bench-cache"]
    for path in paths:
        args += ["--docs", str(path)]
    params = StdioServerParameters(command=sys.executable, args=args, env={"PYTHONPATH": str(ROOT)})
    started = time.perf_counter()
    async with Client(params, mode=mode) as client:
        ready = time.perf_counter() - started
        await client.call_tool("search_pages", {"query": "fetch api"})
        searched = time.perf_counter() - started
    return ready, searched


def queries_for(name: str) -> list[str]:
    path = EVAL / f"{name}.dev.jsonl"
    if not path.exists():
        return ["getting started", "configuration reference", "api"]
    return [json.loads(line)["query"] for line in path.read_text().splitlines() if line.strip()]


def bench_manifest(path: Path) -> dict:
    loaded = manifest_io.load(path)
    tracemalloc.start()
    started = time.perf_counter()
    library = Library([loaded])
    library.warm()  # the in-memory index, as a server without an index folder builds it
    build = time.perf_counter() - started
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()

    queries = queries_for(loaded.name)
    pinax_times = []
    for query in queries:
        t = time.perf_counter()
        library.search(query, 10)
        pinax_times.append((time.perf_counter() - t) * 1000)

    baseline = BM25Okapi([page_tokens(p.url, p.title, p.section) for p in loaded.pages])
    sample = queries[:: max(1, len(queries) // 200)]  # rank-bm25 is slow: 200 queries are plenty
    bm25_times = []
    for query in sample:
        tokens = plain_tokens(query)
        t = time.perf_counter()
        baseline.get_scores(tokens)
        bm25_times.append((time.perf_counter() - t) * 1000)
    return {
        "name": loaded.name,
        "pages": len(loaded.pages),
        "build_s": build,
        "build_peak_mb": peak / 2**20,
        "queries": len(queries),
        "p50": percentile(pinax_times, 0.5),
        "p99": percentile(pinax_times, 0.99),
        "bm25_p50": percentile(bm25_times, 0.5),
        "bm25_p99": percentile(bm25_times, 0.99),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5, help="server spawns per protocol era")
    args = parser.parse_args()
    paths = sorted(MANIFESTS.glob("*.json"))
    if not paths:
        sys.exit(f"no manifests under {MANIFESTS}: set PINAX_SHARED")
    total = sum(len(json.loads(p.read_text())["pages"]) for p in paths)

    print(f"# pinax serve with {len(paths)} manifests ({total:,} pages), {args.runs} spawns each")
    print(f"{'era':<8} {'initialize p50':>15} {'max':>8} {'first search p50':>17}")
    for mode in ("legacy", "auto"):
        runs = [anyio.run(spawn_to_initialize, paths, mode) for _ in range(args.runs)]
        ready = [r for r, _ in runs]
        searched = [s for _, s in runs]
        print(
            f"{mode:<8} {statistics.median(ready):>14.3f}s {max(ready):>7.3f}s "
            f"{statistics.median(searched):>16.3f}s"
        )

    print("\n# index build and search_pages latency (function call) vs rank-bm25 get_scores")
    header = (
        f"{'manifest':<11} {'pages':>6} {'build':>7} {'peak MB':>8} {'queries':>7} "
        f"{'p50 ms':>7} {'p99 ms':>7} {'bm25 p50':>9} {'bm25 p99':>9} {'speed-up':>8}"
    )
    print(header)
    for path in paths:
        r = bench_manifest(path)
        print(
            f"{r['name']:<11} {r['pages']:>6} {r['build_s']:>6.3f}s {r['build_peak_mb']:>8.1f} "
            f"{r['queries']:>7} {r['p50']:>7.3f} {r['p99']:>7.3f} {r['bm25_p50']:>9.3f} "
            f"{r['bm25_p99']:>9.3f} {r['bm25_p50'] / r['p50']:>7.1f}x"
        )


if __name__ == "__main__":
    main()
