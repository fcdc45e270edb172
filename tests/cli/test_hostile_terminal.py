"""Terminal escapes in remote text (issue 19, item 6): the CLI never prints them raw.

An llms.txt whose titles carry escape sequences (clear the screen, set the window title, OSC 52
clipboard writes, 8-bit CSI, bidirectional overrides) and a page whose text does: `pinax
search`, `pinax page` and `pinax build` print them as visible escapes, text and JSON alike.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from tests.support.http_site import Reply, Site
from tests.support.serving import run_pinax

# In a link title, brackets must pair (Markdown): a full reset, an 8-bit CSI, a colour, a
# bidirectional override, a backspace and a bell. The page text holds OSC title and clipboard
# writes too.
ESCAPES = ["\x1bc", "\x9b2J", "\x1b[31m]", "\u202e", "\x08", "\x07"]
HOSTILE = "".join(f"Guide{e}" for e in ESCAPES)
PAGE_ESCAPES = HOSTILE + "\x1b]0;owned\x07\x1b]52;c;aGk=\x07\x1b[2J\r"
RAW = {"\x1b", "\x9b", "\u202e", "\r", "\x08", "\x07"}


def pinax(tmp_path: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return run_pinax(*args, env={"PINAX_CACHE_DIR": str(tmp_path / "cache")})


def assert_clean(done: subprocess.CompletedProcess[str]) -> None:
    assert done.returncode == 0, done.stderr
    for stream in (done.stdout, done.stderr):
        found = RAW & set(stream)
        assert not found, f"raw {found!r} printed: {stream[:300]!r}"


@pytest.fixture
def hostile_site(site: Site) -> str:
    page = site.url("/docs/guide")
    body = f"# Site\n\n> docs\n\n## Docs\n\n- [{HOSTILE}]({page}): {HOSTILE} guide\n"
    site.add("/llms.txt", Reply(200, body.encode(), {"Content-Type": "text/plain"}))
    markdown = f"# {HOSTILE}\n\nguide text {PAGE_ESCAPES}\n"
    site.add("/docs/guide", Reply(200, markdown.encode(), {"Content-Type": "text/markdown"}))
    return site.url("/llms.txt")


@pytest.mark.parametrize("json_output", [False, True])
def test_search_prints_no_escape_sequence(
    tmp_path: Path, hostile_site: str, json_output: bool
) -> None:
    done = pinax(
        tmp_path, "search", "--docs", hostile_site, "guide", *(["--json"] if json_output else [])
    )
    assert_clean(done)
    assert "Guide" in done.stdout
    if json_output:  # still JSON, and the data is whole
        assert json.loads(done.stdout)["results"][0]["title"].startswith("Guide\x1bc")


@pytest.mark.parametrize("json_output", [False, True])
def test_page_prints_no_escape_sequence(
    tmp_path: Path, hostile_site: str, site: Site, json_output: bool
) -> None:
    done = pinax(
        tmp_path,
        "page",
        site.url("/docs/guide"),
        "--docs",
        hostile_site,
        *(["--json"] if json_output else []),
    )
    assert_clean(done)
    assert "guide text" in done.stdout


def test_build_to_stdout_prints_no_escape_sequence(tmp_path: Path, hostile_site: str) -> None:
    done = pinax(tmp_path, "build", hostile_site)
    assert_clean(done)
    assert json.loads(done.stdout)["pages"][0]["title"].startswith("Guide")


def test_error_messages_print_no_escape_sequence(
    tmp_path: Path, hostile_site: str, site: Site
) -> None:
    site.add("/docs/gone", Reply(404, b"", {}))
    done = pinax(
        tmp_path, "page", site.url("/docs/guide") + "\x1b[2J\u202e", "--docs", hostile_site
    )
    assert done.returncode != 0
    assert not RAW & set(done.stderr), done.stderr
