"""Pages that stopped the server (issue 19, items 1 to 4), served by a real site on loopback.

Each hostile page is read through `Tools.get_page` (the server's own implementation) and must
answer, with a page or a clear `fetch_failed`, well within a second or two: before the fixes
these took from seconds to minutes of CPU, holding the GIL, or replaced a good cached copy.
"""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path

import pytest

from pinax.errors import FetchFailed, PinaxError
from tests.http_site import Reply, Site
from tests.test_limits import html, open_tools, read

N = 40_000  # repeats: before the fixes each of these took seconds to hours


def _timed_read(tools, url: str) -> tuple[dict | PinaxError, float]:
    started = time.monotonic()
    try:
        answer: dict | PinaxError = read(tools, url)
    except PinaxError as exc:
        answer = exc
    return answer, time.monotonic() - started


# 1. Super-linear regular expressions over fetched text

HOSTILE_HTML = {
    "unclosed tags": "<a " * N,
    "unclosed tags with a quote": "<main>" + "<a title='x' " * N,
    "meta without end": "<meta " * N + "<main>text</main>",
    "blank run in text": "<main><p>a" + " \t" * (N * 5) + "b</p></main>",
    "blank run in a refresh": '<meta http-equiv="refresh" content="0;url=x' + " " * N * 5 + 'y">',
}

HOSTILE_MARKDOWN = {
    "open comments": "# T\n\n" + "<!--\n" * N,
    "heading with a blank run": "# a" + " " * (N * 5) + "x\n\ntext\n",
    "heading of brackets": "# " + "[" * (N * 5) + "\n\ntext\n",
    "heading of link starts": "# " + "[a](" * N + "\n\ntext\n",
    "custom id after blanks": "# a" + " " * (N * 5) + "{#x\n\ntext\n",
}


@pytest.mark.parametrize("name", sorted(HOSTILE_HTML))
def test_hostile_html_is_read_in_linear_time(tmp_path: Path, site: Site, name: str) -> None:
    url = site.add("/p", html(HOSTILE_HTML[name]))
    answer, took = _timed_read(open_tools(tmp_path, [url]), url)
    assert took < 3, f"{name}: {took:.1f} s ({answer})"


@pytest.mark.parametrize("name", sorted(HOSTILE_MARKDOWN))
def test_hostile_markdown_is_read_in_linear_time(tmp_path: Path, site: Site, name: str) -> None:
    body = HOSTILE_MARKDOWN[name].encode()
    url = site.add("/p", Reply(200, body, {"Content-Type": "text/markdown; charset=utf-8"}))
    answer, took = _timed_read(open_tools(tmp_path, [url]), url)
    assert took < 3, f"{name}: {took:.1f} s ({answer})"


def test_a_link_header_of_angle_brackets_is_read_in_linear_time(tmp_path: Path, site: Site) -> None:
    headers = {"Content-Type": "text/html", "Link": "<" * 60_000}
    url = site.add("/p", Reply(200, b"<main><h1>T</h1><p>words here</p></main>", headers))
    answer, took = _timed_read(open_tools(tmp_path, [url]), url)
    assert took < 3, f"{took:.1f} s ({answer})"


@pytest.mark.parametrize(
    "heading", ["# a" + " " * 20_000 + "x", "# " + "[" * 50_000, "## b" + " \t" * 20_000 + "#"]
)
def test_pinax_build_reads_a_hostile_llms_txt_in_linear_time(
    tmp_path: Path, site: Site, heading: str
) -> None:
    """The builder's llms.txt heading regex backtracked in cubic time (8,000 blanks: minutes)."""
    page = site.add("/docs/page", html("<main><h1>Page</h1><p>text</p></main>"))
    body = f"# Site\n\n> docs\n\n{heading}\n\n- [Page]({page})\n".encode()
    url = site.add("/llms.txt", Reply(200, body, {"Content-Type": "text/plain"}))
    started = time.monotonic()
    done = subprocess.run(
        [sys.executable, "-m", "pinax", "build", url, "-o", str(tmp_path / "m.json")],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert time.monotonic() - started < 30
    assert "Traceback" not in done.stderr, done.stderr


# 2. The nesting limit, measured the way the parser builds the tree

DEEP = 3_000  # past the limit of 512 however it is written

DEEP_PAGES = {
    "self-closing divs": "<main>" + "<div/>" * DEEP + "text",
    "stray end tags": "<main>" + "<div></span>" * DEEP + "text",
    "quoted '/>' and '>'": "<main>" + "<div title='/>' data-x=\"a>b\">" * DEEP + "text",
    "uppercase": "<main>" + "<DIV/>" * DEEP + "text",
    "many comments": "<main>" + "<div><!-- </div> -->" * DEEP + "text",
}


@pytest.mark.parametrize("name", sorted(DEEP_PAGES))
def test_nesting_tricks_do_not_pass_the_limit(tmp_path: Path, site: Site, name: str) -> None:
    page = DEEP_PAGES[name]
    page += "<p>pad</p>" * (10_001 - page.count("<"))  # past NESTING_CHECK_FROM tags
    url = site.add("/p", html(page))
    answer, took = _timed_read(open_tools(tmp_path, [url]), url)
    assert isinstance(answer, FetchFailed), f"{name}: parsed instead of refused"
    assert "nests elements" in answer.message and took < 3


def test_svg_and_script_content_do_not_count_as_nesting(tmp_path: Path, site: Site) -> None:
    """`<path/>` in SVG really is empty; tags inside a script are text."""
    svg = "<svg>" + "<path d='M0 0'/>" * 6_000 + "</svg>"
    script = "<script>" + "'<div>'+" * 6_000 + "''</script>"
    page = f"<main><h1>Fine</h1>{svg}{script}<p>{'word ' * 30}</p></main>"
    url = site.add("/p", html(page))
    answer, _ = _timed_read(open_tools(tmp_path, [url]), url)
    assert isinstance(answer, dict) and "word" in answer["markdown"], answer
