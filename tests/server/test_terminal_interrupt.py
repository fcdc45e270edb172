"""Issue 38 item 1: Ctrl-C stops `pinax serve` on stdio in a terminal, as a newcomer runs it.

A real pseudo-terminal: the server's stdin, stdout and stderr are the pty's slave side and it
leads its own session with the pty as controlling terminal, so `\\x03` typed on the master
side becomes SIGINT through the terminal's line discipline, exactly as in a shell.
"""

from __future__ import annotations

import json
import os
import select
import subprocess
import sys
import time

import pytest

from tests.support.serving import INITIALIZE, ROOT, child_env

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="pseudo-terminals are POSIX")
PATIENCE = 20.0  # seconds: generous, a loaded machine is slow but never this slow


def controlling_terminal() -> None:
    """In the child: a session of its own, with the pty on fd 0 as its controlling terminal
    (so the line discipline turns ^C into SIGINT for it, as a shell's terminal does)."""
    import fcntl
    import termios

    os.setsid()
    fcntl.ioctl(0, termios.TIOCSCTTY, 0)


def read_until(master: int, needle: bytes, patience: float) -> bytes:
    """What the terminal shows until `needle` appears (or `patience` runs out)."""
    seen = b""
    deadline = time.monotonic() + patience
    while needle not in seen and time.monotonic() < deadline:
        ready, _, _ = select.select([master], [], [], 0.2)
        if ready:
            try:
                chunk = os.read(master, 4096)
            except OSError:  # the slave side closed: the process has gone
                break
            if not chunk:
                break
            seen += chunk
    return seen


def test_ctrl_c_stops_the_stdio_server_in_a_terminal(tmp_path) -> None:
    master, slave = os.openpty()
    process = subprocess.Popen(
        [sys.executable, "-m", "pinax", "serve", "--docs", str(ROOT / "manifests" / "stripe.json")],
        stdin=slave,
        stdout=slave,
        stderr=slave,
        cwd=ROOT,
        env={**child_env(), "PINAX_CACHE_DIR": str(tmp_path)},
        preexec_fn=controlling_terminal,
    )
    os.close(slave)
    try:
        shown = read_until(master, b"waiting for a client", PATIENCE)
        assert b"waiting for a client" in shown, shown.decode(errors="replace")
        # An answered `initialize` proves the server is reading the terminal when ^C comes.
        os.write(master, json.dumps(INITIALIZE).encode() + b"\n")
        answered = read_until(master, b'"serverInfo"', PATIENCE)
        assert b'"serverInfo"' in answered, answered.decode(errors="replace")
        os.write(master, b"\x03")
        try:
            code = process.wait(timeout=PATIENCE)
        except subprocess.TimeoutExpired:
            pytest.fail("`pinax serve` on stdio still runs after Ctrl-C in a terminal")
        rest = shown + read_until(master, b"\x00", 0.5)
        assert code == 130, rest.decode(errors="replace")
        assert b"Traceback" not in rest, rest.decode(errors="replace")
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
        os.close(master)
