"""Search speed with API symbols: a CPython-size manifest (11,000 symbols on 540 pages) and a
large synthetic one (about 5 symbols a page), each beside the same pages without symbols.

    python -m bench.speed.symbols                    # CPython-size, then 100,000 pages
    python -m bench.speed.symbols --pages 1000000    # the million pages outlines were held to

Lexical search (embedding weight 0), in process, after warm-up: p50 and p99 of
`Library.search` over qualified, bare and prose queries; the index build time; RSS.
"""

from __future__ import annotations

import argparse
import random
import time
from dataclasses import replace

from bench.harness.memory import peak_mb
from bench.harness.synth import cpython_size, generate
from bench.harness.timing import percentile
from pinax.library import Library
from pinax.manifest import Manifest, from_dict


def queries(manifest: Manifest, count: int, seed: int = 7) -> list[str]:
    rng = random.Random(seed)
    names = [s.name for p in manifest.pages for s in p.symbols]
    picked = rng.sample(names, min(count, len(names)))
    half = len(picked) // 2
    prose = ["how to configure logging", "read a file", "json encoder", "async tasks"]
    return picked[:half] + [n.rsplit(".", 1)[-1] for n in picked[half:]] + prose


def timed(manifest: Manifest, batch: list[str]) -> dict[str, float]:
    started = time.perf_counter()
    library = Library([manifest])
    for docs in library.all():
        docs.warm(read_files=False)
    built = time.perf_counter() - started
    for q in batch[:50]:
        library.search(q, 10, lexical_weight=1.0, embedding_weight=0.0)
    times = []
    for q in batch:
        t = time.perf_counter()
        library.search(q, 10, lexical_weight=1.0, embedding_weight=0.0)
        times.append((time.perf_counter() - t) * 1000)
    rss = peak_mb()
    return {
        "build_s": built,
        "p50": percentile(times, 0.5),
        "p99": percentile(times, 0.99),
        "rss": rss,
    }


def report(label: str, manifest: Manifest, batch: list[str]) -> None:
    bare = replace(manifest, pages=tuple(replace(p, symbols=()) for p in manifest.pages))
    symbols = sum(len(p.symbols) for p in manifest.pages)
    for kind, m in (("without symbols", bare), ("with symbols", manifest)):
        r = timed(m, batch)
        print(
            f"| {label} | {len(manifest.pages):,} | {symbols:,} | {kind} | {r['build_s']:.2f} "
            f"| {r['p50']:.3f} | {r['p99']:.3f} | {r['rss']:.0f} |",
            flush=True,
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pages", type=int, default=100_000)
    parser.add_argument("--queries", type=int, default=400)
    args = parser.parse_args()
    print("| case | pages | symbols | index | build s | p50 ms | p99 ms | peak RSS MB |")
    print("|---|---|---|---|---|---|---|---|")
    cpython = cpython_size()
    report("CPython-size", cpython, queries(cpython, args.queries))
    synthetic = from_dict(generate(args.pages, symbols=True))
    report("synthetic", synthetic, queries(synthetic, args.queries))


if __name__ == "__main__":
    main()
