"""`pinax build --outline` on every generator's fixture pages, served on loopback.

    python -m bench.quality.outline            # per-generator table, then the bars
    python -m bench.quality.outline --misses   # also the headings missed or extra, per page

What it measures, over ../shared/fixtures/sites (real pages, each beside its author's source):
- heading F1: the recorded outline's heading texts against the source's headings below the
  page title (Markdown ATX/setext, reST section titles), compared as words
  (`tests.support.extraction.heading_key`); a rendered heading may add up to two words (a badge).
  Micro-averaged over all pages: precision = matched / recorded, recall = matched / source.
- anchors: the share of recorded anchors that `Tools.get_page(url, section=anchor)`, against
  the same loopback site, opens at that heading (the section it returns has the recorded
  heading's words).
- which anchor rule (pinax/pages/outline.py) gave each generator's anchors.
Docsy pages advertise their Markdown (`<link rel=alternate type=text/markdown>`); it is served
beside them, as the live site does, so get_page reads it as it would there.
The redirect stubs and the JavaScript-only page of hard-cases have no content of their own:
they are served (their failures are counted) but not scored.

Bars (what outlines must reach for get_page's sections to be trusted): heading F1 >= 0.98 over all
pages; >= 98% of recorded anchors open.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import re
import sys
import tempfile
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import anyio
from selectolax.lexbor import LexborHTMLParser

from bench.harness.sites import SITES, scored, serve_fixtures
from pinax.builder import BuildOptions
from pinax.builder.core import build
from pinax.builder.report import Reporter
from pinax.errors import PinaxError
from pinax.manifest import Manifest, dump
from pinax.pages.extract import decode_html, repair_mojibake
from pinax.pages.main_content import drop_boilerplate, drop_invisible, find_main
from pinax.pages.outline import HEADINGS, anchor_and_rule, key
from pinax.tools import Tools
from tests.support.extraction import (
    _ATX,
    Fixture,
    _hugo_tabpanes,
    _match_headings,
    fixtures,
    heading_key,
    parse_rst,
    split_blocks,
    words,
)
from tests.support.http_site import Site

os.environ.setdefault("PINAX_ALLOW_PRIVATE", "127.0.0.1/32")

F1_BAR = 0.98
ANCHOR_BAR = 0.98
# How a generator renders a source heading, where the words differ (the outline records the
# page as rendered): MkDocs Material's `<!-- md:setting config.x -->` (or `meta.x`) shows `x`;
# an emoji shortcode (`:warning:`) is a glyph, not words; CPython's changelog shows the NEWS
# file's "What's New in Python 3.13.5 final?" as "Python 3.13.5 final".
RENDERED = (
    (re.compile(r"<!--\s*md:(?:setting|option)\s+(?:config\.|meta\.)?(\S+?)\s*-->"), r"\1"),
    (re.compile(r"(?<!\w):[a-z0-9_+-]+:(?!\w)"), " "),
    (re.compile(r"^What's New in (Python .*?)\??$"), r"\1"),
)
_SECTION_NUMBER = re.compile(r"^\s*(?:\d+\.)+\s+")


@dataclass
class Tally:
    pages: int = 0
    failed: int = 0
    recorded: int = 0
    source: int = 0
    matched: int = 0
    anchors: int = 0
    opened: int = 0
    rules: Counter[str] = field(default_factory=Counter)
    misses: list[str] = field(default_factory=list)

    def add(self, other: Tally) -> None:
        for name in ("pages", "failed", "recorded", "source", "matched", "anchors", "opened"):
            setattr(self, name, getattr(self, name) + getattr(other, name))
        self.rules.update(other.rules)
        self.misses += other.misses

    @property
    def precision(self) -> float:
        return self.matched / self.recorded if self.recorded else 1.0

    @property
    def recall(self) -> float:
        return self.matched / self.source if self.source else 1.0

    @property
    def f1(self) -> float:
        p, r = self.precision, self.recall
        return 2 * p * r / (p + r) if p + r else 0.0

    @property
    def anchor_share(self) -> float:
        return self.opened / self.anchors if self.anchors else 1.0


def source_headings(fixture: Fixture) -> list[str]:
    """The source's headings below the page title (reST: after the first title; Markdown:
    levels 2 to 6, as the outline's), as word keys, rendered as the site renders them."""
    text = (fixture.path / fixture.meta["source_file"]).read_text(encoding="utf-8")
    if fixture.meta["source_format"] == "rst":
        titles = parse_rst(text).headings[1:]
    else:
        titles = []
        for block in split_blocks(_hugo_tabpanes(text.replace("\\{{#", "{{#"))):
            if block.code is not None:
                continue
            for line in block.text.splitlines():
                match = _ATX.match(line)
                if match and len(match.group(1)) >= 2:
                    titles.append(match.group(2))
    keys = []
    for title in titles:
        for pattern, replacement in RENDERED:
            title = pattern.sub(replacement, title.strip())
        keys.append(heading_key(title))
    return [key for key in keys if key]


def same_heading(opened: str, recorded: str) -> bool:
    """Whether get_page opened the recorded heading: the same words, as get_page's Markdown
    (which may be the site's own, with inline HTML and emoji shortcodes) or as recorded."""
    return recorded_key(opened) == recorded_key(recorded) or key(opened) == key(recorded)


def recorded_key(title: str) -> str:
    """A recorded heading's words (it is plain text: a `<title>` in it is text)."""
    return " ".join(words(_SECTION_NUMBER.sub("", title)))


def page_rules(fixture: Fixture) -> Counter[str]:
    """Which anchor rule each h2..h6 of the main content needed."""
    html = decode_html(fixture.html_bytes())
    tree = LexborHTMLParser(repair_mojibake(html))
    drop_invisible(tree)
    main = find_main(tree)
    rules: Counter[str] = Counter()
    if main is None:
        return rules
    drop_boilerplate(main)
    nodes = main.css(HEADINGS)
    taken = {node.attributes.get("id") for node in nodes} - {None}
    for node in nodes:
        if node.tag != "h1":
            rules[anchor_and_rule(node, taken)[1] or "none"] += 1
    return rules


def build_outlines(site: Site, workdir: Path) -> tuple[Manifest, Reporter]:
    reporter = Reporter()
    options = BuildOptions(
        name="fixtures", outline=True, delay=0.0, concurrency=8, cache_dir=workdir / "cache"
    )
    manifest = asyncio.run(build(site.url("/sitemap.xml"), options, reporter))
    return manifest, reporter


def open_anchors(manifest: Manifest, workdir: Path) -> dict[str, list[bool]]:
    """For each page, whether each recorded anchor opens its heading through get_page."""
    path = workdir / "fixtures.json"
    path.write_text(dump(manifest), encoding="utf-8")
    tools = Tools.open([path], cache_dir=workdir / "pages", ttl=86400)
    results: dict[str, list[bool]] = {}

    async def run() -> None:
        for page in manifest.pages:
            opened = []
            for heading in page.outline:
                if heading.anchor is None:
                    continue
                try:
                    answer: dict[str, Any] = await tools.get_page(
                        page.url, section=heading.anchor, max_tokens=20000
                    )
                    got = answer.get("section", {}).get("heading", "")
                    opened.append(same_heading(got, heading.title))
                except PinaxError:  # a failure is a miss, counted
                    opened.append(False)
            results[page.url] = opened

    anyio.run(run)
    return results


def measure(sites: Path = SITES, misses: bool = False) -> tuple[dict[str, Tally], Reporter]:
    """Serve, build with --outline, score: a tally per generator."""
    chosen = list(fixtures(sites))
    tallies: dict[str, Tally] = defaultdict(Tally)
    with Site() as site, tempfile.TemporaryDirectory() as temporary:
        workdir = Path(temporary)
        by_url = serve_fixtures(site, chosen)
        manifest, reporter = build_outlines(site, workdir)
        opened = open_anchors(manifest, workdir)
    for page in manifest.pages:
        fixture = by_url[page.url]
        if not scored(fixture):
            continue
        tally = Tally(pages=1)
        recorded = [recorded_key(h.title) for h in page.outline]
        wanted = source_headings(fixture)
        if not page.outline and wanted:
            tally.failed = 1
        hits, missed = _match_headings(wanted, [key for key in recorded if key])
        tally.recorded, tally.source, tally.matched = len(recorded), len(wanted), hits
        tally.anchors = len(opened[page.url])
        tally.opened = sum(opened[page.url])
        tally.rules = page_rules(fixture)
        if misses and (missed or len(recorded) > hits):
            extra = Counter(recorded) - Counter(wanted)
            tally.misses.append(f"{fixture.key}: missed {missed[:8]} extra {list(extra)[:8]}")
        tallies[fixture.generator].add(tally)
    return dict(tallies), reporter


def total(tallies: dict[str, Tally]) -> Tally:
    whole = Tally()
    for tally in tallies.values():
        whole.add(tally)
    return whole


def report(tallies: dict[str, Tally]) -> str:
    lines = [
        "| generator | pages | no outline | source headings | recorded | precision | recall "
        "| F1 | anchors | opened | anchor rules |",
        "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|",
    ]
    for name, t in [*sorted(tallies.items()), ("all", total(tallies))]:
        rules = ", ".join(f"{rule} {n}" for rule, n in t.rules.most_common())
        lines.append(
            f"| {name} | {t.pages} | {t.failed} | {t.source} | {t.recorded} | "
            f"{t.precision:.3f} | {t.recall:.3f} | {t.f1:.3f} | {t.anchors} | "
            f"{t.anchor_share:.1%} | {rules} |"
        )
    return "\n".join(lines)


def bars(tallies: dict[str, Tally]) -> list[tuple[str, float, float]]:
    whole = total(tallies)
    return [("heading F1", whole.f1, F1_BAR), ("anchors opened", whole.anchor_share, ANCHOR_BAR)]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--misses", action="store_true", help="list missed/extra headings")
    args = parser.parse_args()
    if not SITES.exists():
        sys.exit(f"fixtures not found at {SITES} (set PINAX_SHARED)")
    tallies, reporter = measure(SITES, args.misses)
    for warning in reporter.warnings:
        print(f"build warning: {warning}")
    print(report(tallies))
    for what, value, limit in bars(tallies):
        print(f"{what}: {value:.4f} (bar {limit}) {'met' if value >= limit else 'MISSED'}")
    if args.misses:
        for tally in tallies.values():
            for line in tally.misses:
                print(line)


if __name__ == "__main__":
    main()
