"""Pages that stopped the server (issue 19, items 1 to 4), served by a real site on loopback.

Each hostile page is read through `Tools.get_page` (the server's own implementation) and must
answer, with a page or a clear `fetch_failed`, well within a second or two: before the fixes
these took from seconds to minutes of CPU, holding the GIL, or replaced a good cached copy.
"""

from __future__ import annotations

import itertools
import json
import subprocess
import sys
import time
from pathlib import Path

import pytest
from mcp import Client

from pinax.errors import FetchFailed, PinaxError
from pinax.pages.fetch import Limits
from tests.pages.test_limits import html, open_tools, read
from tests.support.http_site import Reply, Request, Site
from tests.support.loop_stalls import WATCHED, longest_stall, start_watching
from tests.support.serving import Served, served_http
from tests.support.work import HANG, assert_linear

N = 40_000  # repeats: before the fixes each of these took seconds to hours
_paths = itertools.count()  # a new URL for every read: a cached page costs nothing


def _read(tools, url: str) -> dict | PinaxError:
    try:
        return read(tools, url)
    except PinaxError as exc:
        return exc


def _read_linearly(tmp_path: Path, site: Site, make, headers: dict[str, str]) -> None:
    """Read `make(n)` as a page at n = N / 8 and N: the CPU time grows about as the page
    (tests/work.py), not as its square; counted, not timed."""
    tools = open_tools(tmp_path, [site.url("/")])

    def page(n: int) -> object:
        url = site.add(f"/p{next(_paths)}", Reply(200, make(n).encode(), headers))
        return _read(tools, url)

    assert_linear(page, N // 8)


# 1. Super-linear regular expressions over fetched text

HOSTILE_HTML = {
    "unclosed tags": lambda n: "<a " * n,
    "unclosed tags with a quote": lambda n: "<main>" + "<a title='x' " * n,
    "meta without end": lambda n: "<meta " * n + "<main>text</main>",
    "blank run in text": lambda n: "<main><p>a" + " \t" * (n * 5) + "b</p></main>",
    "blank run in a refresh": lambda n: (
        '<meta http-equiv="refresh" content="0;url=x' + " " * n * 5 + 'y">'
    ),
}

HOSTILE_MARKDOWN = {
    "open comments": lambda n: "# T\n\n" + "<!--\n" * n,
    "heading with a blank run": lambda n: "# a" + " " * (n * 5) + "x\n\ntext\n",
    "heading of brackets": lambda n: "# " + "[" * (n * 5) + "\n\ntext\n",
    "heading of link starts": lambda n: "# " + "[a](" * n + "\n\ntext\n",
    "custom id after blanks": lambda n: "# a" + " " * (n * 5) + "{#x\n\ntext\n",
}
HTML_TYPE = {"Content-Type": "text/html; charset=utf-8"}
MARKDOWN_TYPE = {"Content-Type": "text/markdown; charset=utf-8"}


@pytest.mark.parametrize("name", sorted(HOSTILE_HTML))
def test_hostile_html_is_read_in_linear_time(tmp_path: Path, site: Site, name: str) -> None:
    _read_linearly(tmp_path, site, HOSTILE_HTML[name], HTML_TYPE)


@pytest.mark.parametrize("name", sorted(HOSTILE_MARKDOWN))
def test_hostile_markdown_is_read_in_linear_time(tmp_path: Path, site: Site, name: str) -> None:
    _read_linearly(tmp_path, site, HOSTILE_MARKDOWN[name], MARKDOWN_TYPE)


def test_a_link_header_of_angle_brackets_is_read_in_linear_time(tmp_path: Path, site: Site) -> None:
    tools = open_tools(tmp_path, [site.url("/")])

    def page(n: int) -> object:
        headers = {"Content-Type": "text/html", "Link": "<" * n}
        body = b"<main><h1>T</h1><p>words here</p></main>"
        return _read(tools, site.add(f"/p{next(_paths)}", Reply(200, body, headers)))

    assert_linear(page, 8_000)


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
    # Cubic time took minutes on 8,000 blanks, hours on these: a hang guard is enough.
    done = subprocess.run(
        [sys.executable, "-m", "pinax", "build", url, "-o", str(tmp_path / "m.json")],
        capture_output=True,
        text=True,
        timeout=HANG,
    )
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
    answer = _read(open_tools(tmp_path, [url]), url)
    assert isinstance(answer, FetchFailed), f"{name}: parsed instead of refused"
    assert "nests elements" in answer.message


def test_svg_and_script_content_do_not_count_as_nesting(tmp_path: Path, site: Site) -> None:
    """`<path/>` in SVG really is empty; tags inside a script are text."""
    svg = "<svg>" + "<path d='M0 0'/>" * 6_000 + "</svg>"
    script = "<script>" + "'<div>'+" * 6_000 + "''</script>"
    page = f"<main><h1>Fine</h1>{svg}{script}<p>{'word ' * 30}</p></main>"
    url = site.add("/p", html(page))
    answer = _read(open_tools(tmp_path, [url]), url)
    assert isinstance(answer, dict) and "word" in answer["markdown"], answer


def test_extraction_stops_at_the_calls_deadline(tmp_path: Path, site: Site) -> None:
    """A big page just under the nesting limit takes seconds of CPU to extract: the call
    answers at its deadline instead, and the worker gives up at its next step."""
    block = "<div>" * 500 + "<p>word <b>x</b></p>" + "</div>" * 500
    url = site.add("/big", html("<main>" + block * (3_000_000 // len(block)) + "</main>"))
    tools = open_tools(tmp_path, [url], Limits(total_timeout=1.0))
    answer = _read(tools, url)
    # Seconds of work, refused by the call's 1 s deadline (its message names it).
    assert isinstance(answer, FetchFailed) and "within 1 s in all" in answer.message


# 3. One deadline for the whole get_page


def _slow(reply: Reply, seconds: float):
    def handler(request: Request) -> Reply:
        time.sleep(seconds)
        return reply

    return handler


def _stub(target: str) -> Reply:
    return html(f'<html><head><meta http-equiv="refresh" content="0; url={target}"></head></html>')


CHAINS = {
    "redirect stubs": lambda site: (
        [site.add(f"/s{i}", _slow(_stub(f"/s{i + 1}"), 0.7)) for i in range(3)]
        + [site.add("/s3", _slow(html("<main><h1>End</h1><p>the end of it</p></main>"), 0.7))]
    ),
    "markdown alternate": lambda site: [
        site.add(
            "/page",
            _slow(
                html('<head><link rel="alternate" type="text/markdown" href="/page.md"></head>'),
                1.2,
            ),
        ),
        site.add(
            "/page.md", _slow(Reply(200, b"# Page\n\ntext", {"Content-Type": "text/markdown"}), 1.2)
        ),
    ],
    "link header alternate": lambda site: [
        site.add(
            "/page",
            _slow(
                Reply(
                    200,
                    b"<main>x</main>",
                    {
                        "Content-Type": "text/html",
                        "Link": '</p.md>; rel="alternate"; type="text/markdown"',
                    },
                ),
                1.2,
            ),
        ),
        site.add(
            "/p.md", _slow(Reply(200, b"# P\n\ntext", {"Content-Type": "text/markdown"}), 1.2)
        ),
    ],
}


@pytest.mark.parametrize("name", sorted(CHAINS))
def test_one_deadline_covers_the_whole_read(tmp_path: Path, site: Site, name: str) -> None:
    """Each step is within the per-request limit (2 s); together they are not."""
    urls = CHAINS[name](site)
    tools = open_tools(tmp_path, urls, Limits(total_timeout=2.0))
    answer = _read(tools, urls[0])
    # Without the one deadline every step would answer within its own 2 s and the read
    # would succeed: refused, by the deadline its message names, is the proof.
    assert isinstance(answer, FetchFailed), f"{name}: answered ({answer})"
    assert "within 2 s in all" in answer.message


# 4. Only a real page replaces a cached copy

EMPTY_ANSWERS = {
    "204": Reply(204, b"", {}),
    "304 not asked for": Reply(304, b"", {}),
    "300 empty": Reply(300, b"", {"Content-Type": "text/html"}),
    "200 empty": Reply(200, b"", {"Content-Type": "text/html"}),
    "200 blank markdown": Reply(200, b" \n\n ", {"Content-Type": "text/markdown"}),
    "205": Reply(205, b"", {}),
}


@pytest.mark.parametrize("name", sorted(EMPTY_ANSWERS))
def test_an_empty_answer_never_replaces_a_good_copy(tmp_path: Path, site: Site, name: str) -> None:
    good = html("<main><h1>Good</h1><p>the good copy of the page</p></main>")
    answers = [good, EMPTY_ANSWERS[name], good]
    url = site.add("/p", lambda request: answers.pop(0) if len(answers) > 1 else answers[0])
    tools = open_tools(tmp_path, [url])  # ttl 0: every read asks the site again
    first = read(tools, url)
    second = read(tools, url)
    assert second["markdown"] == first["markdown"] and second["cache"] == "stale"
    assert "not a page" in second["stale_reason"]
    assert tools.reader is not None and tools.reader.cache is not None
    cached = tools.reader.cache.get(url)
    assert cached is not None and cached[0]["markdown"] == first["markdown"]


def test_an_empty_answer_without_a_copy_is_fetch_failed(tmp_path: Path, site: Site) -> None:
    url = site.add("/p", Reply(204, b"", {}))
    answer = _read(open_tools(tmp_path, [url]), url)
    assert isinstance(answer, FetchFailed) and "HTTP 204" in answer.message


# 1 and 2, as the server's other clients feel them: the event loop is never held for long


@pytest.mark.anyio
async def test_hostile_pages_do_not_hold_the_servers_event_loop(tmp_path: Path, site: Site) -> None:
    """A hostile page costs CPU in proportion to its size (cleaning, finding headings,
    cutting the slice): on the event loop, every other client of the server waited for it,
    100 ms and more a page (and the first get_page imported the page reader there, half a
    second). Read through a real `pinax serve --http`, no loop callback may take long."""
    urls = [site.add(f"/h{i}", html(make(N))) for i, make in enumerate(HOSTILE_HTML.values())]
    for i, make in enumerate(HOSTILE_MARKDOWN.values()):
        urls.append(site.add(f"/m{i}", Reply(200, make(N).encode(), MARKDOWN_TYPE)))
    manifest = tmp_path / "hostile.json"
    pages = [{"url": url, "title": url} for url in urls]
    manifest.write_text(
        json.dumps({"pinax_manifest": 1, "name": "h", "url": site.url("/"), "pages": pages})
    )
    args = ("--docs", str(manifest), "--cache-dir", str(tmp_path / "cache"), "--log-level", "info")
    with served_http(*args, python=WATCHED) as server:
        _wait_for(server, "warm: search indexes built")
        start_watching(server)
        async with Client(server.url) as client:
            for url in urls:
                await client.call_tool("get_page", {"url": url, "max_tokens": 20_000})
        stalled, what = longest_stall(server)
    assert stalled < 40, f"the event loop was held {stalled:.0f} ms by {what}"


def _wait_for(server: Served, text: str, within: float = 60) -> None:
    deadline = time.monotonic() + within
    while not any(text in line for line in server.log):
        assert time.monotonic() < deadline, f"no {text!r} in the log:\n{server.log_text()}"
        time.sleep(0.05)
