"""get_page's token budget on every real fixture page: results within budget, outlines,
sections reachable in two calls, cursors that cover a page without loss or overlap."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import anyio
import pytest

from pinax.errors import InvalidArgs, NotFound
from pinax.pages.budget import estimate_tokens, page_slice, result_tokens
from pinax.pages.headings import document, page_document
from pinax.tools import Tools
from tests.conftest import shared_path
from tests.support.fixture_pages import (
    fixture,
    html_reply,
    negotiating,
    open_tools,
    read,
    read_whole,
)
from tests.support.http_site import Reply, Request, Site

LONG_PAGES = (
    "docusaurus/plugins",
    "hugo-docsy/content-shortcodes",
    "jekyll-just-the-docs/changelog",
    "mkdocs-material/plugins-blog",
    "sphinx/python-library-argparse",
    "sphinx/python-library-stdtypes",
)
CROWDED_PAGES = (  # more headings than the default budget can give an outline entry each
    "mdbook/print-page",
    "mkdocs-material/changelog",
    "sphinx/black-change-log",
)


HARD_CASES = (
    "hard-cases/cookie-banner-mkdocs-material",
    "hard-cases/huge-python-changelog",
    "hard-cases/non-utf8-windows-1252-sphinx",
)


def fixture_names() -> list[str]:
    folder = shared_path("fixtures", "sites")
    return sorted(str(p.parent.relative_to(folder)) for p in folder.glob("*/*/meta.json"))


def sweep() -> list:
    """Every fixture page; the long, crowded and hard ones by default, the rest with -m slow."""
    quick = {*LONG_PAGES, *CROWDED_PAGES, *HARD_CASES}
    try:
        names = fixture_names()
    except pytest.skip.Exception:
        return list(quick)
    return [n if n in quick else pytest.param(n, marks=pytest.mark.slow) for n in names]


class Fixtures:
    """Every fixture page served from one loopback site, each read whole once."""

    def __init__(self, site: Site, tmp_path: Path) -> None:
        names = fixture_names()
        self.urls: dict[str, str] = {}
        for name in names:
            meta, folder = fixture(name)
            path = f"/{name}{meta['url_path']}"
            if meta.get("hard_case") == "redirect-stub":
                continue  # a stub has no text of its own
            self.urls[name] = site.add(path, html_reply(folder, meta))
        pages = [{"url": url, "title": name} for name, url in self.urls.items()]
        manifest = tmp_path / "fixtures.json"
        data = {"pinax_manifest": 1, "name": "fixtures", "url": site.url("/"), "pages": pages}
        manifest.write_text(json.dumps(data))
        self.tools = Tools.open([manifest], cache_dir=tmp_path / "cache")
        self.pages: dict[str, dict] = {}
        self.firsts: dict[str, dict] = {}

    def whole(self, name: str) -> dict:
        if name not in self.pages:
            self.pages[name] = read_whole(self.tools, self.urls[name])
        return self.pages[name]

    def get(self, name: str, **arguments) -> dict:
        return read(self.tools, self.urls[name], **arguments)

    def section(self, name: str, section: str) -> dict:
        """What get_page returns for `section` at the default budget: the tool's windowing of
        the page it read, without reading a 5 MB page from the cache once per heading."""
        return page_slice(self.whole(name), 8000, section=section)

    def first(self, name: str) -> dict:
        """The first call an agent makes: the page at the default budget, read once."""
        if name not in self.firsts:
            self.firsts[name] = self.get(name)
        return self.firsts[name]


@pytest.fixture(scope="module")
def pages(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Fixtures]:
    with Site() as site:
        yield Fixtures(site, tmp_path_factory.mktemp("budget"))


def walk(page: dict, max_tokens: int, **start) -> list[dict]:
    """Every result from a first call to the last cursor, each checked against the budget."""
    results = [page_slice(page, max_tokens, **start)]
    while results[-1].get("next_cursor"):
        assert results[-1]["truncated"] is True and results[-1]["markdown"]
        results.append(page_slice(page, max_tokens, cursor=results[-1]["next_cursor"]))
    assert results[-1]["truncated"] is False
    assert all(result_tokens(r) <= max_tokens for r in results)
    return results


@pytest.mark.parametrize("name", sweep())
def test_no_result_exceeds_the_budget_and_cursors_cover_the_page(
    pages: Fixtures, name: str
) -> None:
    if name not in pages.urls or name == "hard-cases/js-shell-docsify":
        pytest.skip("no text to slice: a redirect stub or a JavaScript shell (test_page_sources)")
    page = pages.whole(name)
    first = pages.get(name)  # the tool itself, at its default budget
    assert result_tokens(first) <= 8000
    assert first["total_tokens"] == document(page["markdown"], page["content_hash"]).tokens
    if first["truncated"]:
        assert "outline" in first and first["next_cursor"]
    else:
        assert first["markdown"] == page["markdown"] and "outline" not in first
    for max_tokens in (500, 8000, 20000):
        results = walk(page, max_tokens)
        assert "".join(r["markdown"] for r in results) == page["markdown"]
        assert all("outline" not in r for r in results[1:])


def plain(heading: str) -> str:
    return heading.replace("`", "").replace("*", "").casefold()


def calls_to_reach(pages: Fixtures, name: str, anchor: str) -> int:
    """How many get_page calls an agent needs to read the section `anchor`, passing only what
    earlier results showed: a listed entry's anchor, or `entry anchor > name` for a name in the
    subheadings of the listed entry that holds the section; failing both, it opens the
    innermost listed section that holds it and looks again. Every result is within budget."""
    page = pages.whole(name)
    doc = page_document(page)  # the page's own heading ids, as get_page shows them
    where = {h.anchor: h for h in doc.headings}
    wanted = where[anchor]
    first = pages.first(name)
    assert result_tokens(first) <= 8000
    if not first["truncated"]:
        return 1
    outline = first["outline"]
    for calls in (2, 3):
        holders = [
            e for e in outline if where[e["anchor"]].start < wanted.start < where[e["anchor"]].end
        ]
        names = [n for e in holders[-1:] for n in e.get("subheadings", ())]
        # Its anchor when shown (its text then names an earlier heading of that text), else
        # its text.
        named = [n for n in (f"#{anchor}", wanted.title) if n in names][:1]
        shown = [e["anchor"] for e in outline if e["anchor"] == anchor] + [
            f"{holders[-1]['anchor']} > {n}" for n in named
        ]
        if shown:
            found = pages.section(name, shown[0])
            assert result_tokens(found) <= 8000
            assert found["section"]["anchor"] == anchor, (shown[0], found["section"])
            assert found["markdown"].startswith("#" * wanted.level + " ")
            return calls
        if not holders:
            break
        opened = pages.section(name, holders[-1]["anchor"])
        assert result_tokens(opened) <= 8000
        if not opened["truncated"]:  # the whole holding section came back: it is read
            assert wanted.title in opened["markdown"]
            return calls
        outline = opened["outline"]
    return 99


@pytest.mark.parametrize("name", LONG_PAGES)
def test_every_section_of_a_long_page_is_reachable_in_two_calls(pages: Fixtures, name: str) -> None:
    page = pages.whole(name)
    first = pages.get(name)
    doc = page_document(page)  # the page's own heading ids, as get_page shows them
    assert first["truncated"] and "outline_truncated" not in first
    assert [e["anchor"] for e in first["outline"]] == [h.anchor for h in doc.headings]
    for heading in doc.headings:
        by_anchor = pages.get(name, section=heading.anchor)
        assert result_tokens(by_anchor) <= 8000
        assert by_anchor["section"] == {"heading": heading.title, "anchor": heading.anchor}
        assert by_anchor["markdown"].startswith("#" * heading.level + " ")
        text = page["markdown"][heading.start : heading.end]
        assert text.startswith(by_anchor["markdown"])
        by_text = pages.get(name, section=heading.title.upper())["section"]
        # The same heading text (code marks aside), or an anchor, which wins over text:
        # "THEME" is the anchor of "Theme:" before it is the text of a later "theme".
        assert plain(by_text["heading"]) == plain(heading.title) or (
            by_text["anchor"] == heading.title.lower()
        )


@pytest.mark.parametrize("name", [*CROWDED_PAGES, "hard-cases/huge-python-changelog"])
def test_every_section_of_a_crowded_page_is_reachable_in_two_calls(
    pages: Fixtures, name: str
) -> None:
    page = pages.whole(name)
    doc = page_document(page)  # the page's own heading ids, as get_page shows them
    first = pages.first(name)
    assert result_tokens(first) <= 8000 and "outline_truncated" not in first
    outline = first["outline"]
    named = [n for e in outline for n in e.get("subheadings", ())]
    assert len(outline) + len(named) == len(doc.headings)  # every heading, once
    assert named, "a crowded page names its deeper headings under their listed ancestors"
    where = {h.anchor: h for h in doc.headings}
    deepest_entry = max(where[e["anchor"]].level for e in outline)
    listed = {e["anchor"] for e in outline}
    unlisted = [h for h in doc.headings if h.anchor not in listed]
    assert deepest_entry <= min(h.level for h in unlisted)  # shallow levels get the entries
    for heading in doc.headings:
        assert calls_to_reach(pages, name, heading.anchor) <= 2, heading


def test_a_section_over_the_budget_is_sliced_within_the_section(pages: Fixtures) -> None:
    name = "hard-cases/huge-python-changelog"
    page = pages.whole(name)
    doc = page_document(page)  # the page's own heading ids, as get_page shows them
    release = next(h for h in doc.headings if h.title == "Python 3.13.0 beta 1")
    results = walk(page, 8000, section="python 3.13.0 BETA 1")
    assert len(results) > 2
    assert "".join(r["markdown"] for r in results) == page["markdown"][release.start : release.end]
    assert results[0]["section"] == {"heading": release.title, "anchor": release.anchor}
    sub = [e["anchor"] for e in results[0]["outline"]]
    assert sub == [doc.headings[i].anchor for i in doc.inside(release.start, release.end)[1:]]
    assert len(set(sub)) == len(sub)  # repeated headings ("Library"): the page's id1, id2...
    inside = doc.inside(release.start, release.end)
    anchor = next(doc.headings[i].anchor for i in inside if doc.headings[i].title == "Library")
    assert anchor in sub and anchor != "library"  # not the first "Library" of the page
    library = pages.get(name, section=anchor)
    assert library["markdown"].startswith("### Library\n")
    # A path names the repeated subheading by its text, from the release's text or anchor.
    for path in ("Python 3.13.0 beta 1 > Library", f"{release.anchor} >library"):
        assert pages.get(name, section=path)["section"] == library["section"]


def test_anchors_the_page_markdown_sets_are_used(tmp_path: Path, site: Site) -> None:
    meta, folder = fixture("hugo-docsy/content-lookandfeel")
    url = site.add(meta["url_path"], negotiating(folder, meta))
    tools = open_tools(tmp_path, site, [meta["url_path"]])
    outline = read(tools, url, max_tokens=2000)["outline"]
    assert {"level": 3, "heading": "Light/dark color theme and mode support"}.items() <= next(
        e for e in outline if e["anchor"] == "lightdark-color-feature"
    ).items()
    section = read(tools, url, section="lightdark-color-feature", max_tokens=20000)
    assert section["markdown"].startswith("### Light/dark color theme and mode support")
    # A link to a heading reads that section; an anchor that is no heading is said, with the
    # page's headings to choose from (issue 20), not answered with the whole page.
    linked = read(tools, url + "#lightdark-color-feature", max_tokens=20000)
    assert linked["markdown"] == section["markdown"] and linked["url"] == url
    with pytest.raises(NotFound, match=r"no heading #no-such-heading on .*; its headings: "):
        read(tools, url + "#no-such-heading")
    assert site.hits(meta["url_path"]) == 1


def test_a_cursor_from_another_version_of_the_page_is_refused(tmp_path: Path, site: Site) -> None:
    meta, folder = fixture("mdbook/print-page")
    body = [html_reply(folder, meta).body]

    def current(_: Request) -> Reply:
        return Reply(200, body[0], {"Content-Type": "text/html; charset=utf-8"})

    url = site.add("/print.html", current)
    tools = open_tools(tmp_path, site, ["/print.html"], ttl=0)
    first = read(tools, url, max_tokens=1000)
    second = read(tools, url, max_tokens=1000, cursor=first["next_cursor"])
    assert second["markdown"] and second["content_hash"] == first["content_hash"]
    body[0] = body[0].replace(b"mdBook", b"mdBook 2")
    with pytest.raises(InvalidArgs, match="page changed since this cursor"):
        read(tools, url, max_tokens=1000, cursor=first["next_cursor"])


def test_bad_budget_section_and_cursor_arguments(tmp_path: Path, site: Site) -> None:
    meta, folder = fixture("docusaurus/plugins")
    url = site.add(meta["url_path"], html_reply(folder, meta))
    tools = open_tools(tmp_path, site, [meta["url_path"]])
    for max_tokens in (100, 50000, "many", True):
        with pytest.raises(InvalidArgs, match="max_tokens"):
            read(tools, url, max_tokens=max_tokens)
    with pytest.raises(InvalidArgs, match="not a cursor get_page returned"):
        read(tools, url, cursor="bm90IGEgY3Vyc29y")
    with pytest.raises(NotFound, match=r"no section 'Biuld plugins'.*did you mean"):
        read(tools, url, section="Biuld plugins")
    assert site.hits(meta["url_path"]) == 1  # arguments are checked against the cached copy


def test_small_pages_come_back_whole(tmp_path: Path, site: Site) -> None:
    meta, folder = fixture("sphinx/requests-install")
    url = site.add(meta["url_path"], html_reply(folder, meta))
    tools = open_tools(tmp_path, site, [meta["url_path"]])
    page = read(tools, url)
    assert page["truncated"] is False and "outline" not in page and "next_cursor" not in page
    assert page["markdown"] == read_whole(tools, url)["markdown"]


def test_the_mcp_tool_takes_the_budget_arguments(tmp_path: Path, site: Site) -> None:
    from mcp import Client

    from pinax.server import create_server

    meta, folder = fixture("mkdocs-material/plugins-blog")
    url = site.add(meta["url_path"], html_reply(folder, meta))
    tools = open_tools(tmp_path, site, [meta["url_path"]])

    async def session() -> None:
        async with Client(create_server(tools, warm=False)) as client:
            listed = {t.name: t for t in (await client.list_tools()).tools}
            properties = listed["get_page"].input_schema["properties"]
            assert properties["max_tokens"]["maximum"] == 20000
            assert {"section", "cursor"} <= set(properties)
            first = await client.call_tool("get_page", {"url": url, "max_tokens": 1500})
            text = first.content[0].text
            page = first.structured_content
            assert estimate_tokens(text) <= 1500 and page["markdown"] in text
            assert page["outline"][0]["anchor"] in text and page["next_cursor"] in text
            assert page["truncated"] and page["outline"]
            anchor = page["outline"][-1]["anchor"]
            later = await client.call_tool("get_page", {"url": url, "section": anchor})
            assert later.structured_content["section"]["anchor"] == anchor
            more = await client.call_tool(
                "get_page", {"url": url, "max_tokens": 1500, "cursor": page["next_cursor"]}
            )
            assert more.structured_content["markdown"] and "outline" not in more.structured_content
            bad = await client.call_tool("get_page", {"url": url, "cursor": "zz"})
            assert (
                bad.is_error and json.loads(bad.content[0].text)["error"]["code"] == "invalid_args"
            )

    anyio.run(session)
    assert site.hits(meta["url_path"]) == 1
