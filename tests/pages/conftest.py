"""A real redis-server for the shared page cache's tests, on a free loopback port.

Skipped, saying why, where redis-server (Debian's `redis-server`) or redis-py (the `team`
extra) is missing; `PINAX_REQUIRE_REDIS=1` (set in CI, which installs both) makes that a
failure instead, so the tests cannot pass there by not running.
"""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

REDIS_SERVER = "redis-server"


def _missing(why: str) -> None:
    if os.environ.get("PINAX_REQUIRE_REDIS") == "1":
        pytest.fail(f"PINAX_REQUIRE_REDIS=1 but {why}")
    pytest.skip(why)


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


class RedisServer:
    """`redis-server` on 127.0.0.1:`port`, no persistence; stop and start it again at will
    (same port, empty: as a restarted cache would be)."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self.port = free_port()
        self.process: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        """Its URL, giving it seconds to answer rather than Pinax's 50 ms: the tests count the
        requests that reach a site, and on a loaded machine a late Redis answer is a fallback
        by design (the page fetched here), which they would count as sharing failing."""
        return self.bare_url + "?socket_timeout=2&socket_connect_timeout=2"

    @property
    def bare_url(self) -> str:
        """Its URL with Pinax's own timeouts, for the tests of a slow or stopped Redis."""
        return f"redis://127.0.0.1:{self.port}/0"

    def start(self) -> None:
        self.process = subprocess.Popen(
            [
                REDIS_SERVER,
                "--port", str(self.port),
                "--bind", "127.0.0.1",
                "--save", "",
                "--appendonly", "no",
                "--dir", str(self.folder),
            ],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )  # fmt: skip
        deadline = time.monotonic() + 10
        while True:
            try:
                if self.client().ping():
                    return
            except Exception:
                if self.process.poll() is not None or time.monotonic() > deadline:
                    raise RuntimeError(f"redis-server did not start on port {self.port}") from None
                time.sleep(0.02)

    def stop(self) -> None:
        if self.process is not None:
            self.process.terminate()
            self.process.wait(10)
            self.process = None

    def client(self) -> Any:
        import redis

        return redis.Redis(host="127.0.0.1", port=self.port, socket_timeout=5)


@pytest.fixture
def redis_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[RedisServer]:
    if shutil.which(REDIS_SERVER) is None:
        _missing("redis-server is not installed (Debian: apt-get install redis-server)")
    try:
        import redis  # noqa: F401
    except ImportError:
        _missing("redis-py is not installed (pip install 'pinax[team]')")
    server = RedisServer(tmp_path_factory.mktemp("redis"))
    server.start()
    try:
        yield server
    finally:
        server.stop()
