"""Extraction benchmark: quality (tests.support.extraction metrics) and speed, Pinax vs naive
baselines.

    python -m bench.quality.extract                 # every method, fixtures + WCXB + speed
    python -m bench.quality.extract --method pinax --pages   # per-page rows, worst first

Methods, all run on the same pages in the same process:
- pinax:      pinax.pages.extract (decode_html + extract)
- sel+mdify:  a main-content selector (the generators' containers, then main/article) and
              plain markdownify, decoding as UTF-8 (the README's best baseline)
- mdify-body: plain markdownify of <body> (the README's naive baseline)

Speed: wall-clock time of one run per page (median ms/page, and MB of HTML per second over
all pages), and the best of three runs on the 5.5 MB CPython changelog. The machine is
shared, so expect noise; compare methods within one run.
"""

from __future__ import annotations

import argparse
import re
import statistics
import sys
import time
from collections import defaultdict
from collections.abc import Callable, Iterable
from dataclasses import dataclass

from markdownify import markdownify
from selectolax.lexbor import LexborHTMLParser

from bench.harness.corpora import SHARED
from pinax.pages.extract import decode_html, extract
from tests.support.extraction import Fixture, Scores, fixtures, score_page, wcxb_pages, wcxb_scores

SITES = SHARED.resolve() / "fixtures" / "sites"
WCXB = SHARED.resolve() / "corpora" / "wcxb-docs"
HUGE = "hard-cases/huge-python-changelog"

# (html bytes, page url, header charset or None) -> Markdown
Method = Callable[[bytes, str, "str | None"], str]


def pinax_method(body: bytes, url: str, charset: str | None) -> str:
    return extract(decode_html(body, charset), url).markdown


def body_mdify(body: bytes, url: str, charset: str | None) -> str:
    tree = LexborHTMLParser(body.decode("utf-8", errors="replace"))
    node = tree.body
    return markdownify(node.html if node else "", heading_style="ATX")


BASELINE_SELECTORS = (
    "article.md-content__inner",
    "article#furo-main-content",
    "div.body[role=main]",
    ".theme-doc-markdown",
    ".vp-doc",
    "main .td-content",
    "#main-content > main",
    "#content main",
    "main",
    "article",
    "[role=main]",
    "body",
)


def selector_mdify(body: bytes, url: str, charset: str | None) -> str:
    tree = LexborHTMLParser(body.decode("utf-8", errors="replace"))
    for selector in BASELINE_SELECTORS:
        node = tree.css_first(selector)
        if node is not None:
            return markdownify(node.html or "", heading_style="ATX")
    return ""


METHODS: dict[str, Method] = {
    "pinax": pinax_method,
    "sel+mdify": selector_mdify,
    "mdify-body": body_mdify,
}


def header_charset(fixture: Fixture) -> str | None:
    content_type = (fixture.meta.get("http_headers") or {}).get("Content-Type", "text/html")
    match = re.search(r"charset=([\w-]+)", content_type)
    return match.group(1) if match else None


# ---------------------------------------------------------------- fixtures


@dataclass
class PageResult:
    key: str
    group: str
    scores: Scores
    seconds: float
    size: int


def regular_fixtures() -> list[Fixture]:
    return [f for f in fixtures(SITES) if f.generator != "hard-cases"]


def run_fixtures(method: Method, pages: Iterable[Fixture]) -> list[PageResult]:
    results = []
    for fixture in pages:
        body = fixture.html_bytes()
        start = time.perf_counter()
        markdown = method(body, fixture.url, header_charset(fixture))
        seconds = time.perf_counter() - start
        scores = score_page(markdown, fixture.reference())
        results.append(PageResult(fixture.key, fixture.generator, scores, seconds, len(body)))
    return results


METRICS = ("f1", "code", "language", "headings", "leak")


def mean(values: Iterable[float | None]) -> float | None:
    present = [v for v in values if v is not None]
    return statistics.fmean(present) if present else None


def aggregate(results: list[PageResult]) -> dict[str, dict[str, float | None]]:
    """Macro-averages per generator and overall (pages without code etc. are left out)."""
    groups: dict[str, list[PageResult]] = defaultdict(list)
    for result in results:
        groups[result.group].append(result)
    groups["overall"] = list(results)
    return {
        name: {m: mean(getattr(r.scores, m) for r in rows) for m in METRICS} | {"pages": len(rows)}
        for name, rows in groups.items()
    }


# ---------------------------------------------------------------- WCXB


@dataclass
class WcxbResult:
    page_id: str
    url: str
    scores: dict[str, float]
    seconds: float
    size: int


def run_wcxb(method: Method) -> list[WcxbResult]:
    results = []
    for page in wcxb_pages(WCXB):
        body = page.html_bytes()
        start = time.perf_counter()
        markdown = method(body, page.url, None)
        seconds = time.perf_counter() - start
        results.append(
            WcxbResult(
                page.page_id, page.url, wcxb_scores(markdown, page.truth), seconds, len(body)
            )
        )
    return results


def wcxb_summary(results: list[WcxbResult]) -> dict[str, float]:
    return {
        key: statistics.fmean(r.scores[key] for r in results)
        for key in ("f1", "precision", "recall", "with", "without")
    }


# ---------------------------------------------------------------- speed


def huge_page_seconds(method: Method, repeat: int = 3) -> float:
    fixture = next(f for f in fixtures(SITES) if f.key == HUGE)
    body = fixture.html_bytes()
    best = float("inf")
    for _ in range(repeat):
        start = time.perf_counter()
        method(body, fixture.url, None)
        best = min(best, time.perf_counter() - start)
    return best


def speed(results: Iterable[PageResult | WcxbResult]) -> tuple[float, float]:
    """(median ms per page, MB/s over all pages)."""
    rows = list(results)
    seconds = sum(r.seconds for r in rows)
    return (
        1000 * statistics.median(r.seconds for r in rows),
        sum(r.size for r in rows) / 1e6 / seconds,
    )


# ---------------------------------------------------------------- report


def fmt(value: float | None) -> str:
    return "  -  " if value is None else f"{value:.3f}"


def print_table(tables: dict[str, dict[str, dict]]) -> None:
    methods = list(tables)
    groups = list(next(iter(tables.values())))
    print(f"{'generator':<22}{'pages':>6}  " + "  ".join(f"{m:<34}" for m in methods))
    print(
        f"{'':<28}" + "  ".join(f"{'  '.join(f'{x[:5]:>5}' for x in METRICS):<34}" for _ in methods)
    )
    for group in sorted(groups, key=lambda g: (g == "overall", g)):
        row = f"{group:<22}{tables[methods[0]][group]['pages']:>6}  "
        row += "  ".join(
            f"{'  '.join(fmt(tables[m][group][x]) for x in METRICS):<34}" for m in methods
        )
        print(row)


def print_pages(results: list[PageResult]) -> None:
    for r in sorted(results, key=lambda r: r.scores.f1):
        s = r.scores
        print(
            f"{r.key:<55} f1 {s.f1:.3f} p {s.precision:.3f} r {s.recall:.3f} leak {s.leak:.3f}"
            f" code {fmt(s.code)} lang {fmt(s.language)} head {fmt(s.headings)}"
            f" {1000 * r.seconds:.0f}ms"
        )
        details = {k: v for k, v in s.details.items() if v}
        if details:
            print(f"    {details}")


def print_wcxb_pages(results: list[WcxbResult]) -> None:
    for r in sorted(results, key=lambda r: r.scores["f1"]):
        s = r.scores
        print(
            f"{r.page_id} f1 {s['f1']:.3f} p {s['precision']:.3f} r {s['recall']:.3f}"
            f" with {s['with']:.2f} without {s['without']:.2f} {r.url}"
        )


def hard_cases() -> list[tuple[str, bool, str]]:
    """Pinax on the hard cases: (case, passed, what was seen)."""
    by_key = {f.key: f for f in fixtures(SITES)}
    checks = []

    def run(key: str):
        fixture = by_key[key]
        html = decode_html(fixture.html_bytes(), header_charset(fixture))
        return fixture, html, extract(html, fixture.url)

    fixture, _, page = run("hard-cases/cookie-banner-mkdocs-material")
    leaked = [m for m in fixture.meta["boilerplate_markers"] if m.lower() in page.markdown.lower()]
    f1 = score_page(page.markdown, fixture.reference()).f1
    checks.append(
        ("cookie banner dropped", not leaked and f1 > 0.9, f"f1 {f1:.3f} leaked {leaked}")
    )

    fixture, html, page = run("hard-cases/non-utf8-windows-1252-sphinx")
    twin = by_key["sphinx/requests-advanced"]
    twin_page = extract(decode_html(twin.html_bytes(), None), twin.url)
    bad = html.count("\ufffd") + html.count("â€")
    checks.append(
        (
            "windows-1252 decoded",
            bad == 0 and page.markdown == twin_page.markdown,
            f"bad chars {bad}, same as UTF-8 twin: {page.markdown == twin_page.markdown}",
        )
    )
    for key in ("hard-cases/redirect-stub-mkdocs-redirects", "hard-cases/redirect-stub-mdbook"):
        fixture, _, page = run(key)
        want = fixture.meta["redirect_to_absolute"]
        checks.append(
            (f"redirect {key.split('-', 2)[-1]}", page.refresh_url == want, f"{page.refresh_url}")
        )
    fixture, _, page = run("hard-cases/js-shell-docsify")
    checks.append(
        ("js shell flagged", page.js_shell, f"js_shell={page.js_shell} words={page.word_count}")
    )
    return checks


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--method", action="append", choices=list(METHODS))
    parser.add_argument("--pages", action="store_true", help="per-page rows, worst F1 first")
    parser.add_argument("--only", help="only fixtures whose key contains this")
    parser.add_argument("--no-wcxb", action="store_true")
    parser.add_argument("--no-fixtures", action="store_true")
    args = parser.parse_args(argv)
    if not SITES.exists():
        print(f"no fixtures at {SITES} (set PINAX_SHARED)", file=sys.stderr)
        return 2
    methods = args.method or list(METHODS)
    pages = [f for f in regular_fixtures() if not args.only or args.only in f.key]
    tables, wcxb, speeds = {}, {}, {}
    for name in methods:
        method = METHODS[name]
        if not args.no_fixtures:
            results = run_fixtures(method, pages)
            tables[name] = aggregate(results)
            if args.pages:
                print(f"\n== {name}: fixtures")
                print_pages(results)
        else:
            results = []
        if not args.no_wcxb:
            wresults = run_wcxb(method)
            wcxb[name] = wcxb_summary(wresults)
            if args.pages:
                print(f"\n== {name}: WCXB")
                print_wcxb_pages(wresults)
        else:
            wresults = []
        speeds[name] = speed([*results, *wresults]) if results or wresults else (0, 0)
    if tables:
        print("\nFixtures (macro-averages; leak lower is better)")
        print_table(tables)
    if wcxb:
        print(f"\nWCXB documentation pages (dev, {len(wresults)} pages); published best 0.932")
        for name, row in wcxb.items():
            print(f"  {name:<12}" + "  ".join(f"{k} {v:.3f}" for k, v in row.items()))
    if not args.only:
        print("\nSpeed (fixtures + WCXB pages)")
        for name in methods:
            ms, mbs = speeds[name]
            huge = huge_page_seconds(METHODS[name])
            print(f"  {name:<12} median {ms:.1f} ms/page  {mbs:.2f} MB/s  5.5 MB page {huge:.2f} s")
        if "pinax" in methods:
            print("\nHard cases (pinax)")
            for case, passed, seen in hard_cases():
                print(f"  {'PASS' if passed else 'FAIL'}  {case:<28} {seen}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
