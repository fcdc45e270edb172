"""`pinax serve` as a real subprocess, for tests that need a real transport (HTTP or stdio)."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

from mcp import StdioServerParameters

ROOT = Path(__file__).resolve().parents[2]
# A raw streamable-HTTP `initialize`, for tests that speak to the endpoint without a client.
INITIALIZE = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {
        "protocolVersion": "2025-11-25",
        "capabilities": {},
        "clientInfo": {"name": "raw", "version": "0"},
    },
}
MCP_HEADERS = {"Accept": "application/json, text/event-stream"}


def pinax_command(*args: str) -> list[str]:
    return [sys.executable, "-m", "pinax", "serve", *args]


def child_env(extra: dict[str, str] | None = None) -> dict[str, str]:
    """What a stdio server needs from this environment: where Pinax is, and the tests'
    allowance of loopback sites (a stdio client passes no other variable)."""
    allowance = {k: v for k, v in os.environ.items() if k == "PINAX_ALLOW_PRIVATE"}
    return {"PYTHONPATH": str(ROOT), **allowance, **(extra or {})}


def stdio_params(*args: str, env: dict[str, str] | None = None) -> StdioServerParameters:
    """A stdio server (the client passes a minimal environment: see `child_env`)."""
    command = pinax_command(*args)
    return StdioServerParameters(command=command[0], args=command[1:], env=child_env(env))


def server_env(extra: dict[str, str] | None = None) -> dict[str, str]:
    """This environment, minus a token the developer may have set, plus `extra`."""
    inherited = {k: v for k, v in os.environ.items() if k != "PINAX_TOKEN"}
    return {**inherited, "PYTHONPATH": str(ROOT), **(extra or {})}


def run_pinax(
    *args: str, env: dict[str, str] | None = None, timeout: float = 120, stdin: str | None = None
) -> subprocess.CompletedProcess[str]:
    """`python -m pinax ARGS` to its end, `stdin` its input, output captured (environment as
    `server_env`): the one way every test runs the command as a user would."""
    done = subprocess.run(
        [sys.executable, "-m", "pinax", *args],
        input=stdin,
        capture_output=True,
        text=True,
        timeout=timeout,
        cwd=ROOT,
        env=server_env(env),
    )
    if args[:1] == ("build",) and done.returncode == 0:
        _check_written_manifest(args)
    return done


def _check_written_manifest(args: tuple[str, ...]) -> None:
    """A manifest `pinax build -o FILE` wrote in a subprocess holds to the schema too (in
    process, tests/conftest.py checks every `dump`)."""
    from tests.support.manifest_schema import assert_valid

    for flag in ("-o", "--output"):
        if flag in args[:-1]:
            out = (ROOT / args[args.index(flag) + 1]).resolve()
            if out.suffix == ".json" and out.is_file():
                assert_valid(json.loads(out.read_text(encoding="utf-8")), str(out))


@dataclass
class Served:
    url: str  # the MCP endpoint, http://127.0.0.1:PORT/mcp
    process: subprocess.Popen[str]
    log: list[str] = field(default_factory=list)  # stderr lines so far

    @property
    def base(self) -> str:
        return self.url.removesuffix("/mcp")

    def log_text(self) -> str:
        return "\n".join(self.log)


@contextmanager
def served_http(
    *args: str, env: dict[str, str] | None = None, python: list[str] | None = None
) -> Iterator[Served]:
    """`pinax serve --http --port 0 ARGS` until the block ends; its stderr is collected.
    `python`: how to start Pinax instead of `python -m pinax` (e.g. `python -c CODE`)."""
    command = pinax_command("--http", "--port", "0", *args)
    if python is not None:
        command = [*python, *command[3:]]
    process = subprocess.Popen(
        command,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
        cwd=ROOT,
        env=server_env(env),
    )
    served = Served("", process)
    ready = threading.Event()

    def collect() -> None:
        assert process.stderr is not None
        for line in process.stderr:
            served.log.append(line.rstrip("\n"))
            if "serving MCP at " in line:
                served.url = line.split("serving MCP at ", 1)[1].split()[0]
                ready.set()
        ready.set()  # the process ended

    threading.Thread(target=collect, daemon=True).start()
    try:
        if not ready.wait(60) or not served.url:
            raise RuntimeError(f"pinax serve --http did not start:\n{served.log_text()}")
        _wait_healthy(served.base)
        yield served
    finally:
        process.terminate()
        try:
            process.wait(10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


def _wait_healthy(base: str) -> None:
    import httpx

    deadline = time.monotonic() + 60
    while True:
        try:
            if httpx.get(f"{base}/health", timeout=2).status_code == 200:
                return
        except httpx.TransportError:
            pass
        if time.monotonic() > deadline:
            raise RuntimeError(f"{base}/health never answered")
        time.sleep(0.05)


def closed_port() -> int:
    """A loopback port nothing listens on (bound, then let go)."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]
