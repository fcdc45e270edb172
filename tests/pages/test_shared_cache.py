"""The shared page cache (issue 39, section 3): a real redis-server and a real loopback site.

Each "replica" is a `Tools` with its own disk cache folder (or a process of its own), all
pointed at one Redis: what one fetched the others serve without asking the site; a cold page
asked by 50 at once reaches the site once; a Redis that stops, fills up or holds hostile values
makes the reads slower, never wrong or failing; pages read with different headers never meet.
"""

from __future__ import annotations

import json
import subprocess
import sys
import threading
import time
import zlib
from pathlib import Path

import anyio
import pytest

from pinax.errors import InvalidArgs
from pinax.pages import Credentials, SharedCache
from pinax.pages import cache_shared as shared_module
from pinax.pages.cache_shared import MAX_VALUE_BYTES, value_key
from pinax.tools import Tools
from tests.pages.conftest import RedisServer
from tests.support.http_site import Reply, Request, Site
from tests.support.serving import ROOT, server_env

MARKDOWN = "# Shared page\n\nWords every replica should serve alike.\n"


def markdown(text: str = MARKDOWN, delay: float = 0.0):
    """A route answering Markdown, after `delay` seconds (a slow site keeps a fetch open)."""

    def answer(request: Request) -> Reply:
        time.sleep(delay)
        return Reply(200, text.encode(), {"Content-Type": "text/markdown; charset=utf-8"})

    return answer


def manifest_of(folder: Path, site: Site, paths: list[str]) -> Path:
    pages = [{"url": site.url(path), "title": path} for path in paths]
    path = folder / "site.json"
    data = {"pinax_manifest": 1, "name": "site", "url": site.url("/"), "pages": pages}
    path.write_text(json.dumps(data))
    return path


def replica(tmp_path: Path, name: str, manifest: Path, redis_url: str, **more: object) -> Tools:
    """A Pinax with a disk cache of its own and the shared cache at `redis_url`."""
    return Tools.open([manifest], tmp_path / name, cache_redis=redis_url, **more)  # type: ignore[arg-type]


def read(tools: Tools, url: str) -> dict:
    return anyio.run(tools.get_page, url)


def test_a_page_one_replica_fetched_is_served_by_another(
    tmp_path: Path, site: Site, redis_server: RedisServer
) -> None:
    url = site.add("/guide", markdown())
    manifest = manifest_of(tmp_path, site, ["/guide"])
    first = read(replica(tmp_path, "a", manifest, redis_server.url), url)
    assert (first["cache"], site.hits("/guide")) == ("miss", 1)
    second_replica = replica(tmp_path, "b", manifest, redis_server.url)
    second = read(second_replica, url)
    assert second["cache"] == "hit" and site.hits("/guide") == 1
    assert (
        second["markdown"] == first["markdown"] and second["content_hash"] == first["content_hash"]
    )
    # and it is now on the second replica's disk: served with Redis emptied
    redis_server.client().flushall()
    assert read(second_replica, url)["cache"] == "hit" and site.hits("/guide") == 1


def test_the_shared_copy_expires_with_the_page_ttl(
    tmp_path: Path, site: Site, redis_server: RedisServer
) -> None:
    url = site.add("/guide", markdown())
    manifest = manifest_of(tmp_path, site, ["/guide"])
    read(replica(tmp_path, "a", manifest, redis_server.url, ttl=60), url)
    ttl_ms = redis_server.client().pttl(value_key(url))
    assert 50_000 < ttl_ms <= 60_000


# The lookup of the page's TTL in Redis is by its disk key: the URL, in a credentials namespace.
def test_pages_read_with_different_headers_are_never_shared(
    tmp_path: Path, site: Site, redis_server: RedisServer
) -> None:
    def guarded(request: Request) -> Reply:
        token = request.headers.get("authorization", "")
        return Reply(
            200, f"# For {token or 'anyone'}\n".encode(), {"Content-Type": "text/markdown"}
        )

    url = site.add("/private", guarded)
    manifest = manifest_of(tmp_path, site, ["/private"])

    def login(token: str) -> Credentials:
        return Credentials.parse([f"{site.origin}=Authorization: Bearer {token}"])

    alice = read(replica(tmp_path, "a", manifest, redis_server.url, credentials=login("A")), url)
    bob = read(replica(tmp_path, "b", manifest, redis_server.url, credentials=login("B")), url)
    nobody = read(replica(tmp_path, "c", manifest, redis_server.url), url)
    assert [alice["cache"], bob["cache"], nobody["cache"]] == ["miss"] * 3
    assert "Bearer A" in alice["markdown"] and "Bearer B" in bob["markdown"]
    assert "anyone" in nobody["markdown"] and site.hits("/private") == 3
    # a second replica holding Alice's headers does share her copy
    again = read(replica(tmp_path, "d", manifest, redis_server.url, credentials=login("A")), url)
    assert again["cache"] == "hit" and "Bearer A" in again["markdown"]
    assert site.hits("/private") == 3
    stored = redis_server.client().keys("pinax:page:v1:*")
    assert len(stored) == 3 and not any(b"Bearer" in key for key in stored)


def test_fifty_replicas_asking_a_cold_page_at_once_fetch_it_once(
    tmp_path: Path, site: Site, redis_server: RedisServer
) -> None:
    url = site.add("/cold", markdown(delay=0.3))
    manifest = manifest_of(tmp_path, site, ["/cold"])
    # 50 readers, each a replica with its own disk cache and its own in-process flights, so
    # nothing but the lock in Redis keeps them from all fetching.
    redis_url = redis_server.url
    replicas = [replica(tmp_path, f"r{i}", manifest, redis_url) for i in range(50)]
    results: list[dict] = []

    async def ask(tools: Tools) -> None:
        results.append(await tools.get_page(url))

    async def all_at_once() -> None:
        async with anyio.create_task_group() as group:
            for tools in replicas:
                group.start_soon(ask, tools)

    anyio.run(all_at_once)
    assert site.hits("/cold") == 1
    assert len(results) == 50 and {r["markdown"] for r in results} == {MARKDOWN}
    assert sorted(r["cache"] for r in results) == ["hit"] * 49 + ["miss"]


# Three processes, each with 17 concurrent asks on replicas of its own.
STAMPEDE = """
import json, sys, time
from pathlib import Path
import anyio
from pinax.tools import Tools

manifest, redis_url, go, url, folder = sys.argv[1:6]
replicas = [
    Tools.open([Path(manifest)], Path(folder) / str(i), cache_redis=redis_url) for i in range(17)
]
for tools in replicas:
    tools.warm_pages()
print("ready", flush=True)
while not Path(go).exists():
    time.sleep(0.005)

async def main():
    found = []
    async def ask(tools):
        found.append(await tools.get_page(url))
    async with anyio.create_task_group() as group:
        for tools in replicas:
            group.start_soon(ask, tools)
    return found

print(json.dumps([r["cache"] for r in anyio.run(main)]), flush=True)
"""


def test_three_processes_stampeding_a_cold_page_fetch_it_once(
    tmp_path: Path, site: Site, redis_server: RedisServer
) -> None:
    url = site.add("/cold", markdown(delay=0.3))
    manifest = manifest_of(tmp_path, site, ["/cold"])
    go = tmp_path / "go"
    argv = [sys.executable, "-c", STAMPEDE, str(manifest), redis_server.url, str(go), url]
    processes = [
        subprocess.Popen(
            [*argv, str(tmp_path / f"p{n}")],
            stdout=subprocess.PIPE,
            text=True,
            cwd=ROOT,
            env=server_env(),
        )
        for n in range(3)
    ]
    for process in processes:
        assert process.stdout is not None and process.stdout.readline().strip() == "ready"
    go.touch()
    states = []
    for process in processes:
        out, _ = process.communicate(timeout=120)
        assert process.returncode == 0
        states += json.loads(out)
    assert len(states) == 51 and states.count("miss") == 1
    assert site.hits("/cold") == 1


def test_a_redis_stopped_under_load_slows_reads_and_is_found_again(
    tmp_path: Path, site: Site, redis_server: RedisServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(shared_module, "RETRY_AFTER", 0.2)
    paths = [f"/p{i}" for i in range(40)]
    for path in paths:
        site.add(path, markdown(f"# Page {path}\n\nIts words.\n"))
    manifest = manifest_of(tmp_path, site, paths)
    one = replica(tmp_path, "a", manifest, redis_server.url)
    other = replica(tmp_path, "b", manifest, redis_server.url)
    answered: list[dict] = []
    failures: list[BaseException] = []
    stop = threading.Event()

    def load(tools: Tools) -> None:
        n = 0
        while not stop.is_set():
            try:
                answered.append(read(tools, site.url(paths[n % len(paths)])))
            except BaseException as exc:  # any failure is the test's failure
                failures.append(exc)
            n += 1

    workers = [threading.Thread(target=load, args=(tools,)) for tools in (one, other)]
    for worker in workers:
        worker.start()
    try:
        time.sleep(0.5)
        redis_server.stop()
        during = len(answered)
        time.sleep(1.0)
        answered_while_down = len(answered) - during
        redis_server.start()  # empty, same port
        time.sleep(0.5)
    finally:
        stop.set()
        for worker in workers:
            worker.join(30)
    assert not failures, failures[:3]
    assert answered_while_down > 0
    assert all(a["markdown"].startswith("# Page /p") for a in answered)
    # shared again, by the same replicas (no restart): a page new to both, fetched once
    time.sleep(0.3)  # past RETRY_AFTER since the load's last call
    late = site.add("/late", markdown("# Late\n"))
    assert read(one, late)["cache"] == "miss"
    assert read(other, late)["cache"] == "hit" and site.hits("/late") == 1


def test_a_slow_redis_costs_a_timeout_not_an_answer(
    tmp_path: Path, site: Site, redis_server: RedisServer
) -> None:
    import signal

    url = site.add("/guide", markdown())
    manifest = manifest_of(tmp_path, site, ["/guide"])
    tools = replica(tmp_path, "a", manifest, redis_server.bare_url)
    assert redis_server.process is not None
    redis_server.process.send_signal(signal.SIGSTOP)  # accepts connections, answers nothing
    try:
        started = time.monotonic()
        page = read(tools, url)
        took = time.monotonic() - started
    finally:
        redis_server.process.send_signal(signal.SIGCONT)
    assert page["cache"] == "miss" and page["markdown"] == MARKDOWN
    assert took < 10  # a generous ceiling: it must not wait for the fetch deadline (30 s)


def test_a_full_redis_still_answers(tmp_path: Path, site: Site, redis_server: RedisServer) -> None:
    url = site.add("/guide", markdown())
    manifest = manifest_of(tmp_path, site, ["/guide"])
    client = redis_server.client()
    client.config_set("maxmemory-policy", "noeviction")
    client.config_set("maxmemory", "1")  # a byte: every write is refused (OOM)
    with pytest.raises(Exception, match="maxmemory"):
        client.set("probe", "x")
    assert read(replica(tmp_path, "a", manifest, redis_server.url), url)["cache"] == "miss"
    assert read(replica(tmp_path, "b", manifest, redis_server.url), url)["cache"] == "miss"
    assert site.hits("/guide") == 2 and client.dbsize() == 0


def hostile_values(url: str) -> dict[str, bytes]:
    """Values planted under a page's key, none of which may be served."""

    def pack(stored: object) -> bytes:
        return zlib.compress(json.dumps(stored).encode())

    good = {
        "url": url,
        "title": "t",
        "source": "negotiated",
        "source_url": url,
        "fetched_at": "2026-01-01T00:00:00+00:00",
        "content_hash": "sha256:" + "0" * 64,  # not its Markdown's
        "markdown": "# Planted\n",
        "validators": {"etag": None, "last_modified": None},
    }
    import hashlib

    sound = {**good, "content_hash": "sha256:" + hashlib.sha256(b"# Planted\n").hexdigest()}
    return {
        "garbage": b"\x00\xffnot zlib at all",
        "plain json": json.dumps({"key": url, "entry": sound, "ttl": 60}).encode(),
        "pickle": b"\x80\x04\x95" + b"cos\nsystem\n" * 4,
        "huge": b"x" * (MAX_VALUE_BYTES + 10),
        "bomb": zlib.compress(b" " * (80 << 20), 9),
        "nested": zlib.compress(b"[" * 200_000 + b"]" * 200_000),
        "wrong types": pack({"key": url, "entry": {**sound, "markdown": 5}, "ttl": 60}),
        "wrong ttl": pack({"key": url, "entry": sound, "ttl": "60"}),
        "extra field": pack({"key": url, "entry": {**sound, "evil": 1}, "ttl": 60}),
        "bad hash": pack({"key": url, "entry": good, "ttl": 60}),
        "other key": pack({"key": url + "x", "entry": sound, "ttl": 60}),
        "other page": pack({"key": url, "entry": {**sound, "url": url + "x"}, "ttl": 60}),
        "list": pack([url, sound, 60]),
        "surrogate": zlib.compress(
            json.dumps({"key": url, "entry": {**sound, "markdown": "\ud800"}, "ttl": 60}).encode()
        ),
    }


def test_hostile_values_in_redis_are_ignored_and_the_page_read_again(
    tmp_path: Path, site: Site, redis_server: RedisServer
) -> None:
    url = site.add("/guide", markdown())
    manifest = manifest_of(tmp_path, site, ["/guide"])
    client = redis_server.client()
    for n, (what, value) in enumerate(hostile_values(url).items(), 1):
        client.set(value_key(url), value, px=60_000)
        page = read(replica(tmp_path, f"r{n}", manifest, redis_server.url), url)
        assert page["cache"] == "miss", what
        assert page["markdown"] == MARKDOWN, what
        assert site.hits("/guide") == n, what
    # the sound page the last read stored replaced the planted one, and is served
    assert read(replica(tmp_path, "last", manifest, redis_server.url), url)["cache"] == "hit"


def test_a_planted_sound_value_is_served_as_it_is_a_page(
    tmp_path: Path, site: Site, redis_server: RedisServer
) -> None:
    """The control for the test above: a value written as Pinax writes it is served (so the
    hostile ones were refused for what they are, not because nothing is ever read)."""
    url = site.add("/guide", markdown())
    manifest = manifest_of(tmp_path, site, ["/guide"])
    read(replica(tmp_path, "a", manifest, redis_server.url), url)
    client = redis_server.client()
    stored = client.get(value_key(url))
    text = json.loads(zlib.decompress(stored))
    assert set(text) == {"key", "entry", "ttl"} and text["key"] == url
    assert read(replica(tmp_path, "b", manifest, redis_server.url), url)["cache"] == "hit"


def test_the_lock_is_released_only_by_its_holder(redis_server: RedisServer) -> None:
    cache = SharedCache(redis_server.url)
    first = cache.claim("k", hold=0.05)
    assert first.token and cache.claim("k", hold=5).elsewhere
    time.sleep(0.1)  # the first holder's lock expired; another takes it
    second = cache.claim("k", hold=5)
    assert second.token
    cache.release("k", first)  # late: must not free the second holder's lock
    assert cache.claim("k", hold=5).elsewhere
    cache.release("k", second)
    assert cache.claim("k", hold=5).token


def test_bad_urls_and_a_missing_client_are_clear_errors(monkeypatch: pytest.MonkeyPatch) -> None:
    with pytest.raises(InvalidArgs, match="not a Redis URL") as caught:
        SharedCache("http://user:hunter2@cache:6379")
    assert "hunter2" not in caught.value.message
    assert SharedCache("redis://user:hunter2@cache:6379/0").where == "redis://cache:6379"
    monkeypatch.setitem(sys.modules, "redis", None)  # as where the `team` extra is not installed
    with pytest.raises(InvalidArgs, match=r"pinax\[team\]"):
        SharedCache("redis://127.0.0.1:1/0")


def test_the_cli_takes_the_option_and_a_core_install_never_imports_redis(
    tmp_path: Path, site: Site, redis_server: RedisServer
) -> None:
    url = site.add("/guide", markdown())
    manifest = manifest_of(tmp_path, site, ["/guide"])
    command = [sys.executable, "-m", "pinax", "page", url, "--docs", str(manifest), "--json"]

    def page(folder: str, **env: str) -> dict:
        done = subprocess.run(
            [*command, "--cache-dir", str(tmp_path / folder)],
            capture_output=True, text=True, cwd=ROOT, env=server_env(env), timeout=120,
        )  # fmt: skip
        assert done.returncode == 0, done.stderr
        return json.loads(done.stdout)

    assert page("a", PINAX_CACHE_REDIS=redis_server.url)["cache"] == "miss"
    assert page("b", PINAX_CACHE_REDIS=redis_server.url)["cache"] == "hit"
    assert site.hits("/guide") == 1
    probe = (
        "import sys, anyio; from pathlib import Path; from pinax.tools import Tools; "
        f"t = Tools.open([Path({str(manifest)!r})], Path({str(tmp_path / 'c')!r})); "
        f"anyio.run(t.get_page, {url!r}); print('redis' in sys.modules)"
    )
    done = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, cwd=ROOT, env=server_env()
    )
    assert done.stdout.strip() == "False", done.stderr


def short_deadline(tools: Tools, seconds: float) -> Tools:
    """`tools` whose fetches (and so their waits for another process's fetch) end sooner."""
    from pinax.pages import Fetcher, Limits

    assert tools.reader is not None
    policy = tools.reader.policy
    tools.reader.fetcher = Fetcher(
        policy.check, Limits(total_timeout=seconds), addresses=policy.addresses
    )
    return tools


def test_a_lock_held_past_the_deadline_serves_the_stale_copy_or_fetches_here(
    tmp_path: Path, site: Site, redis_server: RedisServer
) -> None:
    url = site.add("/guide", markdown())
    manifest = manifest_of(tmp_path, site, ["/guide"])
    holder = short_deadline(replica(tmp_path, "a", manifest, redis_server.url, ttl=1), 1.0)
    assert read(holder, url)["cache"] == "miss"
    time.sleep(1.2)  # expired on disk and gone from Redis
    # a process that took the lock and never finishes (it hung, or is fetching a slow site)
    redis_server.client().set(shared_module.lock_key(url), "someone else", px=60_000)
    stale = read(holder, url)
    assert stale["cache"] == "stale" and "another process" in stale["stale_reason"]
    assert site.hits("/guide") == 1
    newcomer = short_deadline(replica(tmp_path, "b", manifest, redis_server.url, ttl=1), 1.0)
    assert read(newcomer, url)["cache"] == "miss" and site.hits("/guide") == 2


def test_a_down_redis_is_warned_about_once_a_minute_and_its_return_said(
    tmp_path: Path,
    site: Site,
    redis_server: RedisServer,
    monkeypatch: pytest.MonkeyPatch,
    caplog: pytest.LogCaptureFixture,
) -> None:
    monkeypatch.setattr(shared_module, "RETRY_AFTER", 0.0)  # ask Redis on every call
    paths = [f"/p{i}" for i in range(20)]
    for path in paths:
        site.add(path, markdown())
    manifest = manifest_of(tmp_path, site, paths)
    tools = replica(tmp_path, "a", manifest, redis_server.url)
    redis_server.stop()
    with caplog.at_level("WARNING", logger="pinax.pages"):
        for path in paths:
            assert read(tools, site.url(path))["cache"] == "miss"
        redis_server.start()
        late = site.add("/late", markdown())
        read(tools, late)
    said = [r.getMessage() for r in caplog.records if "shared page cache" in r.getMessage()]
    assert len(said) == 2, said
    assert "failed" in said[0] and "once a minute" in said[0] and "answers again" in said[1]
    assert redis_server.client().exists(value_key(late))


def test_a_key_of_another_redis_type_is_ignored_and_replaced(
    tmp_path: Path, site: Site, redis_server: RedisServer
) -> None:
    url = site.add("/guide", markdown())
    manifest = manifest_of(tmp_path, site, ["/guide"])
    client = redis_server.client()
    client.rpush(value_key(url), "not", "a", "string")
    assert read(replica(tmp_path, "a", manifest, redis_server.url), url)["cache"] == "miss"
    assert read(replica(tmp_path, "b", manifest, redis_server.url), url)["cache"] == "hit"
    assert site.hits("/guide") == 1


def test_a_fetch_longer_than_the_lock_keeps_it_and_a_dead_holders_lock_expires(
    tmp_path: Path, site: Site, redis_server: RedisServer
) -> None:
    url = site.add("/slow", markdown(delay=2.5))
    manifest = manifest_of(tmp_path, site, ["/slow"])
    first = replica(tmp_path, "a", manifest, redis_server.url)
    second = replica(tmp_path, "b", manifest, redis_server.url)
    assert first.reader is not None and first.reader.shared is not None
    # renewed every third of it: a loaded machine may be late by two thirds (0.6 s here)
    first.reader.shared.hold = 1.0  # (one client per URL: the second's too)
    results: list[dict] = []

    async def both() -> None:
        async def ask(tools: Tools, after: float) -> None:
            await anyio.sleep(after)
            results.append(await tools.get_page(url))

        async with anyio.create_task_group() as group:
            group.start_soon(ask, first, 0)
            group.start_soon(ask, second, 0.1)

    anyio.run(both)  # the fetch outlasts the lock's life: renewed, never lost
    assert site.hits("/slow") == 1 and sorted(r["cache"] for r in results) == ["hit", "miss"]
    # a holder that died: its lock (never renewed) expires, and the next asker fetches
    site.add("/other", markdown())
    SharedCache(redis_server.url).claim(site.url("/other"), hold=0.3)
    started = time.monotonic()
    assert read(second, site.url("/other"))["cache"] == "miss"
    assert time.monotonic() - started < 10 and site.hits("/other") == 1


@pytest.mark.anyio
async def test_two_stdio_servers_share_what_one_fetched(
    tmp_path: Path, site: Site, redis_server: RedisServer
) -> None:
    from mcp import Client

    from tests.support.serving import stdio_params

    url = site.add("/guide", markdown())
    manifest = manifest_of(tmp_path, site, ["/guide"])
    states = []
    for name in ("a", "b"):
        params = stdio_params(
            "--docs", str(manifest), "--cache-dir", str(tmp_path / name),
            "--cache-redis", redis_server.url,
        )  # fmt: skip
        async with Client(params) as client:
            with anyio.fail_after(60):
                answer = await client.call_tool("get_page", {"url": url})
        assert not answer.is_error, answer.content
        states.append(answer.structured_content["cache"])
    assert states == ["miss", "hit"] and site.hits("/guide") == 1


def test_the_cli_refuses_a_url_that_is_not_redis(tmp_path: Path, site: Site) -> None:
    url = site.add("/guide", markdown())
    manifest = manifest_of(tmp_path, site, ["/guide"])
    done = subprocess.run(
        [sys.executable, "-m", "pinax", "page", url, "--docs", str(manifest),
         "--cache-redis", "http://user:hunter2@cache:6379"],
        capture_output=True, text=True, cwd=ROOT, env=server_env(), timeout=120,
    )  # fmt: skip
    assert done.returncode == 2 and "not a Redis URL" in done.stderr
    assert "hunter2" not in done.stderr and "Traceback" not in done.stderr
    assert site.hits("/guide") == 0


def test_a_server_says_at_start_up_that_redis_does_not_answer(
    tmp_path: Path, site: Site, caplog: pytest.LogCaptureFixture
) -> None:
    from tests.pages.conftest import free_port

    site.add("/guide", markdown())
    manifest = manifest_of(tmp_path, site, ["/guide"])
    tools = replica(tmp_path, "a", manifest, f"redis://127.0.0.1:{free_port()}/0")
    with caplog.at_level("WARNING", logger="pinax.pages"):
        tools.warm_pages()  # what a server does at start-up, on a background thread
        assert read(tools, site.url("/guide"))["cache"] == "miss"
    said = [r.getMessage() for r in caplog.records if "shared page cache" in r.getMessage()]
    assert len(said) == 1 and "does not answer" in said[0]
