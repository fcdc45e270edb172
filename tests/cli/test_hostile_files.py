"""Hostile files (issue 19, items 7 and 14): bad manifests, and special or huge local files.

Through the real command (`python -m pinax ...` as a subprocess) and the real live-reload
server: a clear one-line error naming the file, exit code 2, never a traceback or a hang; a
reloading server keeps serving the manifests it had.
"""

from __future__ import annotations

import json
import os
import subprocess
import time
from pathlib import Path

import anyio
import pytest
from mcp import Client

from tests.support.serving import run_pinax, served_http
from tests.support.work import HANG

GOOD = {
    "pinax_manifest": 1,
    "name": "site",
    "url": "http://127.0.0.1:9/",
    "pages": [{"url": "http://127.0.0.1:9/guide", "title": "Guide"}],
}


def _with(extra: str) -> str:
    """The good manifest with `extra` JSON text spliced in as one more field."""
    return json.dumps(GOOD)[:-1] + ", " + extra + "}"


BAD_MANIFESTS = {
    "100,000-deep list": _with('"x": ' + "[" * 100_000 + "]" * 100_000),
    "100,000-deep object": _with('"x": ' + '{"a":' * 100_000 + "1" + "}" * 100_000),
    "unclosed deep nesting": _with('"x": ' + "[" * 100_000),
    "5,000-digit integer": _with('"ttl": ' + "9" * 5_000),
    "5,000-digit integer in a page": json.dumps(GOOD).replace(
        '"Guide"}', '"Guide", "x": -' + "1" * 5000 + "}"
    ),
    "4,000-digit ttl": _with('"ttl": ' + "9" * 4_000),
    "huge float": _with('"ttl": 1e99999'),
    "NaN ttl": _with('"ttl": NaN'),
    "lone high surrogate in a title": json.dumps(GOOD).replace('"Guide"', '"Gu\\ud800ide"'),
    "lone low surrogate in a url": json.dumps(GOOD).replace("/guide", "/gu\\udfffide"),
    "lone surrogate in the name": json.dumps(GOOD).replace('"site"', '"s\\udbff"'),
    "lone surrogate in a key": _with('"\\ud800": 1'),
}


def pinax(*args: str, timeout: float = 60) -> subprocess.CompletedProcess[str]:
    return run_pinax(*args, timeout=timeout)


@pytest.mark.parametrize("name", sorted(BAD_MANIFESTS))
def test_a_bad_manifest_is_one_clear_error(tmp_path: Path, name: str) -> None:
    path = tmp_path / "bad.json"
    path.write_text(BAD_MANIFESTS[name], encoding="utf-8")
    done = pinax("search", "--docs", str(path), "guide")
    if done.returncode == 0:  # a manifest Pinax can take (a ttl it clamps): it must work
        assert "Guide" in done.stdout, done.stderr
        return
    assert done.returncode == 2, done.stderr
    assert "Traceback" not in done.stderr
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and str(path) in lines[0], done.stderr


def test_a_bad_manifest_stops_serve_with_one_line(tmp_path: Path) -> None:
    path = tmp_path / "bad.json"
    path.write_text(BAD_MANIFESTS["100,000-deep list"])
    done = pinax("serve", "--docs", str(path), timeout=60)
    assert done.returncode == 2 and "Traceback" not in done.stderr
    assert "nested too deep" in done.stderr and str(path) in done.stderr


@pytest.mark.anyio
async def test_the_reloading_server_keeps_its_docs_through_bad_manifests(tmp_path: Path) -> None:
    folder = tmp_path / "manifests"
    folder.mkdir()
    (folder / "site.json").write_text(json.dumps(GOOD))
    with served_http("--docs", str(folder), "--watch-interval", "0.1") as server:
        async with Client(server.url) as client:
            for name in sorted(BAD_MANIFESTS):
                (folder / "site.json").write_text(BAD_MANIFESTS[name], encoding="utf-8")
                await anyio.sleep(0.4)  # several polls
                assert server.process.poll() is None, f"{name}: the server died"
                docs = (await client.call_tool("list_docs", {})).structured_content["docs"]
                assert [d["name"] for d in docs] == ["site"], name
            (folder / "site.json").write_text(json.dumps({**GOOD, "name": "fixed"}))
            deadline = time.monotonic() + HANG
            while time.monotonic() < deadline:
                docs = (await client.call_tool("list_docs", {})).structured_content["docs"]
                if [d["name"] for d in docs] == ["fixed"]:
                    break
                await anyio.sleep(0.1)
            assert [d["name"] for d in docs] == ["fixed"]
    assert "Traceback" not in server.log_text()


# 14. Special and huge local files


def special(tmp_path: Path, kind: str, name: str) -> Path:
    """A FIFO, a device or a 3 GiB sparse file, as `name`."""
    if kind == "device":
        return Path("/dev/zero")
    path = tmp_path / name
    if kind == "fifo":
        os.mkfifo(path)
    else:
        with path.open("wb") as sparse:
            sparse.truncate(3 << 30)
    return path


COMMANDS = {
    "search --docs": lambda path: ["search", "--docs", str(path), "guide"],
    "serve --docs": lambda path: ["serve", "--docs", str(path)],
    "build": lambda path: ["build", str(path), "--url", "http://127.0.0.1:9/"],
    "serve --docs folder": lambda path: ["serve", "--docs", str(path.parent)],
}


@pytest.mark.parametrize("kind", ["fifo", "device", "huge"])
@pytest.mark.parametrize("command", sorted(COMMANDS))
def test_special_files_are_refused_at_once(tmp_path: Path, kind: str, command: str) -> None:
    if command == "serve --docs folder" and kind == "device":
        pytest.skip(
            "the device case is /dev/zero itself, whose folder (/dev) is not a docs folder; "
            "the folder case is covered by the FIFO and the huge file"
        )
    path = special(tmp_path, kind, "docs.json" if "docs" in command else "llms.txt")
    # Refused, not waited on: a FIFO read would block until HANG ends the test.
    done = pinax(*COMMANDS[command](path), timeout=HANG)
    assert done.returncode != 0 and "Traceback" not in done.stderr, done.stderr
    assert str(path) in done.stderr, done.stderr
    assert "not a regular file" in done.stderr or "limit" in done.stderr, done.stderr


@pytest.mark.anyio
async def test_the_watcher_refuses_a_fifo_and_keeps_serving(tmp_path: Path) -> None:
    folder = tmp_path / "manifests"
    folder.mkdir()
    (folder / "site.json").write_text(json.dumps(GOOD))
    with served_http("--docs", str(folder), "--watch-interval", "0.1") as server:
        async with Client(server.url) as client:
            os.mkfifo(folder / "trap.json")
            deadline = time.monotonic() + HANG
            while "trap.json" not in server.log_text() and time.monotonic() < deadline:
                await anyio.sleep(0.1)
            assert "not a regular file" in server.log_text()
            with anyio.fail_after(HANG):
                docs = (await client.call_tool("list_docs", {})).structured_content["docs"]
            assert [d["name"] for d in docs] == ["site"]
