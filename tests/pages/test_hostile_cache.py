"""A tampered cache folder (issue 19, item 8): everything in it is untrusted input.

The cache database names each big value's file; a planted row makes that name lead outside
the folder (`../`, an absolute path, a symlink) or at a FIFO, a directory or a huge file. The
entry must be refused and dropped (a `cache_error`, the page read live), nothing outside the
folder deleted, and no call may hang: through `Tools` and a real `pinax serve` over stdio.
"""

from __future__ import annotations

import os
import random
import sqlite3
import string
import subprocess
import sys
import threading
from pathlib import Path

import anyio
import pytest
from mcp import Client

from pinax.pages.cache import FOLDER
from tests.pages.test_limits import html, open_tools, read
from tests.support.http_site import Site
from tests.support.serving import ROOT, server_env, stdio_params
from tests.support.work import HANG


def big_page() -> str:
    """A page whose cached value is bigger than diskcache keeps in the database (a file)."""
    words = random.Random(7).choices(string.ascii_lowercase, k=200_000)
    return (
        "<main><h1>Big</h1><p>"
        + " ".join("".join(words[i : i + 7]) for i in range(0, len(words), 7))
        + "</p></main>"
    )


def cache_db(cache: Path) -> Path:
    return cache / FOLDER / "cache.db"


def value_file(cache: Path) -> Path:
    with sqlite3.connect(cache_db(cache)) as db:
        (filename,) = db.execute("SELECT filename FROM Cache").fetchone()
    assert filename is not None, "the value is not in a file"
    return cache_db(cache).parent / filename


def point_value_at(cache: Path, filename: str) -> None:
    with sqlite3.connect(cache_db(cache)) as db:
        db.execute("UPDATE Cache SET filename = ?", (filename,))


def victim(tmp_path: Path) -> Path:
    path = tmp_path / "outside" / "precious.txt"
    path.parent.mkdir()
    path.write_text("do not delete")
    return path


def within(seconds: float, call):
    """`call()`'s answer, failing the test (not hanging it) when it takes longer."""
    answers: list = []
    worker = threading.Thread(target=lambda: answers.append(call()), daemon=True)
    worker.start()
    worker.join(seconds)
    assert answers, f"no answer within {seconds} s"
    return answers[0]


TAMPERING = ["relative escape", "absolute path", "symlink out", "fifo", "directory", "huge"]


def tamper(how: str, cache: Path, target: Path) -> None:
    if how == "relative escape":
        point_value_at(cache, os.path.relpath(target, cache_db(cache).parent))
    elif how == "absolute path":
        point_value_at(cache, str(target))
    elif how == "symlink out":
        value = value_file(cache)
        value.unlink()
        value.symlink_to(target)
    elif how == "fifo":
        value = value_file(cache)
        value.unlink()
        os.mkfifo(value)
    elif how == "directory":
        value = value_file(cache)
        value.unlink()
        value.mkdir()
    elif how == "huge":
        with value_file(cache).open("r+b") as sparse:
            sparse.truncate(1 << 40)  # 1 TiB, sparse


@pytest.mark.parametrize("how", TAMPERING)
def test_a_tampered_entry_is_refused_and_dropped(tmp_path: Path, site: Site, how: str) -> None:
    url = site.add("/big", html(big_page()))
    tools = open_tools(tmp_path, [url])
    first = read(tools, url)
    precious = victim(tmp_path)
    tamper(how, tmp_path / "cache", precious)
    again = within(10, lambda: read(tools, url))  # live, since the entry was refused
    assert again["markdown"] == first["markdown"] and again["cache"] == "miss"
    assert precious.read_text() == "do not delete"
    # Dropped: the next read stores a good copy again, then finds it.
    read(tools, url)
    assert read(tools, url)["markdown"] == first["markdown"]
    assert precious.read_text() == "do not delete"


@pytest.mark.parametrize("how", ["relative escape", "absolute path", "symlink out"])
def test_cache_clear_deletes_nothing_outside_the_folder(
    tmp_path: Path, site: Site, how: str
) -> None:
    url = site.add("/big", html(big_page()))
    read(open_tools(tmp_path, [url]), url)
    precious = victim(tmp_path)
    tamper(how, tmp_path / "cache", precious)
    done = subprocess.run(
        [sys.executable, "-m", "pinax", "cache", "clear", "--cache-dir", str(tmp_path / "cache")],
        capture_output=True,
        text=True,
        timeout=60,
        cwd=ROOT,
        env=server_env(),
    )
    assert "Traceback" not in done.stderr, done.stderr
    assert precious.exists() and precious.read_text() == "do not delete"


@pytest.mark.anyio
async def test_a_fifo_in_the_cache_does_not_hang_the_server(tmp_path: Path, site: Site) -> None:
    url = site.add("/big", html(big_page()))
    await open_tools(tmp_path, [url]).get_page(url)  # the cache entry, in tmp_path / "cache"
    tamper("fifo", tmp_path / "cache", tmp_path)
    params = stdio_params(
        "--docs", str(tmp_path / "site.json"), "--cache-dir", str(tmp_path / "cache")
    )
    async with Client(params) as client:
        with anyio.fail_after(HANG):
            async with anyio.create_task_group() as tasks:
                answers: list = []

                async def page() -> None:
                    answers.append(await client.call_tool("get_page", {"url": url}))

                tasks.start_soon(page)
                for _ in range(5):  # meanwhile, the server answers other calls
                    listed = await client.call_tool("list_docs", {})
                    assert not listed.is_error
        (answer,) = answers
    assert not answer.is_error, answer.content
    assert answer.structured_content["title"] == "Big"
