"""Docs-folder figures: building a folder of N Markdown files, and rebuilding after one change.

    python -m bench.speed.folder [--files 10000]

The files are the shared fixtures' real `source.md` files (synthetic Markdown of the same
shape when the shared data is absent), each given front matter and a title of its own, in
folders of 100. Figures:

- cold: `pinax build DIR -o m.json` in a fresh process (start-up, scan, read, parse, validate,
  write): the bar is 10 s for 10,000 files.
- in-process first build and rebuild after touching one file (`FolderSource.build`): what
  `pinax serve --docs DIR` does on a change before the search index is rebuilt.
- index: the search index of the in-memory manifest made and searched once (the rest of a
  reload).
- reload: `pinax serve --docs DIR` over stdio (a real MCP client), one file changed, then
  search_pages asked every 50 ms until the change is found: the bar is 2 s.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from bench.harness.corpora import SHARED

ROOT = Path(__file__).resolve().parents[2]
BAR_SECONDS = 10.0


def sources() -> list[str]:
    found = sorted((SHARED / "fixtures" / "sites").glob("*/*/source.md"))
    texts = [p.read_text(encoding="utf-8", errors="replace") for p in found]
    return texts or [
        "# Page\n\n" + "\n\n".join(f"## Part {i}\n\nSome text about part {i}." for i in range(20))
    ]


def make_folder(folder: Path, count: int) -> None:
    texts = sources()
    for i in range(count):
        sub = folder / f"section-{i // 100:03d}"
        sub.mkdir(parents=True, exist_ok=True)
        body = texts[i % len(texts)]
        head = f"---\ntitle: Page {i} of the bench\ndescription: page {i}\n---\n"
        (sub / f"page-{i:05d}.md").write_text(head + body, encoding="utf-8")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--files", type=int, default=10_000)
    args = parser.parse_args()
    from pinax.builder import BuildOptions, FolderSource
    from pinax.builder.report import Reporter
    from pinax.library import Library

    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp) / "docs"
        started = time.perf_counter()
        make_folder(folder, args.files)
        size = sum(p.stat().st_size for p in folder.rglob("*.md"))
        print(
            f"folder: {args.files:,} Markdown files, {size / 1e6:.1f} MB "
            f"(made in {time.perf_counter() - started:.1f} s)"
        )

        out = Path(tmp) / "m.json"
        started = time.perf_counter()
        subprocess.run(
            [sys.executable, "-m", "pinax", "build", str(folder), "-o", str(out), "-q"],
            check=True,
            cwd=ROOT,
        )
        cold = time.perf_counter() - started
        verdict = "ok" if cold < BAR_SECONDS else "OVER THE BAR"
        print(f"pinax build (fresh process): {cold:.2f} s (bar {BAR_SECONDS:g} s: {verdict})")

        source = FolderSource(folder, BuildOptions(max_pages=10**6))
        started = time.perf_counter()
        built = source.build(Reporter())
        first = time.perf_counter() - started
        print(f"in-process first build: {first:.2f} s, {len(built.manifest.pages):,} pages")

        changed = folder / "section-000" / "page-00000.md"
        changed.write_text(changed.read_text() + "\n## A heading added now\n", encoding="utf-8")
        reads = source.reads
        started = time.perf_counter()
        built = source.build(Reporter())
        again = time.perf_counter() - started
        print(f"rebuild after one change: {again:.2f} s ({source.reads - reads} file read)")

        started = time.perf_counter()
        look = source.signature()
        print(
            f"one look for changes (stat of every file): {time.perf_counter() - started:.3f} s "
            f"({len(look):,} files)"
        )

        started = time.perf_counter()
        library = Library([built.manifest])
        hits = library.search("A heading added now", 3)
        took = time.perf_counter() - started
        print(f"index made and searched in memory: {took:.2f} s; top hit {hits.hits[0].url}")

        import anyio

        ready, latency = anyio.run(reload_latency, folder, Path(tmp) / "cache")
        verdict = "ok" if latency < 2.0 else "OVER THE BAR"
        print(
            f"pinax serve --docs DIR: serving after {ready:.2f} s; a change searchable after "
            f"{latency:.2f} s (bar 2 s: {verdict})"
        )


async def reload_latency(folder: Path, cache: Path) -> tuple[float, float]:
    """(seconds to start serving the folder, seconds from a file change to a search that
    finds it), over stdio."""
    import anyio
    from mcp import Client, StdioServerParameters

    params = StdioServerParameters(
        command=sys.executable,
        args=["-m", "pinax", "serve", "--docs", str(folder), "--cache-dir", str(cache)],
        env={"PYTHONPATH": str(ROOT)},
    )
    started = time.perf_counter()
    async with Client(params) as client:
        await client.call_tool("list_docs", {})
        ready = time.perf_counter() - started
        (folder / "zz-new.md").write_text("# Okapi grazing\n\n## Okapi stripes\n")
        changed = time.perf_counter()
        while True:
            found = await client.call_tool("search_pages", {"query": "okapi stripes"})
            hits = found.structured_content["results"]
            if hits and hits[0]["url"].endswith("/zz-new.md"):
                return ready, time.perf_counter() - changed
            if time.perf_counter() - changed > 30:
                raise SystemExit("the change was not searchable within 30 s")
            await anyio.sleep(0.05)


if __name__ == "__main__":
    main()
