"""Search speed, memory and scale: Pinax beside rank-bm25's `get_scores` at the same size.

    python -m bench.speed.search                # MDN (14,592 real pages), 10k and 100k pages
    python -m bench.speed.search --million      # and 1,000,000 pages (minutes; ~2 GB disk)
    python -m bench.speed.search --sizes 10000 --skip-mcp --skip-baseline
    python -m bench.speed.search --outlines --million   # every page with its outline
    python -m bench.speed.search --symbols --sizes 1000000 --skip-mcp --skip-baseline
    python -m bench.speed.search --sizes mdn --cold     # and what the queries read, 4 KB a page

Synthetic manifests come from bench.harness.synth (real titles' vocabulary and URL
shapes), generated once into --data (default /tmp/pinax-bench). Queries are the DEV queries of
every corpus (the clean sets) and the edited queries of the typo sets. Each size runs in fresh
processes so that memory figures are its own:

- build: manifest JSON -> validated manifest -> page table + index -> saved index file
  (time, peak RSS of the process and the workers that parse a large manifest, added up,
  sampled every 20 ms; file size);
- restart: a new process opening the manifest through the saved index (time, RSS);
- search_pages as a function call (`Tools.search_pages`, validation and result rows included):
  p50/p99 for clean and for typo queries, RSS after all of them; then the same in another
  process with embedding_weight 0 (what the re-rank by meaning costs); with --cold, once more
  by words with the index dropped from the page cache and not read ahead, so that each query
  reads only the 4 KB pages it touches: the serving RSS is then the index's working set (the
  kernel may otherwise map a whole large folio of a cached file for one byte read);
- rank-bm25 `BM25Okapi.get_scores` over the same pages (URL path + title + section tokens),
  on a sample of the clean queries, in its own process;
- `pinax serve` spawn-to-initialize with the saved index, beside its floor (a Python that only
  imports what the server cannot start without: the MCP SDK and numpy), and for 100k the p50/p99 of
  `tools/call search_pages` over stdio from a real `mcp.Client` (warm server), beside the
  two halves of that round trip (bench.harness.mcp_floor): the same client against a server that
  does no work, and the server answering a client that does no work;
- batch `pinax search` with the MDN DEV queries on stdin, start-up included.

With --outlines, MDN carries the shared outlines (../shared/corpora/outlines, about 104,000
headings) and the synthetic manifests about 7 headings a page (see bench.harness.synth), and the
bars are those outlines were held to (OUTLINE_BARS).

Last, each bar search is held to (BARS) beside what was measured against it (search p50/p99 over
the first pass of clean and typo queries together), and the bars missed, by name.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

from bench.harness import mcp_floor
from bench.harness.corpora import SHARED
from bench.harness.memory import TreePeak, peak_mb, rss_mb
from bench.harness.runs import lexical_only
from bench.harness.timing import percentile

ROOT = Path(__file__).resolve().parents[2]

CORPORA = SHARED / "corpora"
MCP_CALLS = 400
PASSES = 3  # search timings: the first pass as it comes, and each query's best of the passes
SMALL, EVERY = ("mdn", "10000"), ("mdn", "10000", "100000", "1000000")
# The bars search is held to: (sizes held to it, the row's measure, its name, at most). Search
# p50/p99 are of the first pass over clean and typo queries together ("typo queries included").
BARS = [
    (EVERY, "spawn_init_s", "spawn->init s", 1.0),
    (SMALL, "all_p50", "p50 ms", 0.1),
    (SMALL, "all_p99", "p99 ms", 0.5),
    (("100000",), "all_p50", "p50 ms", 0.15),
    (("100000",), "all_p99", "p99 ms", 1.0),
    (("1000000",), "all_p50", "p50 ms", 0.5),
    (("1000000",), "all_p99", "p99 ms", 4.0),
    (("100000",), "typo_p50", "typo p50 ms", 1.0),
    (("100000",), "typo_p99", "typo p99 ms", 2.0),
    (("1000000",), "typo_p50", "typo p50 ms", 5.0),
    (("1000000",), "typo_p99", "typo p99 ms", 15.0),
    (("1000000",), "build_s", "build s", 20.0),
    (("1000000",), "build_peak_mb", "build peak MB", 2048.0),
    (("1000000",), "load_s", "restart s", 0.5),
    (("1000000",), "serving_rss_mb", "serving RSS MB", 400.0),
    (("100000",), "mcp_p50", "MCP p50 ms", 2.0),  # unless --skip-mcp
    (("100000",), "mcp_p99", "MCP p99 ms", 5.0),
    (("mdn",), "batch_s", "batch s", 3.0),
]
# The bar the embedding is held to: search p50 at most 0.3 ms above embedding_weight 0, same run.
EMBEDDING_BARS = [(("mdn", "100000"), "embedding_cost_p50", "embedding cost p50 ms", 0.3)]
BARS += EMBEDDING_BARS
# The bars outlines are held to, with every page's outline indexed: its search by words
# (embedding_weight 0, its own process), since EMBEDDING_BARS set what meaning may add
# on top (p50 at most 0.3 ms more at MDN and 100k; p99 at 1M still within 4 ms).
OUTLINE_BARS = [
    (EVERY, "spawn_init_s", "spawn->init s", 1.0),
    (("mdn",), "words_p50", "p50 ms by words", 0.1),
    (("mdn",), "words_p99", "p99 ms by words", 0.5),
    (("1000000",), "words_p50", "p50 ms by words", 0.5),
    (("1000000",), "words_p99", "p99 ms by words", 4.0),
    (("1000000",), "all_p99", "p99 ms default weights", 4.0),
    (("1000000",), "build_s", "build s", 40.0),
    (("1000000",), "build_peak_mb", "build peak MB", 3072.0),
    (("1000000",), "load_s", "restart s", 0.5),
    (("1000000",), "serving_rss_mb", "serving RSS MB", 700.0),
    (("mdn",), "batch_s", "batch s", 3.0),
    *EMBEDDING_BARS,
]


def queries() -> tuple[list[str], list[str]]:
    """(clean DEV queries of every corpus, edited queries of the typo sets)."""
    clean, typo = [], []
    for path in sorted((CORPORA / "eval").glob("*.dev.jsonl")):
        clean += [json.loads(line)["query"] for line in path.read_text().splitlines() if line]
    for path in sorted((CORPORA / "eval").glob("*.dev.typo.jsonl")):
        for line in path.read_text().splitlines():
            row = json.loads(line) if line else None
            if row and row["query"] != row["original"]:
                typo.append(row["query"])
    return clean, typo


def manifest_for(size: str, data: Path, outlines: bool = False, symbols: bool = False) -> Path:
    if size == "mdn" and outlines:
        from bench.harness.corpora import outlined_manifest
        from pinax.manifest import dump

        joined = data / "mdn-outlines.json"
        data.mkdir(parents=True, exist_ok=True)
        joined.write_text(dump(outlined_manifest("mdn")))
        return joined
    if size == "mdn":
        return CORPORA / "manifests" / "mdn.json"
    from bench.harness.synth import ensure

    return ensure(int(size), data, outlines=outlines, symbols=symbols)


# ---------------------------------------------------------------------------------------------
# Workers (each in its own process)


def work_build(manifest: Path, cache: Path) -> dict:
    """Build the index file from JSON, as a first start does."""
    from pinax.library import Library

    started = time.perf_counter()
    with TreePeak() as peak:
        library = Library.load([manifest], index_dir=cache)
    seconds = time.perf_counter() - started
    files = list(cache.glob("*.pxi"))
    return {
        "build_s": seconds,
        "build_peak_mb": peak.mb,
        "build_own_peak_mb": peak_mb(),
        "index_mb": sum(f.stat().st_size for f in files) / 2**20,
        "pages": len(library.all()[0].pages),
    }


def work_search(
    manifest: Path, cache: Path, weights: str = "default", page_cache: str = "warm"
) -> dict:
    """Restart through the saved index, then time search_pages calls, with the default
    weights or (`weights` "words") with embedding_weight 0. Each in a process of its own, so
    that neither is timed with the caches the other's run of the same query left.

    `page_cache` "cold": the index files dropped from the page cache first and not read
    ahead, so that each query reads from the disk only the 4 KB pages it touches. The
    serving RSS is then the index's working set, whatever folios the kernel would map."""
    cold = page_cache == "cold"
    if cold:
        for index_file in cache.glob("*.pxi"):
            drop_from_page_cache(index_file)
    started = time.perf_counter()
    from pinax.library import Library
    from pinax.tools import Tools

    library = Library.load([manifest], index_dir=cache)
    loaded = time.perf_counter() - started
    load_rss = rss_mb()
    tools = Tools(library)
    library.warm(read_files=not cold)  # as `pinax serve` does in the background after start-up
    clean, typo = queries()
    options = {"embedding_weight": 0} if weights == "words" else {}
    for q in clean[:50]:  # warm the caches of the code path, not of the answers
        tools.search_pages(q, **options)
    result = {"load_s": loaded, "load_rss_mb": load_rss}
    first_passes: list[float] = []
    for label, batch in (("clean", clean), ("typo", typo)):
        passes = []
        for _ in range(PASSES):
            times = []
            for q in batch:
                t = time.perf_counter()
                tools.search_pages(q, **options)
                times.append((time.perf_counter() - t) * 1000)
            passes.append(times)
        best = [min(each) for each in zip(*passes, strict=True)]
        first_passes += passes[0]
        result[f"{label}_n"] = len(batch)
        result[f"{label}_p50"] = percentile(passes[0], 0.5)
        result[f"{label}_p99"] = percentile(passes[0], 0.99)
        result[f"{label}_best_p50"] = percentile(best, 0.5)
        result[f"{label}_best_p99"] = percentile(best, 0.99)
    result["all_p50"] = percentile(first_passes, 0.5)  # the bars: typo queries included
    result["all_p99"] = percentile(first_passes, 0.99)
    result["serving_rss_mb"] = rss_mb()
    result["serving_anon_mb"], result["serving_file_mb"] = rss_mb("RssAnon"), rss_mb("RssFile")
    return result


def drop_from_page_cache(path: Path) -> None:
    """Write out and drop a file's pages from the page cache (for its own pages, no root
    needed): the next reads come from the disk, as after a reboot."""
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
        os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)
    finally:
        os.close(fd)


def calibration() -> float:
    """Milliseconds this machine takes for `sum(range(10**7))` (best of 3), to compare runs
    on different or busy machines (a typical recent desktop: about 80 ms)."""
    best = float("inf")
    for _ in range(3):
        t = time.perf_counter()
        sum(range(10**7))
        best = min(best, time.perf_counter() - t)
    return best * 1000


def work_baseline(manifest: Path, sample: int) -> dict:
    """rank-bm25 over the same pages, on a sample of the clean queries."""
    from rank_bm25 import BM25Okapi

    from bench.harness.bm25 import page_tokens, plain_tokens

    pages = json.loads(manifest.read_text())["pages"]
    started = time.perf_counter()
    bm25 = BM25Okapi([page_tokens(p["url"], p["title"], p["section"]) for p in pages])
    built = time.perf_counter() - started
    del pages
    clean, _ = queries()
    step = max(1, len(clean) // sample)
    times = []
    for q in clean[::step][:sample]:
        t = time.perf_counter()
        bm25.get_scores(plain_tokens(q))
        times.append((time.perf_counter() - t) * 1000)
    return {
        "bm25_build_s": built,
        "bm25_p50": percentile(times, 0.5),
        "bm25_p99": percentile(times, 0.99),
        "bm25_n": len(times),
        "bm25_peak_mb": peak_mb(),
    }


def run_worker(kind: str, *args: str) -> dict:
    done = subprocess.run(
        [sys.executable, "-m", "bench.speed.search", "--worker", kind, *args],
        capture_output=True,
        text=True,
        check=False,
    )
    if done.returncode:
        sys.exit(f"worker {kind} failed:\n{done.stderr}")
    return json.loads(done.stdout.splitlines()[-1])


# ---------------------------------------------------------------------------------------------
# Through processes: pinax serve over stdio, batch pinax search


def serve_params(manifest: Path, cache_root: Path):  # type: ignore[no-untyped-def]
    from mcp import StdioServerParameters

    args = ["-m", "pinax", "serve", "--cache-dir", str(cache_root), "--docs", str(manifest)]
    env = {"PYTHONPATH": str(ROOT), "PATH": os.environ.get("PATH", "")}
    return StdioServerParameters(command=sys.executable, args=args, env=env)


async def spawn_to_initialize(manifest: Path, cache_root: Path) -> float:
    from mcp import Client

    started = time.perf_counter()
    async with Client(serve_params(manifest, cache_root), mode="legacy"):
        return time.perf_counter() - started


def mcp_queries(calls: int) -> list[str]:
    clean, typo = queries()
    return (clean[::3] + typo[::3])[:calls]


async def mcp_latency(
    manifest: Path, cache_root: Path, calls: int, record: Path | None = None
) -> dict:
    """p50/p99 of search_pages through `mcp.Client`; `record` keeps what the server sent, for
    the replaying server of mcp_floor."""
    from mcp import Client

    mixed = mcp_queries(calls)
    async with Client(serve_params(manifest, cache_root), mode="legacy") as client:
        for q in mixed[:30]:
            await client.call_tool("search_pages", {"query": q})
        times = []
        for q in mixed:
            t = time.perf_counter()
            result = await client.call_tool("search_pages", {"query": q})
            times.append((time.perf_counter() - t) * 1000)
            assert not result.is_error, result
        if record is not None:
            record.write_text(json.dumps(mcp_floor.record(await client.list_tools(), result)))
    return {
        "mcp_n": len(times),
        "mcp_p50": percentile(times, 0.5),
        "mcp_p99": percentile(times, 0.99),
    }


async def mcp_halves(manifest: Path, cache_root: Path, answers: Path, calls: int) -> dict:
    """The client's and the server's shares of the round trip (see bench.harness.mcp_floor), with
    the `answers` an `mcp_latency` run recorded."""
    mixed = mcp_queries(calls)
    row = await mcp_floor.client_floor(answers, mixed, calls)
    params = serve_params(manifest, cache_root)
    row.update(mcp_floor.server_alone([params.command, *params.args], params.env, mixed, calls))
    return row


def import_floor() -> float:
    """Seconds from spawn to the end of the imports of a Python that only imports what the
    server cannot start without (the MCP SDK and numpy): the floor under spawn-to-initialize.
    Timed to a line it prints then, not to its exit, which would add the interpreter's
    teardown that a serving process never pays before it answers."""
    code = "import mcp.server.mcpserver, numpy; print('imported', flush=True)"
    times = []
    for _ in range(3):
        started = time.perf_counter()
        with subprocess.Popen(
            [sys.executable, "-c", code],
            stdout=subprocess.PIPE,
            env={"PATH": os.environ.get("PATH", "")},
        ) as child:
            assert child.stdout is not None and child.stdout.readline() == b"imported\n"
            times.append(time.perf_counter() - started)
    return statistics.median(times)


def batch_search(manifest: Path, cache_root: Path) -> dict:
    lines = [
        json.loads(x)["query"]
        for x in (CORPORA / "eval" / "mdn.dev.jsonl").read_text().splitlines()
        if x
    ]
    env = {**os.environ, "PINAX_CACHE_DIR": str(cache_root), "PYTHONPATH": str(ROOT)}
    command = [sys.executable, "-m", "pinax", "search", "--docs", str(manifest)]
    subprocess.run(command, input="warm\n", capture_output=True, text=True, env=env, check=True)
    started = time.perf_counter()
    done = subprocess.run(
        command, input="\n".join(lines) + "\n", capture_output=True, text=True, env=env, check=True
    )
    seconds = time.perf_counter() - started
    answered = sum(1 for line in done.stdout.splitlines() if '"results"' in line)
    return {"batch_queries": len(lines), "batch_answered": answered, "batch_s": seconds}


# ---------------------------------------------------------------------------------------------


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--million", action="store_true", help="also run 1,000,000 pages")
    parser.add_argument(
        "--sizes", help="comma-separated: mdn and page counts (default mdn,10000,100000)"
    )
    parser.add_argument("--data", type=Path, default=Path("/tmp/pinax-bench"))
    parser.add_argument("--outlines", action="store_true", help="every page with an outline")
    parser.add_argument(
        "--symbols", action="store_true", help="synthetic pages with about 5 API symbols each"
    )
    parser.add_argument(
        "--lexical-only",
        action="store_true",
        help="build and search as if the embedding model were not installed (its baseline)",
    )
    parser.add_argument(
        "--cold",
        action="store_true",
        help="also search by words from a cold page cache: the index's working set",
    )
    parser.add_argument("--skip-mcp", action="store_true")
    parser.add_argument("--skip-baseline", action="store_true")
    parser.add_argument("--baseline-sample", type=int, default=40)
    parser.add_argument("--worker", nargs="+", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.worker:
        if os.environ.get("PINAX_BENCH_LEXICAL_ONLY"):
            lexical_only()
        kind, *rest = args.worker
        if kind == "build":
            result = work_build(Path(rest[0]), Path(rest[1]))
        elif kind == "search":
            result = work_search(Path(rest[0]), Path(rest[1]), *rest[2:])
        else:
            result = work_baseline(Path(rest[0]), int(rest[1]))
        print(json.dumps(result))
        return

    import asyncio
    import shutil

    import anyio

    if args.lexical_only:
        os.environ["PINAX_BENCH_LEXICAL_ONLY"] = "1"  # the workers' environment
    sizes = (args.sizes or "mdn,10000,100000").split(",")
    if args.million and "1000000" not in sizes:
        sizes.append("1000000")
    clean, typo = queries()
    print(f"# queries: {len(clean)} clean DEV queries, {len(typo)} edited typo queries")
    print(f"# machine: sum(range(10**7)) in {calibration():.0f} ms, load {os.getloadavg()}\n")
    rows = []
    for size in sizes:
        manifest = manifest_for(size, args.data, args.outlines, args.symbols)
        cache_root = args.data / f"cache-{size}"
        shutil.rmtree(cache_root, ignore_errors=True)
        index_dir = cache_root / "indexes"
        row = {"size": size}
        row.update(run_worker("build", str(manifest), str(index_dir)))
        row.update(run_worker("search", str(manifest), str(index_dir)))
        words = run_worker("search", str(manifest), str(index_dir), "words")
        row["words_p50"], row["words_p99"] = words["all_p50"], words["all_p99"]
        row["embedding_cost_p50"] = row["all_p50"] - row["words_p50"]
        if args.cold:
            cold = run_worker("search", str(manifest), str(index_dir), "words", "cold")
            row["cold_p50"], row["cold_p99"] = cold["all_p50"], cold["all_p99"]
            row["cold_rss_mb"], row["cold_file_mb"] = (
                cold["serving_rss_mb"],
                cold["serving_file_mb"],
            )
        if not args.skip_baseline:
            row.update(run_worker("baseline", str(manifest), str(args.baseline_sample)))
        spawns = [asyncio.run(spawn_to_initialize(manifest, cache_root)) for _ in range(3)]
        row["spawn_init_s"] = statistics.median(spawns)
        row["import_floor_s"] = import_floor()
        if not args.skip_mcp and size == "100000":
            # Twice, one after the other (a client under asyncio.run, then one under anyio.run,
            # each with its own server): how far the two runs differ shows this machine's noise.
            answers = cache_root / "mcp-answers.json"
            row.update(asyncio.run(mcp_latency(manifest, cache_root, MCP_CALLS, answers)))
            on_anyio = anyio.run(mcp_latency, manifest, cache_root, MCP_CALLS)
            row["mcp_anyio_p50"], row["mcp_anyio_p99"] = on_anyio["mcp_p50"], on_anyio["mcp_p99"]
            row.update(asyncio.run(mcp_halves(manifest, cache_root, answers, MCP_CALLS)))
        if size == "mdn":
            row.update(batch_search(manifest, cache_root))
        rows.append(row)
        print(json.dumps(row), flush=True)
    report(rows)
    check(rows, OUTLINE_BARS if args.outlines else BARS)


def report(rows: list[dict]) -> None:
    print(
        "\n| pages | build s | build peak MB | index MB | restart s | RSS after load MB "
        "| p50 ms | p99 ms | typo p50 ms | typo p99 ms | best-of-3 p50/p99 | typo best-of-3 "
        "| serving RSS MB | rank-bm25 p50 ms | rank-bm25 p99 ms | spawn->init s "
        "| import floor s |"
    )
    print("|---" * 17 + "|")
    for r in rows:
        bm25 = f"{r['bm25_p50']:.2f} | {r['bm25_p99']:.2f}" if "bm25_p50" in r else "- | -"
        print(
            f"| {r['pages']:,} ({r['size']}) | {r['build_s']:.2f} | {r['build_peak_mb']:.0f} "
            f"| {r['index_mb']:.0f} | {r['load_s']:.3f} | {r['load_rss_mb']:.0f} "
            f"| {r['clean_p50']:.3f} | {r['clean_p99']:.3f} | {r['typo_p50']:.3f} "
            f"| {r['typo_p99']:.3f} | {r['clean_best_p50']:.3f} / {r['clean_best_p99']:.3f} "
            f"| {r['typo_best_p50']:.3f} / {r['typo_best_p99']:.3f} "
            f"| {r['serving_rss_mb']:.0f} | {bm25} | {r['spawn_init_s']:.2f} "
            f"| {r['import_floor_s']:.2f} |"
        )
    for r in rows:
        print(
            f"\nserving RSS at {r['pages']:,} pages: {r['serving_rss_mb']:.0f} MB, of which "
            f"{r['serving_file_mb']:.0f} MB are pages of mapped files (the index, and the code of "
            f"Python and its libraries) and {r['serving_anon_mb']:.0f} MB the process's own"
        )
    for r in rows:
        if "cold_rss_mb" in r:
            print(
                f"from a cold page cache, no read-ahead, by words: p50 {r['cold_p50']:.3f} ms, "
                f"p99 {r['cold_p99']:.3f} ms (first pass, disk reads included); serving RSS "
                f"{r['cold_rss_mb']:.0f} MB, of which {r['cold_file_mb']:.0f} MB mapped files: "
                "the 4 KB pages the queries read"
            )
    print(
        "\n| pages | p50 ms default weights | p50 ms embedding_weight 0 | embedding cost p50 ms "
        "| p99 ms default | p99 ms embedding_weight 0 |\n|---|---|---|---|---|---|"
    )
    for r in rows:
        print(
            f"| {r['size']} | {r['all_p50']:.3f} | {r['words_p50']:.3f} "
            f"| {r['embedding_cost_p50']:+.3f} | {r['all_p99']:.3f} | {r['words_p99']:.3f} |"
        )
    for r in rows:
        if "mcp_p50" in r:
            print(
                f"\nMCP tools/call search_pages over stdio at {r['pages']:,} pages: "
                f"p50 {r['mcp_p50']:.2f} ms, p99 {r['mcp_p99']:.2f} ms ({r['mcp_n']} calls; "
                f"a second run, client under anyio.run: p50 {r['mcp_anyio_p50']:.2f}, "
                f"p99 {r['mcp_anyio_p99']:.2f})\n"
                f"  the same client against a server that replays a recorded answer at once "
                f"(the client's own floor): p50 {r['client_floor_p50']:.2f}, "
                f"p99 {r['client_floor_p99']:.2f}\n"
                f"  pinax serve answering raw JSON-RPC lines (the server alone): "
                f"p50 {r['server_alone_p50']:.2f}, p99 {r['server_alone_p99']:.2f}"
            )
        if "batch_s" in r:
            print(
                f"\nbatch `pinax search` of the MDN DEV set: {r['batch_answered']}/"
                f"{r['batch_queries']} queries in {r['batch_s']:.2f} s, start-up included"
            )


def bars(row: dict, table: list = BARS) -> list[tuple[str, float, float]]:
    """(name, measured, most allowed) for every bar of `table` a row was measured against."""
    return [
        (name, row[key], limit)
        for sizes, key, name, limit in table
        if row["size"] in sizes and key in row
    ]


def check(rows: list[dict], table: list = BARS) -> None:
    """Each bar beside its measure (p50/p99 over the first pass of clean and typo queries
    together); the ones missed, by name."""
    print("\n| pages | bar | measured | at most | met |\n|---|---|---|---|---|")
    missed = []
    for row in rows:
        for what, measured, limit in bars(row, table):
            met = measured <= limit
            verdict = "yes" if met else "NO"
            print(f"| {row['size']} | {what} | {measured:.3f} | {limit:g} | {verdict} |")
            if not met:
                missed.append(f"{row['size']} {what}")
    print(f"\nbars missed: {', '.join(missed)}" if missed else "\nevery bar measured here is met")


if __name__ == "__main__":
    main()
