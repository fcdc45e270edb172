"""pinax.server.stdio: the asyncio pipe transport `pinax serve` uses on stdio, and its fallback.

The real clients of test_server_stdio.py and test_clients_js.py talk to it over pipes; these
tests check what they cannot: the wire is kept clear of stray output, a line over the limit
is dropped without ending the session, and a stdin that is a file still gets the SDK's
transport.
"""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
import textwrap
from pathlib import Path

from pinax.server.stdio import _Lines
from tests.conftest import shared_path
from tests.support.serving import ROOT, child_env, pinax_command

INITIALIZE = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {
        "protocolVersion": "2025-06-18",
        "capabilities": {},
        "clientInfo": {"name": "test", "version": "1"},
    },
}
INITIALIZED = {"jsonrpc": "2.0", "method": "notifications/initialized"}
SEARCH = {
    "jsonrpc": "2.0",
    "id": 2,
    "method": "tools/call",
    "params": {"name": "search_pages", "arguments": {"query": "useState"}},
}


def lines(*messages: dict) -> str:
    return "".join(json.dumps(m) + "\n" for m in messages)


def replies(stdout: str) -> dict[int, dict]:
    """Every line of stdout must be a JSON-RPC message; the answers by id."""
    found = [json.loads(line) for line in stdout.splitlines()]
    return {m["id"]: m for m in found if "id" in m}


def test_stray_output_goes_to_stderr_not_the_wire() -> None:
    script = textwrap.dedent(
        """
        import os, anyio
        from pinax.server.stdio import stdio_streams

        async def main():
            async with stdio_streams() as (read, write):
                print("stray print", flush=True)
                os.write(1, b"stray write\\n")
                async with read, write:
                    message = await read.receive()
                    await write.send(message)

        anyio.run(main)
        """
    )
    done = subprocess.run(
        [sys.executable, "-c", script],
        input=lines(INITIALIZE),
        capture_output=True,
        text=True,
        timeout=60,
        cwd=ROOT,
        check=True,
    )
    assert replies(done.stdout)[1]["method"] == "initialize"  # the message echoed, alone
    assert "stray print" in done.stderr and "stray write" in done.stderr


def test_a_line_over_the_limit_is_dropped_and_reading_goes_on() -> None:
    async def read_all() -> list[str]:
        reader = asyncio.StreamReader(limit=64)
        reader.feed_data(b'{"too": "' + b"x" * 200 + b'"}\n{"ok": 1}\n')
        reader.feed_eof()
        return [line async for line in _Lines(reader)]

    got = asyncio.run(read_all())
    assert got[-1] == '{"ok": 1}\n'
    assert all("ok" not in line for line in got[:-1]) and len(got) >= 2
    for dropped in got[:-1]:  # what is left of the long line never parses as a message
        try:
            json.loads(dropped)
        except ValueError:
            continue
        raise AssertionError(dropped)


def converse(args: list[str], cache: Path, wanted: set[int], *chunks: str) -> dict[int, dict]:
    """Write `chunks` to a server over pipes, keeping stdin open (as clients do) until the
    requests `wanted` have their answers; the answers by id."""
    server = subprocess.Popen(
        pinax_command(*args),
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
        cwd=ROOT,
        env=child_env({"PINAX_CACHE_DIR": str(cache)}),
    )
    assert server.stdin and server.stdout
    answers: dict[int, dict] = {}
    try:
        for chunk in chunks:
            server.stdin.write(chunk)
            server.stdin.flush()
        while not wanted <= set(answers):
            line = server.stdout.readline()
            assert line, f"the server ended with answers to {sorted(answers)} only"
            answers.update(replies(line))
    finally:
        server.stdin.close()
        assert server.wait(timeout=30) == 0
    return answers


def test_over_a_real_pipe_a_long_garbage_line_leaves_the_server_answering(
    tmp_path: Path,
) -> None:
    react = shared_path("corpora", "manifests", "react.json")
    garbage = '{"jsonrpc": "' + "x" * 300_000 + "\n"  # beyond a pipe's buffer: many reads
    answers = converse(
        ["--docs", str(react)],
        tmp_path,
        {1, 2},
        lines(INITIALIZE, INITIALIZED),
        garbage,
        lines(SEARCH),
    )
    assert answers[1]["result"]["serverInfo"]["name"] == "pinax"
    assert answers[2]["result"]["structuredContent"]["results"][0]["url"].startswith("https://")


def test_a_file_on_stdin_gets_the_sdk_transport(tmp_path: Path) -> None:
    """The SDK's transport ends the session at the end of the file, so only the handshake is
    sure to be answered: enough to show the server runs on it."""
    react = shared_path("corpora", "manifests", "react.json")
    requests = tmp_path / "requests.jsonl"
    requests.write_text(lines(INITIALIZE, INITIALIZED))
    with requests.open() as stdin:
        done = subprocess.run(
            pinax_command("--docs", str(react)),
            stdin=stdin,
            capture_output=True,
            text=True,
            timeout=60,
            cwd=ROOT,
            env=child_env({"PINAX_CACHE_DIR": str(tmp_path)}),
            check=True,
        )
    assert replies(done.stdout)[1]["result"]["serverInfo"]["name"] == "pinax", done.stderr
