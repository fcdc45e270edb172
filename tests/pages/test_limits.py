"""Resource limits: each hostile answer ends in a clear error within its limit.

Real servers on loopback send what a hostile site would: bodies that never end, bombs, bytes
that trickle, endless redirects, pages nested 100,000 deep, a 50 MB line, broken UTF-8. The
tests assert the error and generous time ceilings; bench.speed.limits measures time and
peak memory per case.
"""

from __future__ import annotations

import functools
import gzip
import itertools
import json
import zlib
from pathlib import Path

import anyio
import pytest

from pinax.errors import FetchFailed
from pinax.pages.extract import MAX_NESTING, nesting
from pinax.pages.fetch import Fetcher, Limits, gunzip
from pinax.tools import Tools
from tests.conftest import shared_path
from tests.support.http_site import Reply, Request, Site
from tests.support.raw_server import RawServer, head
from tests.support.work import assert_linear

MiB = 1 << 20


@functools.cache
def zeros_gzip(size: int = 64 * MiB) -> bytes:
    """`size` zero bytes, gzipped (about 1000:1): the classic bomb."""
    packer = zlib.compressobj(9, zlib.DEFLATED, zlib.MAX_WBITS | 16)
    block = bytes(MiB)
    return b"".join(packer.compress(block) for _ in range(size // MiB)) + packer.flush()


def open_tools(tmp_path: Path, urls: list[str], limits: Limits | None = None) -> Tools:
    pages = [{"url": url, "title": f"page {i}"} for i, url in enumerate(urls)]
    manifest = tmp_path / "site.json"
    manifest.write_text(
        json.dumps({"pinax_manifest": 1, "name": "site", "url": urls[0], "pages": pages})
    )
    tools = Tools.open([manifest], cache_dir=tmp_path / "cache", ttl=0)
    assert tools.reader is not None
    if limits is not None:
        policy = tools.reader.policy
        tools.reader.fetcher = Fetcher(policy.check, limits, addresses=policy.addresses)
    return tools


def read(tools: Tools, url: str) -> dict:
    return anyio.run(tools.get_page, url)


def refused(tools: Tools, url: str, match: str) -> FetchFailed:
    """The read fails with `match`: each message names the limit that stopped it (how soon
    is the limit's own business, not a stopwatch's)."""
    with pytest.raises(FetchFailed, match=match) as caught:
        read(tools, url)
    return caught.value


def html(text: str) -> Reply:
    return Reply(200, text.encode(), {"Content-Type": "text/html; charset=utf-8"})


# Body size


def test_an_endless_body_is_cut_at_the_cap_while_streaming(tmp_path: Path) -> None:
    def endless(server: RawServer, connection) -> None:
        server.send(connection, head(content_type="text/html", connection="close"))
        server.stream(connection, itertools.repeat(b"<p>" + b"x" * 65533))

    with RawServer(endless) as server:
        tools = open_tools(tmp_path, [server.url("/page")], Limits(max_bytes=MiB))
        refused(tools, server.url("/page"), r"over the 1,048,576-byte limit; stopped reading")


def test_a_declared_50_mb_single_line_is_refused_before_reading(tmp_path: Path) -> None:
    size = 50 * 1000 * 1000

    def one_line(server: RawServer, connection) -> None:
        server.send(connection, head(content_type="text/html", content_length=str(size)))
        server.stream(connection, itertools.repeat(b"x" * MiB, size // MiB))

    with RawServer(one_line) as server:
        tools = open_tools(tmp_path, [server.url("/line")])
        refused(tools, server.url("/line"), r"page is 50,000,000 bytes, over the 10,485,760")
        assert server.sent < 10 * MiB


def test_an_undeclared_50_mb_single_line_stops_at_the_cap(tmp_path: Path) -> None:
    def one_line(server: RawServer, connection) -> None:
        server.send(connection, head(content_type="text/markdown", connection="close"))
        server.stream(connection, itertools.repeat(b"y" * MiB, 50))

    with RawServer(one_line) as server:
        tools = open_tools(tmp_path, [server.url("/line")])
        refused(tools, server.url("/line"), r"over the 10,485,760-byte limit; stopped reading")
        assert server.sent < 50 * MiB


# Compression


def test_a_gzip_bomb_is_refused_by_its_ratio(tmp_path: Path, site: Site) -> None:
    site.add(
        "/bomb", Reply(200, zeros_gzip(), {"Content-Type": "text/html", "Content-Encoding": "gzip"})
    )
    tools = open_tools(tmp_path, [site.url("/bomb")])
    refused(tools, site.url("/bomb"), r"refused a decompression bomb \(over 100:1")


def test_a_bomb_under_the_ratio_limit_still_stops_at_the_size_cap(
    tmp_path: Path, site: Site
) -> None:
    site.add(
        "/bomb", Reply(200, zeros_gzip(), {"Content-Type": "text/html", "Content-Encoding": "gzip"})
    )
    tools = open_tools(tmp_path, [site.url("/bomb")], Limits(max_ratio=10**9))
    refused(tools, site.url("/bomb"), r"over the 10,485,760-byte limit")


def test_a_raw_deflate_bomb_is_refused(tmp_path: Path, site: Site) -> None:
    packer = zlib.compressobj(9, zlib.DEFLATED, -zlib.MAX_WBITS)
    body = b"".join(packer.compress(bytes(MiB)) for _ in range(32)) + packer.flush()
    site.add(
        "/bomb", Reply(200, body, {"Content-Type": "text/html", "Content-Encoding": "deflate"})
    )
    tools = open_tools(tmp_path, [site.url("/bomb")])
    refused(tools, site.url("/bomb"), r"decompression bomb")


@pytest.mark.parametrize("encoding", ["gzip, gzip", "br", "zstd", "compress", "gzip, br"])
def test_encodings_pinax_did_not_ask_for_are_refused_unread(
    tmp_path: Path, site: Site, encoding: str
) -> None:
    """Stacked gzip multiplies ratios; brotli and zstd were never requested (no bounded
    decoder here), so even a real brotli bomb is refused before one byte is decoded."""
    site.add(
        "/x", Reply(200, zeros_gzip(), {"Content-Type": "text/html", "Content-Encoding": encoding})
    )
    tools = open_tools(tmp_path, [site.url("/x")])
    refused(tools, site.url("/x"), r"encoded as .* which Pinax did not ask for")
    assert site.requests[0].headers["accept-encoding"] == "gzip, deflate"


@pytest.mark.parametrize(
    "encode",
    [gzip.compress, zlib.compress, lambda b: zlib.compress(b)[2:-4]],
    ids=["gzip", "deflate", "raw-deflate"],
)
def test_honest_compressed_pages_are_decoded(tmp_path: Path, site: Site, encode) -> None:
    folder = shared_path("fixtures", "sites", "mdbook", "cli-build")
    meta = json.loads((folder / "meta.json").read_text())
    coding = "gzip" if encode is gzip.compress else "deflate"
    body = encode((folder / meta["page_file"]).read_bytes())
    site.add("/page", Reply(200, body, {"Content-Type": "text/html", "Content-Encoding": coding}))
    tools = open_tools(tmp_path, [site.url("/page")])
    assert read(tools, site.url("/page"))["title"] == meta["title"]


@pytest.mark.parametrize(
    ("body", "match"),
    [
        (b"\x1f\x8bnot gzip at all", "corrupt"),
        (gzip.compress(" ".join(map(str, range(5000))).encode())[:500], "ends early"),
    ],
    ids=["corrupt", "truncated"],
)
def test_broken_compressed_bodies_are_clear_errors(
    tmp_path: Path, site: Site, body: bytes, match: str
) -> None:
    site.add("/x", Reply(200, body, {"Content-Type": "text/html", "Content-Encoding": "gzip"}))
    tools = open_tools(tmp_path, [site.url("/x")])
    refused(tools, site.url("/x"), match)


def test_a_sitemap_bomb_is_refused_served_or_unpacked(tmp_path: Path, site: Site) -> None:
    """sitemap.xml served gzip-encoded, and sitemap.xml.gz unpacked by a builder."""
    site.add(
        "/sitemap.xml",
        Reply(200, zeros_gzip(), {"Content-Type": "application/xml", "Content-Encoding": "gzip"}),
    )
    fetcher = Fetcher(lambda url: url)
    with pytest.raises(FetchFailed, match="decompression bomb"):
        anyio.run(fetcher.get, site.url("/sitemap.xml"))
    with pytest.raises(FetchFailed, match=r"sitemap.xml.gz: unpacks to over the 52,428,800"):
        gunzip(zeros_gzip(), 50 * MiB, "sitemap.xml.gz")
    assert gunzip(gzip.compress(b"<urlset/>"), 50 * MiB, "s") == b"<urlset/>"


# Time


def test_a_page_that_trickles_hits_the_total_deadline(tmp_path: Path) -> None:
    """A byte every 50 ms never trips the per-read timeout; the total deadline stops it."""

    def trickle(server: RawServer, connection) -> None:
        server.send(connection, head(content_type="text/html", connection="close"))
        server.stream(connection, itertools.repeat(b"x"), pause=0.05)

    with RawServer(trickle) as server:
        limits = Limits(total_timeout=1.0, read_timeout=0.5)
        tools = open_tools(tmp_path, [server.url("/slow")], limits)
        refused(tools, server.url("/slow"), r"no complete answer within 1 s")
        assert server.sent > 5  # it was trickling, not silent


def test_headers_that_trickle_hit_the_total_deadline(tmp_path: Path) -> None:
    def slow_head(server: RawServer, connection) -> None:
        server.send(connection, b"HTTP/1.1 200 OK\r\n")
        server.stream(connection, itertools.repeat(b"X-Slow: 1\r\n"), pause=0.05)

    with RawServer(slow_head) as server:
        tools = open_tools(tmp_path, [server.url("/slow")], Limits(total_timeout=1.0))
        refused(tools, server.url("/slow"), r"no complete answer within 1 s")


def test_endless_redirects_to_new_urls_stop(tmp_path: Path, site: Site) -> None:
    def onward(request: Request) -> Reply:
        step = int(request.path.rsplit("/", 1)[1])
        return Reply(302, b"", {"Location": f"/r/{step + 1}"})

    for step in range(10):
        site.add(f"/r/{step}", onward)
    tools = open_tools(tmp_path, [site.url("/r/0")])
    refused(tools, site.url("/r/0"), r"more than 5 redirects")
    assert len(site.requests) == 6


# Page structure and text


def test_a_page_nested_100000_deep_is_refused_before_parsing(tmp_path: Path, site: Site) -> None:
    site.add("/deep", html("<main>" + "<div>" * 100_000 + "deep text" + "</div>" * 100_000))
    tools = open_tools(tmp_path, [site.url("/deep")])
    refused(tools, site.url("/deep"), r"nests elements 100,001 deep \(the limit is 512\)")


def test_deep_but_allowed_nesting_keeps_its_text(tmp_path: Path, site: Site) -> None:
    """400 levels: under MAX_NESTING, but past what markdownify can recurse through."""
    depth = 400
    site.add("/deep", html("<main>" + "<section>" * depth + "deep text" + "</section>" * depth))
    tools = open_tools(tmp_path, [site.url("/deep")])
    assert read(tools, site.url("/deep"))["markdown"].strip() == "deep text"


def test_real_pages_nest_far_below_the_limit() -> None:
    pages = sorted(shared_path("fixtures", "sites").glob("*/*/page.html"))
    assert len(pages) > 90
    deepest = max(nesting(p.read_text(errors="replace")) for p in pages)
    assert deepest * 10 < MAX_NESTING


def test_invalid_utf8_is_replaced_not_fatal(tmp_path: Path, site: Site) -> None:
    broken = b"<main><h1>Caf\xc3\xa9 \xff\xfe</h1><p>bad \xc3\x28 bytes \xed\xa0\x80</p></main>"
    site.add("/html", Reply(200, broken, {"Content-Type": "text/html; charset=utf-8"}))
    site.add("/md", Reply(200, b"# Title \xff\n\nbody \xc0\xaf", {"Content-Type": "text/markdown"}))
    tools = open_tools(tmp_path, [site.url("/html"), site.url("/md")])
    page = read(tools, site.url("/html"))
    assert page["title"].startswith("Café") and "\ufffd" in page["markdown"]
    assert "bytes" in page["markdown"]
    markdown = read(tools, site.url("/md"))
    assert markdown["source"] == "negotiated" and "\ufffd" in markdown["markdown"]


@pytest.mark.parametrize("where", ["header", "meta"])
def test_a_hostile_charset_is_ignored(tmp_path: Path, site: Site, where: str) -> None:
    """Python decodes 'punycode' in quadratic time: minutes for a big page."""
    content_type = "text/html" if where == "meta" else "text/html; charset=punycode"
    tools = open_tools(tmp_path, [site.url("/page")])

    def page(n: int) -> dict:
        body = "<main><p>" + "ä" * n + "</p></main>"
        if where == "meta":
            body = '<meta charset="punycode">' + body
        site.add(f"/page{n}", Reply(200, body.encode(), {"Content-Type": content_type}))
        return read(tools, site.url(f"/page{n}"))

    assert "ääää" in page(200_000)["markdown"]
    assert_linear(page, 25_000)  # 8 times the page, about 8 times the CPU (not timed)
