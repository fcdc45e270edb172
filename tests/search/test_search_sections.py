"""Search inside pages: headings are a field, a hit names the section that answers, and
get_page reads just that section; fan-out scores that compare across manifests."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest
from mcp import Client, StdioServerParameters

from pinax.library import Library
from pinax.manifest import Heading, Manifest, Page
from pinax.search.index import HEADING_COVER
from pinax.search.tokens import chunk_words, chunks, stem
from pinax.tools import Tools
from tests.conftest import LOOPBACK, shared_path
from tests.support.fixture_pages import read
from tests.support.http_site import Reply, Site

WIDGETS = """# Widgets

Widgets draw themselves.

## Usage

Mount a widget with `mount()`.

### Caveats

A widget mounted twice raises MountError.

## Troubleshooting

### Caveats

Blank widgets usually lack a size.
"""
OUTLINE = [
    {"level": 2, "title": "Usage", "anchor": "usage"},
    {"level": 3, "title": "Caveats", "anchor": "caveats"},
    {"level": 2, "title": "Troubleshooting", "anchor": "troubleshooting"},
    {"level": 3, "title": "Caveats", "anchor": "caveats-1"},
]


def write_site_manifest(site: Site, folder: Path) -> Path:
    site.add("/widgets", Reply(200, WIDGETS.encode(), {"Content-Type": "text/markdown"}))
    pages = [
        {"url": site.url("/widgets"), "title": "Widgets", "outline": OUTLINE},
        {"url": site.url("/forms"), "title": "Forms", "outline": [{"level": 2, "title": "Input"}]},
        {"url": site.url("/layout"), "title": "Layout"},
    ]
    data = {"pinax_manifest": 1, "name": "site", "url": site.url("/"), "pages": pages}
    path = folder / "site.json"
    path.write_text(json.dumps(data))
    return path


def test_a_heading_hit_names_the_section_get_page_reads(tmp_path: Path, site: Site) -> None:
    tools = Tools.open([write_site_manifest(site, tmp_path)], cache_dir=tmp_path / "cache")
    best = tools.search_pages("widgets caveats")["results"][0]
    assert best["title"] == "Widgets"
    # "Caveats" is on the page twice: the first is named with its parent.
    assert (best["heading"], best["anchor"]) == ("Usage > Caveats", "caveats")
    by_heading = read(tools, best["url"], section=best["heading"])
    by_anchor = read(tools, best["url"], section=best["anchor"])
    for answer in (by_heading, by_anchor):
        assert "mounted twice" in answer["markdown"]
        assert "Blank widgets" not in answer["markdown"]
    deeper = tools.search_pages("troubleshooting widgets")["results"][0]
    assert (deeper["heading"], deeper["anchor"]) == ("Troubleshooting", "troubleshooting")


def test_a_query_its_title_covers_points_at_the_page(tmp_path: Path, site: Site) -> None:
    tools = Tools.open([write_site_manifest(site, tmp_path)], cache_dir=tmp_path / "cache")
    best = tools.search_pages("widgets")["results"][0]
    assert best["title"] == "Widgets"
    assert "heading" not in best and "anchor" not in best
    found = tools.search_pages("input")["results"][0]
    assert (found["title"], found["heading"]) == ("Forms", "Input")
    assert "anchor" not in found  # none known


def test_explain_shows_the_heading_field(tmp_path: Path, site: Site) -> None:
    tools = Tools.open([write_site_manifest(site, tmp_path)], cache_dir=tmp_path / "cache")
    best = tools.search_pages("troubleshooting", explain=True)["results"][0]
    (term,) = best["explain"]["terms"]
    assert set(term["fields"]) == {"heading"}


def test_outlines_survive_the_on_disk_index(tmp_path: Path, site: Site) -> None:
    manifest = write_site_manifest(site, tmp_path)
    first = Library.load([manifest], index_dir=tmp_path / "index")
    again = Library.load([manifest], index_dir=tmp_path / "index")  # mapped from the file
    (docs,) = again.all()
    assert docs.index_file is not None
    assert docs.pages[0].outline == tuple(Heading(**h) for h in OUTLINE)
    assert docs.pages[2].outline == ()
    for library in (first, again):
        (hit,) = library.search("troubleshooting", 1).hits
        assert (hit.heading, hit.anchor) == ("Troubleshooting", "troubleshooting")


def test_equal_scores_keep_the_manifest_order() -> None:
    pages = tuple(
        Page(f"https://x.org/{slug}", "Install", "/", outline=(Heading(2, "Setup"),))
        for slug in ("zeta", "alpha", "mid")
    )
    library = Library([Manifest("x", "https://x.org", "X", pages)])
    found = library.search("setup", 3).hits
    assert [hit.url.rsplit("/", 1)[1] for hit in found] == ["zeta", "alpha", "mid"]
    assert len({hit.score for hit in found}) == 1


def test_a_word_of_one_library_decides_between_libraries() -> None:
    """useEffect is React's: MDN's pages that merely mention effects come after it."""
    folder = shared_path("corpora", "manifests")
    library = Library.load([folder / "mdn.json", folder / "react.json"])
    hits = library.search("useEffect", 3).hits
    assert (hits[0].docs, hits[0].title) == ("react", "useEffect")
    assert all(hit.score < hits[0].score for hit in hits if hit.docs == "mdn")


def test_outlines_lift_recall_on_a_dev_set() -> None:
    """The react DEV set with the shared outlines joined (the full check, every corpus and
    all manifests together, is bench.quality.eval_sections)."""
    shared_path("corpora", "outlines")
    from bench.harness.corpora import outlined_manifest, plain_manifest
    from bench.quality.eval_sections import evaluate

    today = evaluate(Library([plain_manifest("react")]), "react", None)
    outlined = evaluate(Library([outlined_manifest("react")]), "react", None)
    assert outlined.r10 >= 0.85 and outlined.mrr >= today.mrr + 0.12
    assert outlined.typo_r10 >= 0.9 * outlined.r10


@pytest.mark.anyio
async def test_an_mcp_client_over_stdio_sees_the_heading(tmp_path: Path, site: Site) -> None:
    manifest = write_site_manifest(site, tmp_path)
    params = StdioServerParameters(
        command=sys.executable,
        args=[
            *("-m", "pinax", "serve", "--docs", str(manifest)),
            *("--cache-dir", str(tmp_path), "--allow-private", LOOPBACK),
        ],
        env={"PYTHONPATH": str(Path(__file__).resolve().parents[2])},
    )
    async with Client(params) as client:
        found = await client.call_tool("search_pages", {"query": "caveats widgets"})
        best = found.structured_content["results"][0]
        assert best["heading"] == "Usage > Caveats" and best["anchor"] == "caveats"
        assert "heading Usage > Caveats" in found.content[0].text
        page = await client.call_tool("get_page", {"url": best["url"], "section": "caveats"})
        assert "mounted twice" in page.structured_content["markdown"]


def test_candidates_are_the_ranking_before_results_are_made() -> None:
    folder = shared_path("corpora", "manifests")
    (docs,) = Library.load([folder / "react.json"]).all()
    plan = docs.index.plan("state hooks")
    pages, raw = docs.index.candidates(plan, 50)
    assert 0 < len(pages) <= 50 and raw == sorted(raw, reverse=True)
    shown = docs.index.run(plan, 5).pages
    assert set(shown) <= set(pages)
    empty, nothing = docs.index.candidates(docs.index.plan("zzzqqq"), 10)
    assert len(empty) == len(nothing) == 0


def _heading_by_reading_each(docs, doc: int, plan) -> int:  # type: ignore[no-untyped-def]
    """`best_headings`' rule applied the plain way, by reading every heading of the page:
    the heading covering most of what the title lacks (query terms weighted by IDF), if at
    least half of it; the earliest of equals."""
    index, table = docs.index, docs.pages
    weights = index._content_weights(plan)
    title = table.title(doc)
    titled = {index.vocabulary.term(stem(w)) for c in chunks(title) for w, _ in chunk_words(c)}
    rest = {term: w for term, w in weights.items() if term not in titled}
    best, most = -1, 0.0
    for heading in range(table.outline_start.item(doc), table.outline_start.item(doc + 1)):
        text = table.heading(heading).title
        terms = {index.vocabulary.term(stem(w)) for c in chunks(text) for w, _ in chunk_words(c)}
        covered = sum(rest.get(term, 0.0) for term in terms)
        if covered > most and covered >= HEADING_COVER * sum(rest.values()):
            best, most = heading, covered
    return best


def test_the_heading_a_hit_names_is_the_one_reading_every_heading_finds() -> None:
    """The per-term heading lists give the same heading as reading each of the page's
    headings would, on every hit of the react DEV queries with the shared outlines."""
    shared_path("corpora", "outlines")
    from bench.harness.corpora import outlined_manifest, rows

    (docs,) = Library([outlined_manifest("react")]).all()
    named = 0
    for row in rows("react"):
        plan = docs.index.plan(row["query"])
        pages = docs.index.run(plan, 10).pages
        found = docs.index.best_headings(pages, plan)
        assert found == [_heading_by_reading_each(docs, doc, plan) for doc in pages], row
        named += sum(heading >= 0 for heading in found)
    assert named > 100  # the check covered real choices, not only pages without one
