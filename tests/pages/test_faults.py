"""Faults: the network and the disk fail; the server answers each call with the right error
code, keeps serving everything else, and loses nothing it had cached.

Every case runs through the real MCP server (in process, or `pinax serve` over stdio where
the fault must happen to the server's own process: a read-only or full cache filesystem is
mounted in a private mount namespace with `unshare`, and the test skips where that is not
permitted). A stale copy instead of an error, where the cache has one, is the get_page
cache's part; here the error codes are asserted as they are.
"""

from __future__ import annotations

import json
import os
import pickle
import random
import re
import shutil
import sqlite3
import subprocess
import sys
import zlib
from collections.abc import AsyncIterator, Callable
from contextlib import ExitStack, asynccontextmanager
from email.utils import formatdate
from pathlib import Path
from time import time

import pytest
from mcp import Client, StdioServerParameters

from pinax.library import Library
from pinax.pages import AddressPolicy, PageReader, UrlPolicy, site_origins
from pinax.pages.cache import FOLDER, PageCache
from pinax.pages.fetch import Fetcher, Limits, resolve
from pinax.server import create_server
from pinax.tools import Tools
from tests.conftest import LOOPBACK, ROOT
from tests.support.http_site import Reply, Site
from tests.support.raw_server import RawServer, head, reset
from tests.support.tls_certs import server_context

pytestmark = pytest.mark.anyio

GUIDE = Reply(
    200,
    b"<main><h1>Guide</h1><p>Cached before the fault.</p></main>",
    {"Content-Type": "text/html"},
)
MORE = Reply(
    200,
    b"<main><h1>More</h1><p>Fetched during the fault.</p></main>",
    {"Content-Type": "text/html"},
)


def write_manifest(path: Path, urls: list[str]) -> Path:
    pages = [{"url": url, "title": url.rsplit("/", 1)[1] or "home"} for url in urls]
    path.write_text(
        json.dumps({"pinax_manifest": 1, "name": "site", "url": urls[0], "pages": pages})
    )
    return path


async def dns(host: str, port: int) -> list[str]:
    """The system resolver, except that `gone.test` does not exist."""
    if host == "gone.test":
        raise OSError(f"[Errno -2] Name or service not known: {host}")
    return await resolve(host, port)


def wire(tmp_path: Path, urls: list[str]) -> Tools:
    """Tools over those pages, as Tools.open wires them, with short limits and test DNS."""
    library = Library.load([write_manifest(tmp_path / "site.json", urls)])
    policy = UrlPolicy(site_origins(library.site_urls()), AddressPolicy.from_env())
    limits = Limits(total_timeout=5.0, read_timeout=1.0)
    fetcher = Fetcher(policy.check, limits, addresses=policy.addresses, resolver=dns)
    return Tools(library, PageReader(policy, PageCache(tmp_path / "cache"), fetcher))


@asynccontextmanager
async def session(target: Tools | StdioServerParameters) -> AsyncIterator[Callable]:
    """call(name, **args) -> (ok, payload or error) through the real MCP server: in process
    for Tools, else `pinax serve` over stdio."""
    server = create_server(target, warm=False) if isinstance(target, Tools) else target
    async with Client(server) as client:

        async def call(name: str, **args) -> tuple[bool, dict]:
            result = await client.call_tool(name, args)
            if result.is_error:
                return False, json.loads(result.content[0].text)["error"]
            return True, result.structured_content

        yield call


async def still_serving(call: Callable, cached_url: str) -> None:
    """The cached page is still there, and the other tools answer."""
    ok, page = await call("get_page", url=cached_url)
    assert ok and page["cached"] is True and page["title"] == "Guide"
    ok, found = await call("search_pages", query="guide")
    assert ok and found["results"][0]["url"] == cached_url
    assert (await call("list_docs"))[0]


# The network


def closed_port(stack: ExitStack) -> str:
    with RawServer(lambda server, connection: None) as gone:
        url = gone.url("/page")
    return url


def served(handler: Callable, tls: bool = False) -> Callable[[ExitStack], str]:
    def start(stack: ExitStack) -> str:
        context = server_context() if tls else None
        return stack.enter_context(RawServer(handler, tls=context)).url("/page")

    return start


def reset_mid_body(server: RawServer, connection) -> None:
    server.send(connection, head(content_type="text/html", content_length="100000"))
    server.send(connection, b"<main><p>" + b"x" * 5000)
    reset(connection)


def answer(status: str, **headers: str) -> Callable:
    def reply(server: RawServer, connection) -> None:
        server.send(connection, head(status, content_length="0", **headers))

    return reply


def retry_in_ten_minutes(server: RawServer, connection) -> None:
    later = formatdate(time() + 600, usegmt=True)
    answer("429 Too Many Requests", retry_after=later)(server, connection)


# fault -> (start it, returning the URL that meets it; what the error message says)
NETWORK_FAULTS = {
    "connection refused": (closed_port, r"could not connect"),
    "reset mid-body": (served(reset_mid_body), r"RemoteProtocolError|ReadError|reset|closed"),
    "TLS failure": (served(answer("200 OK"), tls=True), r"CERTIFICATE_VERIFY_FAILED"),
    "429 Retry-After seconds": (
        served(answer("429 Too Many Requests", retry_after="120")),
        r"HTTP 429 Too Many Requests \(the site asks to retry after 120 s\)",
    ),
    "429 Retry-After date": (served(retry_in_ten_minutes), r"HTTP 429 .*retry after (59\d|600) s"),
    "500": (served(answer("500 Internal Server Error")), r"HTTP 500"),
    "502": (served(answer("502 Bad Gateway")), r"HTTP 502"),
    "503": (
        served(answer("503 Service Unavailable", retry_after="30")),
        r"HTTP 503 .*retry after 30 s",
    ),
    "DNS failure": (lambda stack: "http://gone.test/page", r"cannot resolve gone.test"),
    "silent server": (
        served(lambda server, connection: connection.recv(1)),
        r"timed out|no complete",
    ),
}


@pytest.mark.parametrize("fault", NETWORK_FAULTS)
async def test_network_faults_are_fetch_failures_and_nothing_else_breaks(
    tmp_path: Path, site: Site, fault: str
) -> None:
    start, message = NETWORK_FAULTS[fault]
    site.add("/guide", GUIDE)
    with ExitStack() as stack:
        broken = start(stack)
        tools = wire(tmp_path, [site.url("/guide"), broken])
        async with session(tools) as call:
            assert (await call("get_page", url=site.url("/guide")))[0]
            ok, error = await call("get_page", url=broken)
            assert not ok and error["code"] == "fetch_failed", error
            assert re.search(message, error["message"]), error["message"]
            await still_serving(call, site.url("/guide"))


# The cache on disk


def cache_rows(folder: Path) -> sqlite3.Connection:
    return sqlite3.connect(folder / FOLDER / "cache.db")


def key_of(url: str) -> bytes:
    """How the page cache stores a key (JSON, zlib-compressed)."""
    return zlib.compress(json.dumps(url).encode(), 1)


async def test_a_corrupt_entry_is_refetched_and_replaced(tmp_path: Path, site: Site) -> None:
    site.add("/guide", GUIDE)
    site.add("/more", MORE)
    tools = wire(tmp_path, [site.url("/guide"), site.url("/more")])
    async with session(tools) as call:
        assert (await call("get_page", url=site.url("/guide")))[0]
        assert (await call("get_page", url=site.url("/more")))[0]
        with cache_rows(tmp_path / "cache") as db:
            changed = db.execute(
                "UPDATE Cache SET value = ? WHERE key = ?",
                (b"\x00garbage", key_of(site.url("/more"))),
            ).rowcount
        assert changed == 1
        ok, page = await call("get_page", url=site.url("/more"))
        assert ok and page["cached"] is False and page["title"] == "More"
        assert (await call("get_page", url=site.url("/more")))[1]["cached"] is True
        await still_serving(call, site.url("/guide"))
    assert site.hits("/more") == 2 and site.hits("/guide") == 1


class Payload:
    """What an attacker with write access to the cache folder would plant."""

    def __init__(self, marker: Path) -> None:
        self.marker = marker

    def __reduce__(self):
        return (os.mkdir, (str(self.marker),))


async def test_a_planted_pickle_is_not_loaded(tmp_path: Path, site: Site) -> None:
    import diskcache

    site.add("/guide", GUIDE)
    site.add("/more", MORE)
    tools = wire(tmp_path, [site.url("/guide"), site.url("/more")])
    marker = tmp_path / "code-ran"
    async with session(tools) as call:
        assert (await call("get_page", url=site.url("/guide")))[0]
        with diskcache.Cache(str(tmp_path / "cache" / "pages")) as planter:  # pickles values
            planter.set(key_of(site.url("/more")), {"entry": Payload(marker), "stored_at": time()})
        assert pickle.loads(pickle.dumps(Payload(tmp_path / "proof"))) is None  # it would run
        assert (tmp_path / "proof").is_dir()
        ok, page = await call("get_page", url=site.url("/more"))
        assert ok and page["cached"] is False and page["title"] == "More"
        assert not marker.exists()
        await still_serving(call, site.url("/guide"))


async def test_the_cache_folder_deleted_mid_run(tmp_path: Path, site: Site) -> None:
    site.add("/guide", GUIDE)
    site.add("/more", MORE)
    tools = wire(tmp_path, [site.url("/guide"), site.url("/more")])
    async with session(tools) as call:
        assert (await call("get_page", url=site.url("/guide")))[0]
        shutil.rmtree(tmp_path / "cache")
        ok, page = await call("get_page", url=site.url("/more"))
        assert ok and page["title"] == "More"
        ok, page = await call("get_page", url=site.url("/guide"))
        assert ok and page["title"] == "Guide"
        assert (await call("search_pages", query="more"))[0]
    again = wire(tmp_path, [site.url("/guide"), site.url("/more")])
    async with session(again) as call:
        assert (await call("get_page", url=site.url("/more")))[1]["cached"] is False
        assert (await call("get_page", url=site.url("/more")))[1]["cached"] is True


# Faults of the server's own process: a subprocess, in a private mount namespace


def unshare() -> list[str]:
    """The command prefix for a private mount namespace, or skip."""
    prefix = ["unshare", "-m"] if os.geteuid() == 0 else ["unshare", "-rm"]
    if shutil.which("unshare") is None:
        pytest.skip("needs the unshare command (util-linux)")
    if subprocess.run([*prefix, "true"], capture_output=True).returncode != 0:
        pytest.skip("this system does not allow a private mount namespace")
    return prefix


def serve_in_namespace(mount: str, cache: Path, manifest: Path) -> StdioServerParameters:
    """`pinax serve` after `mount` (a shell line using $CACHE) in its own mount namespace."""
    script = f'{mount} && exec "$@"'
    pinax = [sys.executable, "-m", "pinax", "serve", "--docs", str(manifest)]
    pinax += ["--cache-dir", str(cache), "--allow-private", LOOPBACK]
    return StdioServerParameters(
        command=unshare()[0],
        args=[*unshare()[1:], "sh", "-c", script, "sh", *pinax],
        env={"PYTHONPATH": str(ROOT), "CACHE": str(cache), "PATH": os.environ["PATH"]},
    )


async def test_a_read_only_cache_folder(tmp_path: Path, site: Site) -> None:
    """A read-only filesystem under the cache: pages are served live, a page the site fails
    is a cache_error naming both failures, and the cached pages are all still there after."""
    site.add("/guide", GUIDE)
    site.add("/more", MORE)
    site.add("/down", Reply(503, b"", {}))
    urls = [site.url("/guide"), site.url("/more"), site.url("/down")]
    manifest = write_manifest(tmp_path / "site.json", urls)
    cache = tmp_path / "cache"
    read_only = 'mount --bind "$CACHE" "$CACHE" && mount -o remount,bind,ro "$CACHE"'
    seeded = Tools.open([manifest], cache, allow_private=[LOOPBACK])
    await seeded.get_page(site.url("/guide"))
    assert seeded.reader is not None and seeded.reader.cache is not None
    seeded.reader.cache.close()
    async with session(serve_in_namespace(read_only, cache, manifest)) as call:
        ok, page = await call("get_page", url=site.url("/more"))
        assert ok and page["title"] == "More" and page["cached"] is False
        ok, error = await call("get_page", url=site.url("/down"))
        assert not ok and error["code"] == "cache_error"
        assert "page cache failed" in error["message"] and "HTTP 503" in error["message"]
        ok, page = await call("get_page", url=site.url("/guide"))
        assert ok and page["title"] == "Guide"
        assert (await call("search_pages", query="guide"))[0]
    kept = PageCache(cache).get(site.url("/guide"))
    assert kept is not None and "Cached before the fault." in kept[0]["markdown"]


def big_markdown() -> bytes:
    """3 MB of words that compress poorly: too big for the small cache filesystem."""
    rng = random.Random(7)
    return ("# Big\n\n" + " ".join(f"w{rng.randrange(10**6)}" for _ in range(400_000))).encode()


async def test_a_full_cache_filesystem(tmp_path: Path, site: Site) -> None:
    """A 512 KB tmpfs as the cache: a page too big to store is served anyway, the half-written
    file is cleaned up so smaller pages are still cached, and the earlier page stays cached."""
    site.add("/guide", GUIDE)
    site.add("/big", Reply(200, big_markdown(), {"Content-Type": "text/markdown"}))
    site.add("/more", MORE)
    urls = [site.url("/guide"), site.url("/big"), site.url("/more")]
    manifest = write_manifest(tmp_path / "site.json", urls)
    cache = tmp_path / "cache"
    cache.mkdir()
    small_disk = 'mount -t tmpfs -o size=512k tmpfs "$CACHE"'
    async with session(serve_in_namespace(small_disk, cache, manifest)) as call:
        assert (await call("get_page", url=site.url("/guide")))[1]["cached"] is False
        ok, page = await call("get_page", url=site.url("/big"))
        assert ok and page["title"] == "Big" and page["cached"] is False
        assert (await call("get_page", url=site.url("/big")))[1]["cached"] is False  # not stored
        assert (await call("get_page", url=site.url("/more")))[1]["cached"] is False
        assert (await call("get_page", url=site.url("/more")))[1]["cached"] is True
        await still_serving(call, site.url("/guide"))
    assert site.hits("/guide") == 1 and site.hits("/big") == 2


async def test_a_manifest_replaced_mid_run(tmp_path: Path, site: Site) -> None:
    """The server loaded the manifest at start-up: garbage in its place, then no file at all,
    changes nothing for the running server."""
    site.add("/guide", GUIDE)
    site.add("/more", MORE)
    manifest = write_manifest(tmp_path / "site.json", [site.url("/guide"), site.url("/more")])
    params = StdioServerParameters(
        command=sys.executable,
        args=["-m", "pinax", "serve", "--docs", str(manifest), "--cache-dir", str(tmp_path / "c")],
        env={"PYTHONPATH": str(ROOT), "PINAX_ALLOW_PRIVATE": LOOPBACK},
    )
    async with session(params) as call:
        assert (await call("get_page", url=site.url("/guide")))[0]
        manifest.write_text('{"pinax_manifest": 1, "name": "site", "pages": [{"url": ')
        ok, docs = await call("list_docs")
        assert ok and docs["docs"][0]["pages"] == 2
        manifest.unlink()
        ok, page = await call("get_page", url=site.url("/more"))
        assert ok and page["title"] == "More"
        await still_serving(call, site.url("/guide"))
