"""Speed, size and memory of the content index, beside tantivy's plain BM25 in the same run.

    python -m bench.speed.content                    # 100,000 pages, 7 sections each
    python -m bench.speed.content --pages 20000      # quicker

A synthetic documentation set made of real sections of ../shared/corpora/content resampled:
each page a real lead (its title and text) and six real sections, so ~700,000 sections and
~0.7 GB of text at 100,000 pages. The manifest (with outlines) and its content file are
written to a temporary folder; Pinax indexes them through its on-disk store, as `pinax serve`
does. Timed: the content index build, a restart (a fresh process mapping it), and queries:
the DEV questions (13 words on average) and the anchor-text DEV queries with their typo
variants (3.5 words), through the whole search (`Library.search`, titles and headings fused
with content) and through the content index alone. Memory: a fresh process's anonymous
memory (what the mapped files are not) with content and without. tantivy (if installed:
`pip install tantivy==0.25.0`) indexes the same sections, one document each, and runs the
same queries as plain BM25. The machine is shared: beside each bar, the bar scaled by how much
slower tantivy ran than when the bars were set (build 9.5 s, questions 11.8 / 21 ms,
anchor-text queries 1.7 / 16 ms), and the build's CPU time.
"""

from __future__ import annotations

import argparse
import gzip
import json
import os
import random
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from bench.harness.corpora import CORPORA, NAMES, rows
from pinax import manifest as manifest_io
from pinax.manifest import (
    Heading,
    Manifest,
    Page,
    PageText,
    Section,
    companion_path,
    read_page_texts,
    write_page_texts,
)

ROOT = Path(__file__).resolve().parents[2]

SOURCES = ("react", "fastapi", "kubernetes", "django", "drf", "adk", "textual")
QUESTIONS = ("react", "fastapi", "kubernetes", "django")
# tantivy 0.25 as measured on this machine when the bars were set: what a bar scales with when other
# work slows the machine (the same run's tantivy over this, a bar times that).
TANTIVY_THEN = {
    "questions p50": 11.8,
    "questions p99": 21.0,
    "anchor p50": 1.7,
    "anchor p99": 16.0,
    "build s": 9.5,
}
BARS = {
    "questions p50": 6.0,
    "questions p99": 25.0,
    "anchor p50": 1.0,
    "anchor p99": 10.0,
    "build s": 60.0,
    "restart s": 0.5,
    "size x text": 0.5,
    "memory MB": 400.0,
}


def real_sections() -> tuple[list[Section], list[Section]]:
    leads, others = [], []
    for name in SOURCES:
        with gzip.open(CORPORA / "content" / f"{name}.jsonl.gz", "rt") as lines:
            for line in lines:
                sections = json.loads(line)["sections"]
                for i, s in enumerate(sections):
                    item = Section(1 if i == 0 else 2, s["heading"], s["text"])
                    (leads if i == 0 else others).append(item)
    return leads, [s for s in others if s.heading.strip()]


def synthesize(folder: Path, count: int, seed: int = 7) -> tuple[Path, int]:
    """The manifest and its content file; the bytes of section text."""
    rng = random.Random(seed)
    leads, others = real_sections()
    pages, texts, size = [], [], 0
    for i in range(count):
        lead = rng.choice(leads)
        rest = [rng.choice(others) for _ in range(6)]
        url = f"https://synth.example/docs/p{i}"
        title = lead.heading.strip() or f"Page {i}"
        outline = tuple(Heading(2, s.heading.strip()[:500]) for s in rest)
        pages.append(Page(url, title, "/docs", outline=outline))
        sections = (
            Section(1, title, lead.text),
            *(Section(2, h.title, s.text) for h, s in zip(outline, rest, strict=True)),
        )
        texts.append(PageText(url, sections))
        size += sum(len(s.text.encode()) for s in sections)
    manifest = Manifest("synth", "https://synth.example/docs/", "Synthetic docs", tuple(pages))
    path = folder / "synth.json"
    path.write_text(manifest_io.dump(manifest))
    write_page_texts(companion_path(path), texts)
    return path, size


def queries() -> tuple[list[str], list[str]]:
    asked = []
    for name in QUESTIONS:
        path = CORPORA / "eval" / f"{name}.questions.jsonl"
        asked += [json.loads(line)["query"] for line in path.read_text().splitlines() if line]
    anchors = [r["query"] for n in NAMES for t in (False, True) for r in rows(n, typo=t)]
    return asked, anchors


def percentiles(times: list[float]) -> tuple[float, float]:
    times = sorted(times)
    return times[len(times) // 2] * 1000, times[min(len(times) - 1, int(len(times) * 0.99))] * 1000


CHILD = """
import json, sys, time, resource
def anon():
    for line in open('/proc/self/status'):
        if line.startswith('RssAnon:'):
            return int(line.split()[1]) / 1024
start = time.perf_counter()
from pinax.library import Library
library = Library.load([{manifest!r}], index_dir={cache!r})
if {content!r}:
    library.load_contents()
loaded = time.perf_counter() - start
asked, anchors = json.loads(open({queries!r}).read())
timings = {{}}
for label, group in (("questions", asked), ("anchor", anchors)):
    for query in group[:20]:
        library.search(query, 10)  # warm the pages of the mapping a little
    whole, alone = [], []
    content = library.all()[0].content
    for query in group:
        t = time.perf_counter()
        library.search(query, 10)
        whole.append(time.perf_counter() - t)
        if content is not None:
            t = time.perf_counter()
            content.search(query, 30)
            alone.append(time.perf_counter() - t)
    timings[label] = (whole, alone)
print(json.dumps({{"load": loaded, "anon": anon(), "timings": timings}}))
"""


def child(manifest: Path, cache: Path, content: bool, query_file: Path) -> dict:
    code = CHILD.format(
        manifest=str(manifest),
        cache=str(cache),
        content=content,
        queries=str(query_file),
    )
    env = {**os.environ, "PYTHONPATH": str(ROOT)}  # this checkout's pinax, wherever it runs from
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, env=env
    )
    return json.loads(done.stdout.strip().splitlines()[-1])


def tantivy_run(manifest: Path, folder: Path, asked: list[str], anchors: list[str]) -> dict | None:
    try:
        import tantivy
    except ImportError:
        return None
    schema = (
        tantivy.SchemaBuilder()
        .add_text_field("body", stored=False)
        .add_integer_field("page", stored=True, indexed=False)
        .build()
    )
    index_dir = folder / "tantivy"
    index_dir.mkdir()
    index = tantivy.Index(schema, path=str(index_dir))
    started = time.perf_counter()
    writer = index.writer(heap_size=512 << 20, num_threads=2)
    for number, page in enumerate(read_page_texts(companion_path(manifest))):
        title = page.sections[0].heading
        for section in page.sections:
            writer.add_document(
                tantivy.Document(body=f"{title}\n{section.heading}\n{section.text}", page=number)
            )
    writer.commit()
    writer.wait_merging_threads()
    built = time.perf_counter() - started
    index.reload()
    searcher = index.searcher()
    size = sum(p.stat().st_size for p in index_dir.rglob("*") if p.is_file())
    timings = {}
    for label, group in (("questions", asked), ("anchor", anchors)):
        times = []
        for query in group:
            words = " ".join(re.findall(r"\w+", query)) or "x"
            parsed = index.parse_query(words, ["body"])
            t = time.perf_counter()
            searcher.search(parsed, 30)
            times.append(time.perf_counter() - t)
        timings[label] = percentiles(times)
    return {"build": built, "size": size, "timings": timings}


def _cpu() -> float:
    """CPU seconds of this process and its finished children (a build's workers)."""
    import resource

    mine = resource.getrusage(resource.RUSAGE_SELF)
    theirs = resource.getrusage(resource.RUSAGE_CHILDREN)
    return mine.ru_utime + mine.ru_stime + theirs.ru_utime + theirs.ru_stime


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pages", type=int, default=100_000)
    args = parser.parse_args()
    asked, anchors = queries()
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        started = time.perf_counter()
        manifest, text_bytes = synthesize(folder, args.pages)
        print(
            f"synthesized {args.pages:,} pages, {text_bytes / 1e6:,.0f} MB of section text "
            f"in {time.perf_counter() - started:.0f} s",
            flush=True,
        )
        query_file = folder / "queries.json"
        query_file.write_text(json.dumps([asked, anchors]))
        cache = folder / "cache"
        from pinax.library import Library

        Library.load([manifest], index_dir=cache)  # the titles-and-headings index, first
        library = Library.load([manifest], index_dir=cache)
        started = time.perf_counter()
        cpu = _cpu()
        library.load_contents()
        build = time.perf_counter() - started
        build_cpu = _cpu() - cpu
        del library
        (stored,) = (cache / "content").glob("*.pxc")
        size = stored.stat().st_size
        without = child(manifest, cache, False, query_file)
        with_content = child(manifest, cache, True, query_file)
        restart = with_content["load"] - without["load"]
        memory = with_content["anon"] - without["anon"]
        results = {
            "build s": build,
            "restart s": restart,
            "size x text": size / text_bytes,
            "memory MB": memory,
        }
        print(
            f"\ncontent index: built in {build:.1f} s ({build_cpu:.0f} s of CPU, workers "
            f"included), {size / 1e6:,.0f} MB on disk "
            f"({size / text_bytes:.2f}x the text); restart +{restart:.2f} s over no content; "
            f"anonymous memory {with_content['anon']:.0f} MB vs {without['anon']:.0f} MB "
            f"(+{memory:.0f} MB)"
        )
        print(
            "\n| queries | whole search p50 / p99 ms | content index alone p50 / p99 "
            "| titles only (content off) p50 / p99 | tantivy p50 / p99 |"
        )
        print("|---|---|---|---|---|")
        theirs = tantivy_run(manifest, folder, asked, anchors)
        for label in ("questions", "anchor"):
            whole, alone = with_content["timings"][label]
            off = percentiles(without["timings"][label][0])
            p50, p99 = percentiles(whole)
            a50, a99 = percentiles(alone)
            results[f"{label} p50"], results[f"{label} p99"] = p50, p99
            t = theirs["timings"][label] if theirs else None
            print(
                f"| {label} | {p50:.2f} / {p99:.2f} | {a50:.2f} / {a99:.2f} | {off[0]:.2f} / "
                f"{off[1]:.2f} | {f'{t[0]:.2f} / {t[1]:.2f}' if t else 'not installed'} |"
            )
        if theirs:
            print(
                f"\ntantivy: built in {theirs['build']:.1f} s, {theirs['size'] / 1e6:,.0f} MB "
                f"({theirs['size'] / text_bytes:.2f}x the text)"
            )
        measured = theirs is not None and args.pages == 100_000  # (the size it was measured at)
        now = {"build s": theirs["build"]} if measured and theirs else {}
        for label in ("questions", "anchor") if measured and theirs else ():
            now[f"{label} p50"], now[f"{label} p99"] = theirs["timings"][label]
        print(
            "\n| measure | value | bar | | tantivy now / then | bar scaled by it | |"
            "\n|---|---|---|---|---|---|---|"
        )
        for name, bar in BARS.items():
            value = results[name]
            row = f"| {name} | {value:.2f} | {bar} | {'pass' if value <= bar else 'FAIL'} |"
            if name in now:
                slower = now[name] / TANTIVY_THEN[name]
                scaled = bar * slower
                verdict = "pass" if value <= scaled else "FAIL"
                row += f" {now[name]:.2f} / {TANTIVY_THEN[name]} | {scaled:.2f} | {verdict} |"
            else:
                row += " | | |"
            print(row)


if __name__ == "__main__":
    main()
