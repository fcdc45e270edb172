"""`pinax build --content` on every generator's fixture pages, served on loopback.

    python -m bench.quality.content_build           # per-generator table, then the bars
    python -m bench.quality.content_build --pages   # also each page's F1, worst first

What it measures, over ../shared/fixtures/sites (real pages, each beside its author's source),
served as bench.quality.outline serves them (Docsy's advertised Markdown beside its pages):
- word F1 of each page's recorded text against its source (`source.md`, `source.rst` for
  Sphinx): the page title, each section's heading and text put back together as Markdown and
  scored as bench.quality.extract scores extraction (tests.support.extraction.score_page: a bag of
  words over the whole page, Markdown and reST syntax stripped on both sides). Mean over a
  generator's pages (macro), and its worst page.
- the content file's size: gzip bytes per page (each generator's pages written as one file,
  as `pinax build` writes it), and the raw text per page.
- sections that disagree with the outline recorded in the same build (must be none).
- the build's wall time (all fixture pages at once, 8 at a time).
The hard cases are reported on their own line: the redirect stubs and the JavaScript-only
page have no text of their own (they fail, counted), and the 5.5 MB CPython changelog is cut
at the cap (pinax/builder/sections.py `MAX_PAGE_TEXT`; its recall says how much is kept).

Bars (what a built manifest's content must reach to be worth shipping): word F1 >= 0.95 for every
generator; at most 5 KB gzipped a page on average.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import sys
import tempfile
import time
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path

from bench.harness.sites import SITES, scored, serve_fixtures
from pinax.builder import BuildOptions
from pinax.builder.core import build
from pinax.builder.report import Reporter
from pinax.manifest import Manifest, PageText, write_page_texts
from tests.support.extraction import Fixture, fixtures, score_page
from tests.support.http_site import Site

os.environ.setdefault("PINAX_ALLOW_PRIVATE", "127.0.0.1/32")

F1_BAR = 0.95
GZ_BAR = 5000  # bytes a page, on average ("5 KB", read strictly)
HARD = "hard-cases"


@dataclass
class Tally:
    pages: int = 0
    failed: int = 0  # scored pages the build recorded no text for
    mismatched: int = 0  # pages whose sections disagree with the outline
    f1: list[float] = field(default_factory=list)
    texts: list[PageText] = field(default_factory=list)
    worst: tuple[float, str] = (1.0, "")
    gz: int = 0  # bytes of the content file of these pages alone
    rows: list[tuple[float, float, float, str]] = field(default_factory=list)

    @property
    def mean(self) -> float:
        return statistics.fmean(self.f1) if self.f1 else 0.0


def as_markdown(page: PageText) -> str:
    """The page put back together: the title as H1, each section's heading and text."""
    parts = []
    for section in page.sections:
        parts.append(f"{'#' * section.level} {section.heading}")
        if section.text:
            parts.append(section.text)
    return "\n\n".join(parts) + "\n"


def matches_outline(page: PageText, manifest: Manifest) -> bool:
    entry = next(p for p in manifest.pages if p.url == page.url)
    return len(page.sections) == len(entry.outline) + 1 and all(
        (s.level, s.heading, s.anchor) == (h.level, h.title, h.anchor)
        for s, h in zip(page.sections[1:], entry.outline, strict=True)
    )


def build_content(site: Site, workdir: Path) -> tuple[Manifest, list[PageText], Reporter, float]:
    reporter = Reporter()
    options = BuildOptions(
        name="fixtures", content=True, delay=0.0, concurrency=8, cache_dir=workdir / "cache"
    )
    texts: list[PageText] = []
    started = time.perf_counter()
    manifest = asyncio.run(build(site.url("/sitemap.xml"), options, reporter, texts))
    return manifest, texts, reporter, time.perf_counter() - started


def gz_bytes(texts: list[PageText], workdir: Path) -> int:
    path = workdir / "sizes.content.jsonl.gz"
    write_page_texts(path, texts)
    return path.stat().st_size


def measure(sites: Path = SITES) -> tuple[dict[str, Tally], Reporter, float, dict[str, float]]:
    """Serve, build with --content, score: a tally per generator, the build's report and
    time, and the content file's gzip bytes a page, over the generators' pages and over all
    (the hard cases too)."""
    chosen = list(fixtures(sites))
    tallies: dict[str, Tally] = defaultdict(Tally)
    with Site() as site, tempfile.TemporaryDirectory() as temporary:
        workdir = Path(temporary)
        by_url: dict[str, Fixture] = serve_fixtures(site, chosen)
        manifest, texts, reporter, seconds = build_content(site, workdir)
        recorded = {page.url: page for page in texts}
        for url, fixture in by_url.items():
            if not scored(fixture):
                continue
            tally = tallies[fixture.generator]
            tally.pages += 1
            page = recorded.get(url)
            if page is None:
                tally.failed += 1
                tally.f1.append(0.0)
                continue
            tally.texts.append(page)
            tally.mismatched += not matches_outline(page, manifest)
            scores = score_page(as_markdown(page), fixture.reference())
            tally.f1.append(scores.f1)
            tally.rows.append((scores.f1, scores.precision, scores.recall, fixture.key))
            tally.worst = min(tally.worst, (scores.f1, fixture.name))
        for tally in tallies.values():
            tally.gz = gz_bytes(tally.texts, workdir) if tally.texts else 0
            tally.rows.sort()
        ours = [page for name, t in tallies.items() if name != HARD for page in t.texts]
        per_page = {
            "generators": gz_bytes(ours, workdir) / max(1, len(ours)),
            "all": gz_bytes(texts, workdir) / max(1, len(texts)),
        }
    return dict(tallies), reporter, seconds, per_page


def report(tallies: dict[str, Tally]) -> str:
    lines = [
        "| generator | pages | no text | off outline | word F1 | worst page | gz B/page "
        "| text KB/page |",
        "|---|---:|---:|---:|---:|---|---:|---:|",
    ]
    for name, t in sorted(tallies.items(), key=lambda item: (item[0] == HARD, item[0])):
        size = t.gz / len(t.texts) if t.texts else 0
        text = statistics.fmean(
            sum(len(s.text.encode()) for s in page.sections) / 1024 for page in t.texts
        )
        lines.append(
            f"| {name} | {t.pages} | {t.failed} | {t.mismatched} | {t.mean:.3f} | "
            f"{t.worst[1]} {t.worst[0]:.3f} | {size:,.0f} | {text:.1f} |"
        )
    return "\n".join(lines)


def bars(tallies: dict[str, Tally], per_page: dict[str, float]) -> list[tuple[str, float, float]]:
    """(what, value, bar) of each bar: F1 of every generator, gzip bytes a page over the
    generators' pages (the hard cases are no generator's site: their size is shown beside)."""
    generators = sorted((name, t) for name, t in tallies.items() if name != HARD)
    out = [(f"word F1 {name}", t.mean, F1_BAR) for name, t in generators]
    out.append(("gz bytes/page (generators' pages)", per_page["generators"], GZ_BAR))
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--pages", action="store_true", help="each page's F1, worst first")
    args = parser.parse_args()
    if not SITES.exists():
        sys.exit(f"fixtures not found at {SITES} (set PINAX_SHARED)")
    tallies, reporter, seconds, per_page = measure(SITES)
    for warning in reporter.warnings:
        print(f"build warning: {warning}")
    pages = sum(len(t.texts) for t in tallies.values())
    print(f"build --content: {pages} pages with text in {seconds:.1f} s")
    print(report(tallies))
    for what, value, limit in bars(tallies, per_page):
        met = value <= limit if what.startswith("gz") else value >= limit
        print(f"{what}: {value:,.3f} (bar {limit:,}) {'met' if met else 'MISSED'}")
    print(f"gz bytes/page with the hard cases: {per_page['all']:,.0f}")
    if args.pages:
        for tally in tallies.values():
            for f1, precision, recall, key in tally.rows:
                print(f"{f1:.3f}  p {precision:.3f}  r {recall:.3f}  {key}")


if __name__ == "__main__":
    main()
