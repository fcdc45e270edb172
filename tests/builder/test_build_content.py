"""`pinax build --content`: each page's text by section beside the manifest, from the same
read that records the outline; real fixture pages on loopback, the real CLI, rebuilds that
reuse unchanged pages, `--check`, and the two files written whole."""

from __future__ import annotations

import asyncio
import gzip
import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from pinax import manifest as manifest_io
from pinax.builder.core import build as build_manifest
from pinax.builder.markdown_outline import outline_cuts
from pinax.builder.model import BuildOptions
from pinax.builder.report import Reporter
from pinax.builder.sections import MAX_PAGE_TEXT, capped, fetched_at, split
from pinax.cli import app
from pinax.manifest import Heading, PageText, Section, companion_path, read_page_texts
from tests.conftest import shared_path
from tests.support.extraction import fixtures, score_page
from tests.support.fixture_pages import fixture, html_reply
from tests.support.http_site import Reply, Request, Site

runner = CliRunner()
# One page each of three generators, whole (no page near the cap).
FIXTURES = ["docusaurus/api", "sphinx/python-library-json", "mkdocs-material/reference-lists"]
F1_BAR = 0.95


def sitemap(site: Site, paths: list[str]) -> str:
    rows = "".join(f"<url><loc>{site.url(p)}</loc></url>" for p in paths)
    body = f'<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">{rows}</urlset>'
    return site.add("/sitemap.xml", Reply(200, body.encode(), {"Content-Type": "text/xml"}))


def html(body: str, title: str = "T", **headers: str) -> Reply:
    text = f"<html><head><title>{title}</title></head><body><main>{body}</main></body></html>"
    return Reply(200, text.encode(), {"Content-Type": "text/html; charset=utf-8", **headers})


def build(site: Site, out: Path, *more: str, source: str | None = None) -> object:
    arguments = ["build", source or site.url("/sitemap.xml"), "--content", "--delay", "0"]
    return runner.invoke(app, [*arguments, *more, "-o", str(out)])


def write_manifest(out: Path, site: Site, rows: list[dict]) -> None:
    manifest = {"pinax_manifest": 1, "name": "m", "url": site.url("/"), "pages": rows}
    out.write_text(json.dumps(manifest), encoding="utf-8")


def texts(out: Path) -> dict[str, PageText]:
    return {page.url: page for page in read_page_texts(companion_path(out))}


def as_markdown(page: PageText) -> str:
    """The page put back together (as bench.quality.content_build scores it)."""
    parts = []
    for section in page.sections:
        parts += [f"{'#' * section.level} {section.heading}", section.text]
    return "\n\n".join(parts) + "\n"


def test_real_pages_text_follows_their_outline_and_matches_their_source(
    site: Site, tmp_path: Path
) -> None:
    paths = []
    for name in FIXTURES:
        meta, folder = fixture(name)
        path = "/" + name.split("/")[0] + meta["url_path"]
        site.add(path, html_reply(folder, meta, site))
        paths.append(path)
    sitemap(site, paths)
    out = tmp_path / "fixtures.json"
    result = build(site, out)
    assert result.exit_code == 0, result.stderr
    assert (tmp_path / "fixtures.content.jsonl.gz").is_file()
    built = manifest_io.load(out)
    recorded = texts(out)
    assert [site.hits(p) for p in paths] == [1, 1, 1]  # one read gives outline and text
    assert "text of 3 of 3 pages" in result.stderr
    by_name = {f.key: f for f in fixtures(shared_path("fixtures", "sites"))}
    for name, path in zip(FIXTURES, paths, strict=True):
        page = next(p for p in built.pages if p.url == site.url(path))
        text = recorded[page.url]
        lead, rest = text.sections[0], text.sections[1:]
        assert (lead.level, lead.heading) == (1, page.title)
        assert [(s.level, s.heading, s.anchor) for s in rest] == [tuple(h) for h in page.outline]
        lines = {line for s in text.sections for line in s.text.split("\n")}
        assert f"# {page.title}" not in lines  # heading lines are the sections' headings
        assert not any(f"{'#' * h.level} {h.title}" in lines for h in page.outline)
        assert all("\n\n\n" not in s.text and s.text == s.text.strip() for s in text.sections)
        scores = score_page(as_markdown(text), by_name[name].reference())
        assert scores.f1 >= F1_BAR, (name, scores.f1)


def test_hidden_text_never_reaches_the_content_file(site: Site, tmp_path: Path) -> None:
    site.add(
        "/p",
        html(
            "<h1>Page</h1><p>Seen words.</p><p style='display:none'>secret instructions</p>"
            "<p hidden>also hidden</p><h2 id='a'>Part\u200b</h2><p>More\u200b seen\u202e.</p>"
        ),
    )
    twin = (
        "# Twin\n\nVisible twin text.\n<!-- a comment the page hides -->\n"
        '<div style="display:none">hidden markup</div>\n\n## Usage\n\nUse it.\n'
    )
    site.add("/t", html("<h1>Twin</h1><p>html</p>"))
    site.add("/t.md", Reply(200, twin.encode(), {"Content-Type": "text/markdown"}))
    rows = [
        {"url": site.url("/p"), "title": "Page"},
        {"url": site.url("/t"), "title": "Twin", "markdown_url": site.url("/t.md")},
    ]
    out = tmp_path / "m.json"
    out.write_text(
        json.dumps({"pinax_manifest": 1, "name": "m", "url": site.url("/"), "pages": rows})
    )
    result = build(site, out, source=str(out))
    assert result.exit_code == 0, result.stderr
    raw = gzip.decompress(companion_path(out).read_bytes()).decode()
    for hidden in ("secret", "also hidden", "comment the page hides", "hidden markup"):
        assert hidden not in raw
    assert "\\u200b" not in raw and "\u200b" not in raw and "\u202e" not in raw
    recorded = texts(out)
    page = recorded[site.url("/p")]
    assert [(s.heading, s.text) for s in page.sections] == [
        ("Page", "Seen words."),
        ("Part", "More seen."),
    ]
    twin_text = recorded[site.url("/t")]
    assert [(s.level, s.heading, s.text) for s in twin_text.sections] == [
        (1, "Twin", "Visible twin text."),
        (2, "Usage", "Use it."),
    ]
    assert site.hits("/t") == 0  # the twin is what get_page reads: the HTML is not fetched


def test_a_rebuild_reuses_unchanged_text_and_check_reports_changed_text(
    site: Site, tmp_path: Path
) -> None:
    state = {"body": "<h1>P</h1><p>First words.</p><h2 id='one'>One</h2><p>Body.</p>"}
    state["etag"] = '"v1"'
    asked: list[str | None] = []

    def answer(request: Request) -> Reply:
        asked.append(request.headers.get("if-none-match"))
        if request.headers.get("if-none-match") == state["etag"]:
            return Reply(304, b"", {"ETag": state["etag"]})
        modified = "Tue, 03 Mar 2026 10:00:00 GMT"
        return html(state["body"], ETag=state["etag"], **{"Last-Modified": modified})

    site.add("/p", answer)
    site.add("/q", html("<h1>Q</h1><p>Stays.</p>"))
    sitemap(site, ["/p", "/q"])
    out = tmp_path / "p.json"
    assert build(site, out).exit_code == 0
    first = texts(out)[site.url("/p")]
    assert first.fetched_at == "2026-03-03T10:00:00Z"
    assert [s.text for s in first.sections] == ["First words.", "Body."]
    again = build(site, out)
    assert again.exit_code == 0 and "1 unchanged (304)" in again.stderr
    assert asked == [None, '"v1"']
    assert texts(out)[site.url("/p")] == first  # the last build's text, kept
    assert build(site, out, "--check").exit_code == 0

    state.update(body="<h1>P</h1><p>New words.</p><h2 id='one'>One</h2><p>Body.</p>")
    state["etag"] = '"v2"'
    checked = build(site, out, "--check")
    assert checked.exit_code == 1
    assert "1 changed" in checked.stderr and site.url("/p") in checked.stderr
    assert texts(out)[site.url("/p")] == first  # --check never writes
    assert build(site, out).exit_code == 0
    assert texts(out)[site.url("/p")].sections[0].text == "New words."


def test_text_of_another_build_than_the_outline_is_not_reused(site: Site, tmp_path: Path) -> None:
    state = {"body": "<h1>P</h1><p>Old.</p>", "etag": '"v1"'}

    def answer(request: Request) -> Reply:
        if request.headers.get("if-none-match") == state["etag"]:
            return Reply(304, b"", {"ETag": state["etag"]})
        return html(state["body"], ETag=state["etag"])

    site.add("/p", answer)
    sitemap(site, ["/p"])
    out = tmp_path / "p.json"
    assert build(site, out).exit_code == 0
    state.update(body="<h1>P</h1><p>New.</p><h2 id='n'>Next</h2><p>On.</p>", etag='"v2"')
    arguments = ["build", site.url("/sitemap.xml"), "--outline", "--delay", "0", "-o", str(out)]
    assert runner.invoke(app, arguments).exit_code == 0  # the outline moves on, the text not
    assert build(site, out).exit_code == 0  # the site says 304, but the text is not this outline's
    assert [s.text for s in texts(out)[site.url("/p")].sections] == ["New.", "On."]


def test_an_existing_manifest_gets_its_content_file(site: Site, tmp_path: Path) -> None:
    site.add("/guide", html("<h1>Guide</h1><p>Intro.</p><h2 id='start'>Start</h2><p>Go.</p>"))
    out = tmp_path / "site.json"
    rows = [
        {
            "url": site.url("/guide"),
            "title": "Hand-written",
            "outline": [{"level": 2, "title": "Start", "anchor": "start"}],
        }
    ]
    out.write_text(
        json.dumps({"pinax_manifest": 1, "name": "s", "url": site.url("/"), "pages": rows})
    )
    result = build(site, out, source=str(out))
    assert result.exit_code == 0, result.stderr
    assert manifest_io.load(out).pages[0].title == "Hand-written"
    page = texts(out)[site.url("/guide")]
    assert [(s.heading, s.anchor, s.text) for s in page.sections] == [
        ("Hand-written", None, "Intro."),
        ("Start", "start", "Go."),
    ]
    assert site.hits("/guide") == 1  # the outline it had is no reason to skip the text


def test_a_broken_content_file_is_said_and_replaced(site: Site, tmp_path: Path) -> None:
    site.add("/p", html("<h1>P</h1><p>Words.</p>"))
    sitemap(site, ["/p"])
    out = tmp_path / "m.json"
    assert build(site, out).exit_code == 0
    companion_path(out).write_bytes(b"\x1f\x8b not really gzip")
    result = build(site, out)
    assert result.exit_code == 0 and "does not read" in result.stderr
    assert texts(out)[site.url("/p")].sections[0].text == "Words."


def test_content_needs_a_manifest_file(site: Site) -> None:
    site.add("/p", html("<h1>P</h1>"))
    result = runner.invoke(app, ["build", sitemap(site, ["/p"]), "--content"])
    assert result.exit_code == 2 and "-o FILE" in result.stderr


def test_a_failed_manifest_write_leaves_both_old_files(site: Site, tmp_path: Path) -> None:
    site.add("/p", html("<h1>P</h1><p>Words.</p>"))
    sitemap(site, ["/p"])
    out = tmp_path / "m.json"
    out.mkdir()  # the manifest cannot be written where a folder stands
    result = build(site, out)
    assert result.exit_code != 0
    assert not companion_path(out).exists()
    assert [p.name for p in tmp_path.iterdir()] == ["m.json"]  # no staged file left behind


def test_llms_full_txt_gives_the_text_without_a_fetch_per_page(site: Site) -> None:
    index = f"# Site\n\n- [A]({site.url('/a')})\n- [B]({site.url('/b')})\n"
    full = (
        f"# Alpha\nSource: {site.url('/a')}\n\nAlpha intro.\n\n## Setup\n\nSet it up.\n\n"
        f"# Beta\nSource: {site.url('/b')}\n\nBeta text. <!-- hidden note -->\n"
    )
    site.add("/llms.txt", Reply(200, index.encode(), {"Content-Type": "text/plain"}))
    modified = {"Last-Modified": "Mon, 02 Mar 2026 08:00:00 GMT"}
    site.add(
        "/llms-full.txt", Reply(200, full.encode(), {"Content-Type": "text/plain", **modified})
    )
    found: list[PageText] = []

    asyncio.run(
        build_manifest(
            site.url("/llms.txt"), BuildOptions(content=True, delay=0), Reporter(), found
        )
    )
    assert site.hits("/a") == site.hits("/b") == 0
    by_url = {page.url: page for page in found}
    alpha = by_url[site.url("/a")].sections
    assert [(s.level, s.heading, s.text) for s in alpha] == [
        (1, "A", "Alpha intro."),
        (2, "Setup", "Set it up."),
    ]
    assert by_url[site.url("/b")].sections[0].text == "Beta text."
    assert by_url[site.url("/b")].fetched_at == "2026-03-02T08:00:00Z"  # the file's date


def test_a_crawl_records_text_from_its_own_fetch(site: Site) -> None:
    site.add("/", html("<h1>Home</h1><p>Welcome.</p><h2 id='s'>Start</h2><a href='/a'>a</a>"))
    site.add("/a", html("<h1>A</h1><p>Page a.</p>"))
    found: list[PageText] = []
    asyncio.run(
        build_manifest(site.url("/"), BuildOptions(content=True, delay=0), Reporter(), found)
    )
    assert [site.hits(p) for p in ("/", "/a")] == [1, 1]
    by_path = {page.url.rsplit("/", 1)[1]: page.sections for page in found}
    assert [(s.heading, s.text) for s in by_path[""]][1:] == [
        ("Start", "[a](" + site.url("/a") + ")")
    ]
    assert by_path[""][0].text == "Welcome."
    assert by_path["a"][0].text == "Page a."


def test_sections_keep_unlisted_headings_as_text_and_drop_the_title_line() -> None:
    markdown = "# Title\n\nLead.\n\n## A {#a}\n\nIn a.\n\n# Second H1\n\nStill a.\n"
    title, cuts = outline_cuts(markdown)
    got = split(markdown, cuts).titled(title or "")
    assert got == (
        Section(1, "Title", "Lead."),
        Section(2, "A", "In a.\n\nSecond H1\n\nStill a.", "a"),
    )


def test_the_cap_keeps_every_section_and_each_ones_beginning() -> None:
    big = "word " * (MAX_PAGE_TEXT // 2)
    found = [Section(1, "T", "short lead"), Section(2, "A", big), Section(2, "B", big)]
    kept = capped(found)
    assert kept.capped and len(kept.sections) == 3
    assert sum(len(s.text.encode()) for s in kept.sections) <= MAX_PAGE_TEXT
    assert kept.sections[0].text == "short lead"
    assert kept.sections[1].text.startswith("word word") and kept.sections[2].text
    assert not capped(found[:1]).capped


def test_an_enormous_page_is_cut_to_the_cap_and_the_build_says_so(site: Site) -> None:
    paragraphs = "".join(f"<p>{'long words here ' * 50}</p>" for _ in range(200))
    site.add("/big", html(f"<h1>Big</h1>{paragraphs}<h2 id='end'>End</h2><p>Last.</p>"))
    found: list[PageText] = []
    reporter = Reporter()
    options = BuildOptions(content=True, delay=0)
    asyncio.run(build_manifest(sitemap(site, ["/big"]), options, reporter, found))
    (page,) = found
    assert sum(len(s.text.encode()) for s in page.sections) <= MAX_PAGE_TEXT
    assert [s.text for s in page.sections][1:] == ["Last."]  # a small section stays whole
    assert any("1 cut to the 88 KB cap" in note for note in reporter.notes)


def test_every_line_written_reads_back_whatever_the_title(site: Site, tmp_path: Path) -> None:
    site.add("/p", html("<h1>P</h1><p>Words.</p><h2 id='a'>A</h2><p>More.</p>"))
    out = tmp_path / "m.json"
    write_manifest(out, site, [{"url": site.url("/p"), "title": "Long\ttitle " * 100}])
    assert build(site, out, source=str(out)).exit_code == 0
    (page,) = texts(out).values()  # the reader accepts it: the title is cut to a heading's size
    assert len(page.sections[0].heading) <= 500 and page.sections[0].heading.startswith(
        "Long title"
    )


@pytest.mark.parametrize(
    ("header", "lastmod", "expected"),
    [
        ("Tue, 03 Mar 2026 10:00:00 GMT", None, "2026-03-03T10:00:00Z"),
        ("not a date", "2026-01-02", "2026-01-02"),
        (None, None, None),
    ],
)
def test_fetched_at(header: str | None, lastmod: str | None, expected: str | None) -> None:
    assert fetched_at(header, lastmod) == expected


def test_heading_in_outline_entries_keeps_its_anchor() -> None:
    markdown = "## Install {#install}\n\ntext\n"
    _, cuts = outline_cuts(markdown)
    assert [c.heading for c in cuts] == [Heading(2, "Install", "install")]
