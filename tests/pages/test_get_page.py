"""get_page against real HTTP servers on loopback serving real rendered docs pages."""

from __future__ import annotations

import gzip
import json
import re
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from pinax.errors import CacheError, FetchFailed, InvalidArgs, NotFound
from pinax.pages.fetch import Fetcher, Limits
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

FIXTURES = (
    "docusaurus/api",
    "mkdocs-material/reference-lists",
    "sphinx/requests-quickstart",
    "vitepress/guide-routing",
    "hugo-docsy/content-versioning",
    "jekyll-just-the-docs/ui-tables",
    "mdbook/cli-build",
)


def words(text: str) -> str:
    """The words of a text in order, Markdown link targets left out."""
    text = re.sub(r"\]\([^)]*\)", "]", text)
    return " ".join(re.findall(r"\w+", text.lower()))


@pytest.fixture
def other_site() -> Iterator[Site]:
    with Site() as running:
        yield running


@pytest.mark.parametrize("name", FIXTURES)
def test_html_pages_become_markdown(tmp_path: Path, site: Site, name: str) -> None:
    meta, folder = fixture(name)
    site.add(meta["url_path"], html_reply(folder, meta))
    tools = open_tools(tmp_path, site, [meta["url_path"]])
    page = read(tools, site.url(meta["url_path"]))
    assert page["source"] == "html"
    assert page["cached"] is False
    assert page["url"] == site.url(meta["url_path"])
    assert page["title"] == meta["title"]
    source = (folder / meta["source_file"]).read_text()
    if "```" in source or ".. code" in source:
        assert "```" in page["markdown"]
    prose = re.sub(r"```.*?```", "", page["markdown"], flags=re.S)
    assert "<div" not in prose and "<script" not in prose
    assert time.strptime(page["fetched_at"][:19], "%Y-%m-%dT%H:%M:%S")


def test_code_fences_keep_their_language(tmp_path: Path, site: Site) -> None:
    meta, folder = fixture("docusaurus/api")
    site.add(meta["url_path"], html_reply(folder, meta))
    tools = open_tools(tmp_path, site, [meta["url_path"]])
    markdown = read(tools, site.url(meta["url_path"]))["markdown"]
    assert "```js\n" in markdown
    assert "## `prettier.format(source, options)`" in markdown
    assert "Edit this page" not in markdown


def test_markdown_is_returned_as_served_when_negotiated(tmp_path: Path, site: Site) -> None:
    meta, folder = fixture("vitepress/guide-routing")
    site.add(meta["url_path"], negotiating(folder, meta))
    tools = open_tools(tmp_path, site, [meta["url_path"]])
    page = read_whole(tools, site.url(meta["url_path"]))
    assert page["source"] == "negotiated"  # "markdown" before get_page told twins apart
    assert page["markdown"] == (folder / meta["source_file"]).read_text()
    assert site.requests[0].headers["accept"].startswith("text/markdown")


def test_html_served_as_text_plain_is_not_taken_for_markdown(tmp_path: Path, site: Site) -> None:
    meta, folder = fixture("mdbook/cli-build")
    body = html_reply(folder, meta).body
    site.add(meta["url_path"], Reply(200, body, {"Content-Type": "text/plain"}))
    tools = open_tools(tmp_path, site, [meta["url_path"]])
    assert read(tools, site.url(meta["url_path"]))["source"] == "html"


def test_cache_answers_repeats_until_the_ttl(tmp_path: Path, site: Site) -> None:
    meta, folder = fixture("mdbook/cli-build")
    path = meta["url_path"]
    site.add(path, html_reply(folder, meta))
    tools = open_tools(tmp_path, site, [path], ttl=0.5)
    first = read(tools, site.url(path))
    second = read(tools, site.url(path))
    assert (first["cached"], second["cached"]) == (False, True)
    assert second["markdown"] == first["markdown"]
    assert site.hits(path) == 1
    time.sleep(0.6)
    assert read(tools, site.url(path))["cached"] is False
    assert site.hits(path) == 2


def test_cache_survives_a_new_process_view(tmp_path: Path, site: Site) -> None:
    meta, folder = fixture("mdbook/cli-build")
    site.add(meta["url_path"], html_reply(folder, meta))
    read(open_tools(tmp_path, site, [meta["url_path"]]), site.url(meta["url_path"]))
    again = read(open_tools(tmp_path, site, [meta["url_path"]]), site.url(meta["url_path"]))
    assert again["cached"] is True and site.hits(meta["url_path"]) == 1


@pytest.mark.parametrize(
    "url",
    [
        "http://127.0.0.2:{port}/page",  # another host
        "http://127.0.0.1:1/page",  # another port
        "http://127.0.0.1:99999/page",  # no port at all
        "https://127.0.0.1:{port}/page",  # another scheme
        "file:///etc/passwd",
        "ftp://127.0.0.1:{port}/page",
        "http://user:pw@127.0.0.1:{port}/page",
        "not a url",
        "",
    ],
)
def test_urls_off_the_loaded_sites_are_refused_before_connecting(
    tmp_path: Path, site: Site, url: str
) -> None:
    site.add("/page", Reply(200, b"<main><p>hi</p></main>", {"Content-Type": "text/html"}))
    tools = open_tools(tmp_path, site, ["/page"])
    port = site.url("/").split(":")[2].split("/")[0]
    with pytest.raises(InvalidArgs):
        read(tools, url.format(port=port))
    assert site.requests == []


def test_redirects_are_followed_on_site_and_refused_off_site(
    tmp_path: Path, site: Site, other_site: Site
) -> None:
    site.add("/old", Reply(301, b"", {"Location": "/new"}))
    site.add(
        "/new", Reply(200, b"<main><h1>New</h1><p>text</p></main>", {"Content-Type": "text/html"})
    )
    site.add("/away", Reply(302, b"", {"Location": other_site.url("/secret")}))
    other_site.add("/secret", Reply(200, b"secret", {"Content-Type": "text/plain"}))
    tools = open_tools(tmp_path, site, ["/old", "/away"])
    page = read(tools, site.url("/old"))
    assert page["url"] == site.url("/new") and page["title"] == "New"
    with pytest.raises(FetchFailed, match=r"redirects to .* refused"):
        read(tools, site.url("/away"))
    assert other_site.requests == []


def test_endless_redirects_stop(tmp_path: Path, site: Site) -> None:
    site.add("/loop", Reply(302, b"", {"Location": "/loop"}))
    tools = open_tools(tmp_path, site, ["/loop"])
    with pytest.raises(FetchFailed, match="more than 5 redirects"):
        read(tools, site.url("/loop"))
    assert site.hits("/loop") == 6


def test_http_errors(tmp_path: Path, site: Site) -> None:
    site.add("/broken", Reply(500, b"oops", {"Content-Type": "text/plain"}))
    site.add("/docs/getting-started", Reply(200, b"<main>x</main>", {"Content-Type": "text/html"}))
    tools = open_tools(tmp_path, site, ["/broken", "/docs/getting-started"])
    with pytest.raises(FetchFailed, match="HTTP 500"):
        read(tools, site.url("/broken"))
    with pytest.raises(NotFound, match=r"did you mean .*/docs/getting-started"):
        read(tools, site.url("/docs/getting-startd"))


def test_unreachable_site(tmp_path: Path) -> None:
    with Site() as gone:
        tools = open_tools(tmp_path, gone, ["/page"])
        url = gone.url("/page")
    with pytest.raises(FetchFailed, match="could not connect"):
        read(tools, url)


def test_size_and_time_limits(tmp_path: Path, site: Site) -> None:
    site.add("/big", Reply(200, b"x" * 5000, {"Content-Type": "text/html"}))

    def slow(_: Request) -> Reply:
        time.sleep(2)
        return Reply(200, b"late", {"Content-Type": "text/html"})

    site.add("/slow", slow)
    tools = open_tools(tmp_path, site, ["/big", "/slow"])
    assert tools.reader is not None
    limits = Limits(max_bytes=1000, total_timeout=0.5, read_timeout=0.4)
    tools.reader.fetcher = Fetcher(tools.reader.policy.check, limits)
    with pytest.raises(FetchFailed, match="over the 1,000-byte limit"):
        read(tools, site.url("/big"))
    # The 0.5 s budget ends the read of a page that answers in 2 s (else it would read
    # "late"): the error says so, however loaded the machine.
    with pytest.raises(FetchFailed, match=r"timed out|no complete answer"):
        read(tools, site.url("/slow"))


def test_a_broken_cache_falls_back_to_a_live_fetch(tmp_path: Path, site: Site) -> None:
    meta, folder = fixture("mdbook/cli-build")
    site.add(meta["url_path"], html_reply(folder, meta))
    tools = open_tools(tmp_path, site, [meta["url_path"], "/gone"])
    assert tools.reader is not None and tools.reader.cache is not None
    (tmp_path / "blocker").write_text("a file where the cache folder should be")
    tools.reader.cache.directory = tmp_path / "blocker"
    page = read(tools, site.url(meta["url_path"]))
    assert page["cached"] is False and page["markdown"]
    with pytest.raises(CacheError, match=r"the page cache failed .* and so did the live fetch"):
        read(tools, site.url("/gone"))


def test_wcxb_pages_keep_their_main_text(tmp_path: Path, site: Site) -> None:
    folder = shared_path("corpora", "wcxb-docs", "dev")
    cases = sorted(folder.glob("*.json"))[:12]
    paths = []
    for case in cases:
        path = f"/{case.stem}.html"
        body = gzip.decompress(case.with_suffix(".html.gz").read_bytes())
        site.add(path, Reply(200, body, {"Content-Type": "text/html"}))
        paths.append(path)
    tools = open_tools(tmp_path, site, paths)
    for case, path in zip(cases, paths, strict=True):
        truth = json.loads(case.read_text())["ground_truth"]
        markdown = words(read_whole(tools, site.url(path))["markdown"])
        found = [s for s in truth["with"] if words(s) in markdown]
        assert len(found) >= len(truth["with"]) / 2, (case.name, truth["with"])
