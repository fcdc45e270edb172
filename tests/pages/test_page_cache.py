"""The page cache never makes get_page worse: revalidation, stale copies when the site fails,
one fetch for concurrent readers, damaged entries bypassed, processes sharing a folder."""

from __future__ import annotations

import asyncio
import json
import sqlite3
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from pinax.errors import CacheError, FetchFailed, NotFound
from pinax.pages.cache import FOLDER, PageCache
from pinax.pages.fetch import Fetcher, Limits
from pinax.tools import Tools
from tests.support.fixture_pages import fixture, html_reply, open_tools, read, write_manifest
from tests.support.http_site import Reply, Request, Site

ROOT = Path(__file__).resolve().parents[2]


@dataclass
class Origin:
    """A page whose server honours conditional requests and can be made to fail."""

    reply: Reply
    failure: Reply | None = None
    delay: float = 0.0
    statuses: list[int] = field(default_factory=list)
    conditional: list[dict[str, str]] = field(default_factory=list)

    def __call__(self, request: Request) -> Reply:
        time.sleep(self.delay)
        answer = self.failure or self.answer(request)
        self.statuses.append(answer.status)
        return answer

    def answer(self, request: Request) -> Reply:
        etag = self.reply.headers.get("ETag")
        modified = self.reply.headers.get("Last-Modified")
        asked = {
            k: v for k, v in request.headers.items() if k in ("if-none-match", "if-modified-since")
        }
        if asked:
            self.conditional.append(asked)
        if (etag and asked.get("if-none-match") == etag) or (
            modified and not etag and asked.get("if-modified-since") == modified
        ):
            return Reply(304, b"", {"ETag": etag} if etag else {})
        return self.reply


def mdbook_origin(**headers: str) -> Origin:
    meta, folder = fixture("mdbook/cli-build")
    reply = html_reply(folder, meta)
    return Origin(Reply(200, reply.body, {**reply.headers, **headers}))


@pytest.mark.parametrize(
    "validator",
    [{"ETag": '"abc123"'}, {"Last-Modified": "Tue, 03 Mar 2026 10:00:00 GMT"}],
    ids=["etag", "last-modified"],
)
def test_an_expired_copy_is_revalidated_without_a_download(
    tmp_path: Path, site: Site, validator: dict[str, str]
) -> None:
    origin = mdbook_origin(**validator)
    url = site.add("/build.html", origin)
    tools = open_tools(tmp_path, site, ["/build.html"], ttl=0)
    first = read(tools, url)
    time.sleep(1.1)  # fetched_at has a resolution of one second
    second = read(tools, url)
    assert (first["cache"], second["cache"]) == ("miss", "revalidated")
    assert second["cached"] is True and second["stale"] is False
    assert origin.statuses == [200, 304]
    header = "if-none-match" if "ETag" in validator else "if-modified-since"
    assert origin.conditional == [{header: next(iter(validator.values()))}]
    assert second["markdown"] == first["markdown"]
    assert second["content_hash"] == first["content_hash"]
    assert second["fetched_at"] > first["fetched_at"]


def test_a_changed_page_is_downloaded_again(tmp_path: Path, site: Site) -> None:
    origin = mdbook_origin(ETag='"v1"')
    url = site.add("/build.html", origin)
    tools = open_tools(tmp_path, site, ["/build.html"], ttl=0)
    first = read(tools, url)
    origin.reply = Reply(200, origin.reply.body.replace(b"mdbook", b"mdbook2"), {"ETag": '"v2"'})
    second = read(tools, url)
    assert second["cache"] == "miss" and second["content_hash"] != first["content_hash"]
    assert origin.statuses == [200, 200] and "mdbook2 build" in second["markdown"]


def test_a_fresh_copy_is_a_hit_and_ttls_can_be_set_per_manifest(tmp_path: Path, site: Site) -> None:
    origin = mdbook_origin(ETag='"v1"')
    url = site.add("/build.html", origin)
    fresh = open_tools(tmp_path, site, ["/build.html"], ttl=3600)
    assert [read(fresh, url)["cache"] for _ in range(2)] == ["miss", "hit"]
    expiring = open_tools(tmp_path, site, ["/build.html"], ttl=3600, manifest_fields={"ttl": 0})
    assert read(expiring, url)["cache"] == "revalidated"
    assert origin.statuses == [200, 304]
    # On the command line, --ttl NAME=SECONDS beats the manifest's ttl and the global --ttl.
    manifest = str(write_manifest(tmp_path, site, ["/build.html"], ttl=0))
    common = ["page", url, "--docs", manifest, "--cache-dir", str(tmp_path / "cache"), "--json"]
    kept = json.loads(finish(pinax(*common, "--ttl", "0", "--ttl", "site=1h")))
    assert kept["cache"] == "hit"
    assert json.loads(finish(pinax(*common, "--ttl", "site=0")))["cache"] == "revalidated"


def test_a_ttl_can_be_set_per_version(tmp_path: Path, site: Site) -> None:
    """`name@version=SECONDS` sets one version's TTL, `name=SECONDS` every other version's;
    a version that is not loaded is refused, naming those that are."""
    origins = {v: mdbook_origin(ETag=f'"{v}"') for v in ("1.0", "2.0")}
    urls = {v: site.add(f"/{v}/build.html", origins[v]) for v in origins}
    manifests = []
    for version in origins:
        folder = tmp_path / version
        folder.mkdir()
        page = f"/{version}/build.html"
        manifests.append(write_manifest(folder, site, [page], version=version, ttl=3600))
    cache = tmp_path / "cache"
    tools = Tools.open(manifests, cache_dir=cache, ttls={"site@1": 3600, "site": 0})
    assert [read(tools, urls["1.0"])["cache"] for _ in range(2)] == ["miss", "hit"]
    assert [read(tools, urls["2.0"])["cache"] for _ in range(2)] == ["miss", "revalidated"]
    assert tools.ttls == {"site@1.0": 3600, "site": 0}  # keyed by the identity it names
    with pytest.raises(NotFound, match=r"no docs for site 3\.0; loaded: 1\.0, 2\.0"):
        Tools.open(manifests, cache_dir=cache, ttls={"site@3.0": 60})
    # On the command line too, beside a global --ttl.
    common = ["page", urls["2.0"], "--cache-dir", str(cache), "--json"]
    common += [a for m in manifests for a in ("--docs", str(m))]
    kept = json.loads(finish(pinax(*common, "--ttl", "0", "--ttl", "site@2.0=1h")))
    assert kept["cache"] == "hit"
    refused = pinax(*common, "--ttl", "site@3=1h")
    _, err = refused.communicate(timeout=60)
    assert refused.returncode == 2
    assert "no docs for site 3; loaded: 1.0, 2.0" in err


FAILURES = {
    "server-error": Reply(503, b"down for maintenance", {"Content-Type": "text/plain"}),
    "rate-limited": Reply(429, b"slow down", {"Retry-After": "60"}),
}


@pytest.mark.parametrize("failure", ["server-error", "rate-limited", "timeout", "refused"])
def test_a_failing_site_gets_the_stale_copy_with_its_age(tmp_path: Path, failure: str) -> None:
    origin = mdbook_origin()
    with Site() as site:
        url = site.add("/build.html", origin)
        tools = open_tools(tmp_path, site, ["/build.html"], ttl=0)
        fresh = read(tools, url)
        assert tools.reader is not None
        tools.reader.fetcher = Fetcher(tools.reader.policy.check, Limits(total_timeout=0.5))
        if failure in FAILURES:
            origin.failure = FAILURES[failure]
        elif failure == "timeout":
            origin.delay = 1.0
        if failure != "refused":
            time.sleep(1.0)
            stale = read(tools, url)
    if failure == "refused":
        time.sleep(1.0)
        stale = read(tools, url)
    assert (stale["cache"], stale["stale"], stale["cached"]) == ("stale", True, True)
    assert stale["age"] >= 1 and stale["fetched_at"] == fresh["fetched_at"]
    assert stale["markdown"] == fresh["markdown"]
    expected = {
        "server-error": "HTTP 503",
        "rate-limited": "HTTP 429",
        "timeout": "no complete answer|timed out",
        "refused": "could not connect",
    }[failure]
    assert any(word in stale["stale_reason"] for word in expected.split("|"))


def test_a_page_the_site_removed_is_not_served_stale(tmp_path: Path, site: Site) -> None:
    origin = mdbook_origin()
    url = site.add("/build.html", origin)
    tools = open_tools(tmp_path, site, ["/build.html"], ttl=0)
    read(tools, url)
    origin.failure = Reply(404, b"gone", {"Content-Type": "text/plain"})
    with pytest.raises(FetchFailed, match="HTTP 404"):
        read(tools, url)


def test_a_page_that_now_redirects_off_site_is_not_served_stale(tmp_path: Path, site: Site) -> None:
    origin = mdbook_origin()
    url = site.add("/build.html", origin)
    tools = open_tools(tmp_path, site, ["/build.html"], ttl=0)
    read(tools, url)
    origin.failure = Reply(301, b"", {"Location": "https://elsewhere.example/build.html"})
    with pytest.raises(FetchFailed, match=r"redirects to .* refused"):
        read(tools, url)


def test_concurrent_readers_share_one_fetch(tmp_path: Path, site: Site) -> None:
    origin = mdbook_origin()
    origin.delay = 0.3
    url = site.add("/build.html", origin)
    tools = open_tools(tmp_path, site, ["/build.html"])

    async def many() -> list[dict]:
        return await asyncio.gather(*(tools.get_page(url) for _ in range(8)))

    results = asyncio.run(many())
    assert site.hits("/build.html") == 1
    assert len({r["content_hash"] for r in results}) == 1 and results[0]["markdown"]
    assert read(tools, url)["cache"] == "hit"


def cache_db(tmp_path: Path) -> Path:
    return tmp_path / "cache" / FOLDER / "cache.db"


@pytest.mark.parametrize("damage", ["inline-value", "value-file"])
def test_a_damaged_entry_is_dropped_and_fetched_again(
    tmp_path: Path, site: Site, damage: str
) -> None:
    big = damage == "value-file"  # large values live in files beside the database
    meta, folder = fixture("mkdocs-material/changelog" if big else "mdbook/cli-build")
    url = site.add("/page.html", html_reply(folder, meta))
    tools = open_tools(tmp_path, site, ["/page.html"])
    first = read(tools, url)
    with sqlite3.connect(cache_db(tmp_path)) as db:
        (filename,) = db.execute("SELECT filename FROM Cache").fetchone()
        if damage == "inline-value":
            assert filename is None
            db.execute("UPDATE Cache SET value = ?", (b"\x00not zlib",))
    if big:
        assert filename is not None
        (cache_db(tmp_path).parent / filename).write_bytes(b"garbage")
    again = read(tools, url)
    assert again["cache"] == "miss" and again["markdown"] == first["markdown"]
    assert read(tools, url)["cache"] == "hit" and site.hits("/page.html") == 2


def test_an_unusable_cache_folder_is_bypassed_unless_nothing_else_works(
    tmp_path: Path, site: Site
) -> None:
    url = site.add("/page.html", mdbook_origin())
    tools = open_tools(tmp_path, site, ["/page.html", "/gone.html"])
    read(tools, url)
    assert tools.reader is not None and tools.reader.cache is not None
    tools.reader.cache.close()
    cache_db(tmp_path).write_bytes(b"this is not an SQLite database" * 100)
    page = read(tools, url)
    assert page["cache"] == "miss" and page["markdown"]
    with pytest.raises(CacheError, match=r"the page cache failed .* and so did the live fetch"):
        read(tools, site.url("/gone.html"))


def pinax(*args: str) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-m", "pinax", *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        cwd=ROOT,
    )


def finish(process: subprocess.Popen[str]) -> str:
    out, err = process.communicate(timeout=60)
    assert process.returncode == 0, err
    return out


def test_two_processes_share_one_cache_folder(tmp_path: Path, site: Site) -> None:
    meta, folder = fixture("sphinx/requests-quickstart")
    origin = Origin(html_reply(folder, meta), delay=0.2)
    url = site.add("/quickstart.html", origin)
    manifest = write_manifest(tmp_path, site, ["/quickstart.html"])
    common = ["page", url, "--docs", str(manifest), "--cache-dir", str(tmp_path / "cache")]
    running = [pinax(*common, "--json") for _ in range(2)]
    results = [json.loads(finish(p)) for p in running]
    assert results[0]["content_hash"] == results[1]["content_hash"]
    assert results[0]["markdown"] == results[1]["markdown"]
    after = json.loads(finish(pinax(*common, "--json")))
    assert after["cache"] == "hit" and after["content_hash"] == results[0]["content_hash"]
    assert origin.statuses in ([200], [200, 200])
    stats = PageCache(tmp_path / "cache").stats()
    assert (stats["entries"], stats["damaged"]) == (1, 0)


def test_cache_stats_and_clear_older_than(tmp_path: Path, site: Site) -> None:
    old = site.add("/old.html", mdbook_origin())
    new = site.add("/new.html", mdbook_origin())
    tools = open_tools(tmp_path, site, ["/old.html", "/new.html"])
    assert tools.reader is not None and tools.reader.cache is not None
    read(tools, old)
    read(tools, new)
    # The old entry stored an hour earlier (as a copy from the shared cache keeps its age).
    key = tools.reader._key(old)
    entry, _ = tools.reader.cache.get(key)
    tools.reader.cache.put(key, entry, age=3600)
    cache = ["--cache-dir", str(tmp_path / "cache")]
    stats = json.loads(finish(pinax("cache", "stats", *cache, "--json")))
    assert (stats["entries"], stats["damaged"]) == (2, 0)
    assert stats["oldest_age"] > stats["newest_age"] >= 0
    # The cut is taken from the ages as they are now, halfway between them.
    now = tools.reader.cache.stats()
    cut = (now["oldest_age"] + now["newest_age"]) / 2
    assert tools.reader.cache.clear(older_than=cut) == 1
    assert [read(tools, u)["cache"] for u in (old, new)] == ["miss", "hit"]
    assert finish(pinax("cache", "clear", *cache, "--older-than", "1h")) == (
        "removed 0 cached pages, 0 search indexes and 0 built manifests\n"
    )
    assert finish(pinax("cache", "clear", *cache)).startswith("removed 2 cached pages, ")
    text = finish(pinax("cache", "stats", *cache))
    assert "pages: 0 cached pages, 0 bytes\n" in text
    bad = subprocess.run(
        [sys.executable, "-m", "pinax", "cache", "clear", *cache, "--older-than", "soon"],
        capture_output=True,
        text=True,
        cwd=ROOT,
    )
    assert bad.returncode == 2 and "not a duration" in bad.stderr
