"""A page's headings with the anchors its HTML gives them (pinax/pages/outline.py), and
get_page opening a section by that anchor."""

from __future__ import annotations

from pathlib import Path

import pytest

from pinax.pages import extract_page
from pinax.pages.budget import Document
from tests.support.fixture_pages import open_tools, read, serve
from tests.support.http_site import Reply, Site
from tests.support.work import assert_linear


def headings(body: str) -> list[tuple[int, str, str | None]]:
    page = f"<html><body><main><h1>Page</h1>{body}</main></body></html>"
    return [tuple(h) for h in extract_page(page, "https://example.com/page").headings]


def test_a_headings_id_is_its_anchor() -> None:
    assert headings('<h2 id="setup">Set up</h2><p>text</p>')[1:] == [(2, "Set up", "setup")]


def test_sphinx_puts_the_id_on_the_section_the_heading_opens() -> None:
    body = (
        '<section id="id279"><h3>Library<a class="headerlink" href="#id279">¶</a></h3>'
        '<p>text</p><h4 id="inner">Inner</h4></section>'
    )
    assert headings(body)[1:] == [(3, "Library", "id279"), (4, "Inner", "inner")]


def test_a_section_id_belongs_only_to_its_first_heading() -> None:
    body = '<section id="outer"><p>lead</p><h2>Not the title</h2><p>x</p></section>'
    assert headings(body)[1:] == [(2, "Not the title", None)]


def test_without_ids_the_permalink_names_the_anchor_and_leaves_the_text() -> None:
    body = '<h2>Usage <a class="headerlink" href="#usage-notes">¶</a></h2><p>t</p>'
    assert headings(body)[1:] == [(2, "Usage", "usage-notes")]
    body = '<h2><a class="header" href="#intro%20x">Intro</a></h2><p>t</p>'
    assert headings(body)[1:] == [(2, "Intro", None)]  # an anchor with a space is no anchor


def test_a_permalink_to_another_headings_id_is_not_this_headings_anchor() -> None:
    body = (
        '<h2 id="headings">Headings</h2><p>demo:</p>'
        '<h3><a href="#headings" class="anchor-heading"></a> Heading 3</h3><p>t</p>'
    )
    assert headings(body)[1:] == [(2, "Headings", "headings"), (3, "Heading 3", None)]


def test_a_named_target_inside_the_heading_is_the_last_resort() -> None:
    assert headings('<h2><a name="old-style"></a>Old style</h2><p>t</p>')[1:] == [
        (2, "Old style", "old-style")
    ]


def test_docusaurus_labels_and_symbols_never_reach_the_text() -> None:
    body = (
        '<h2 id="api">API<a href="#api" class="hash-link" aria-label="Direct link to API">'
        "\u200b</a></h2><p>t</p>"
    )
    assert headings(body)[1:] == [(2, "API", "api")]


def test_headings_outside_the_main_content_are_not_the_pages() -> None:
    page = (
        '<html><body><nav><h2 id="nav">Navigation</h2></nav><main><h1>Page</h1>'
        '<h2 id="real">Real</h2><p>text</p></main><footer><h2 id="f">Footer</h2></footer>'
        "</body></html>"
    )
    found = extract_page(page, "https://example.com/").headings
    assert [(h.title, h.anchor) for h in found] == [("Page", None), ("Real", "real")]


def test_get_page_opens_a_section_by_the_pages_own_id(tmp_path: Path, site: Site) -> None:
    page = (
        "<html><body><main><h1>Changelog</h1>"
        '<section id="v2"><h2>Version 2</h2><section id="id7"><h3>Library</h3><p>two</p>'
        '</section></section><section id="v1"><h2>Version 1</h2><section id="id3">'
        "<h3>Library</h3><p>one</p></section></section></main></body></html>"
    )
    url = site.add("/changes", Reply(200, page.encode(), {"Content-Type": "text/html"}))
    tools = open_tools(tmp_path, site, ["/changes"])
    answer = read(tools, url, section="id3")
    assert answer["section"]["heading"] == "Library"
    assert "one" in answer["markdown"] and "two" not in answer["markdown"]
    assert "heading_ids" not in answer  # the lookup table is the cache's, not the caller's
    assert "two" in read(tools, url, section="#id7")["markdown"]
    assert read(tools, url + "#id3")["markdown"].strip().endswith("one")


@pytest.mark.parametrize(
    "name", ["sphinx/python-library-json", "mkdocs-material/changelog", "mdbook/cli-build"]
)
def test_real_pages_sections_open_by_their_html_ids(tmp_path: Path, site: Site, name: str) -> None:
    meta, _, url = serve(site, name)
    tools = open_tools(tmp_path, site, [meta["url_path"]])
    page = read(tools, url, max_tokens=20000)
    assert page["title"]
    extracted = extract_page(
        site.routes[meta["url_path"]].body.decode("utf-8", "replace"), url
    ).headings
    anchored = [h for h in extracted if h.level >= 2 and h.anchor][:12]
    assert anchored
    for heading in anchored:
        assert read(tools, url, section=heading.anchor)["section"]["heading"].replace(
            "`", ""
        ) == heading.title.replace("`", "")


def test_the_pages_ids_open_the_sections_of_the_markdown_it_advertises(
    tmp_path: Path, site: Site
) -> None:
    """Docsy serves its own Markdown (headings like `blocks/cover <a id="blockscover"></a>`);
    get_page reads that, and the HTML's ids (`blocks-cover`) still open its sections."""
    from tests.pages.test_page_sources import docsy_alternate

    meta, _, url, _ = docsy_alternate(site, "content-shortcodes")
    tools = open_tools(tmp_path, site, [meta["url_path"]])
    answer = read(tools, url, section="blocks-cover")
    assert answer["source"] == "markdown-alternate"
    assert answer["section"]["heading"].startswith("`blocks/cover`")
    assert read(tools, url, section="blocks")["section"]["heading"].startswith("`blocks/*`")


@pytest.mark.parametrize(
    "make",
    [
        lambda n: " " * n + "b",
        lambda n: "[" * n,
        lambda n: "[x](" * (n // 4),
        lambda n: "x" + " " * n + "{#a}",
    ],
    ids=["spaces", "brackets", "open-links", "spaces-then-id"],
)
def test_hostile_heading_lines_cost_linear_time(make) -> None:
    """Heading lines are read with regexes that never rescan a run (a lazy match before an
    optional closing sequence took minutes on 200,000 spaces): get_page's sections, the
    outline's words, the build's Markdown outlines. Compared with 8 times the line, not timed."""
    from pinax.builder.markdown_outline import markdown_outline
    from pinax.pages.outline import key, plain_title

    def read(n: int) -> Document:
        heading = make(n)
        doc = Document(f"## a{heading}\n## [{heading}](x)\n")
        key(heading), plain_title(heading), markdown_outline(f"## a{heading}\n")
        return doc

    assert_linear(read, 25_000)
    doc = read(200_000)
    assert [h.level for h in doc.headings] == [2, 2]
