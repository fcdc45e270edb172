"""A real `pinax serve` that reports the longest its event loop was held by one callback.

While one callback runs, the loop serves nobody else: that is the stall every other client of
the server feels. `WATCHED` starts Pinax with each loop callback timed; SIGUSR1 forgets the
longest so far (start-up is not under test), SIGUSR2 writes the longest since to stderr as
`LOOP-STALL <ms> <callback>`. A callback is timed in the loop thread's own CPU time
(`time.thread_time`): the work it does there, which other processes busy on the same cores do
not stretch (wall-clock time would count the moments the scheduler gave the core away).
"""

from __future__ import annotations

import signal
import sys
import time

from tests.support.serving import Served

_CODE = """
import asyncio.events, signal, sys, time
run = asyncio.events.Handle._run
worst = [0.0, ""]
def timed(handle):
    started = time.thread_time()
    run(handle)
    took = time.thread_time() - started
    if took > worst[0]:
        worst[:] = [took, repr(handle)[:300]]
asyncio.events.Handle._run = timed
def forget(*_):
    worst[:] = [0.0, ""]
def report(*_):
    sys.stderr.write(f"LOOP-STALL {worst[0] * 1000:.1f} {worst[1]}\\n")
    sys.stderr.flush()
signal.signal(signal.SIGUSR1, forget)
signal.signal(signal.SIGUSR2, report)
sys.argv[0] = "pinax"
from pinax.cli import main
main()
"""
WATCHED = [sys.executable, "-c", _CODE]  # for `served_http(..., python=WATCHED)`


def start_watching(server: Served) -> None:
    """Forget the stalls so far (start-up's)."""
    server.process.send_signal(signal.SIGUSR1)
    time.sleep(0.2)


def longest_stall(server: Served) -> tuple[float, str]:
    """(milliseconds, the callback) of the longest stall since `start_watching`."""
    seen = len(server.log)
    server.process.send_signal(signal.SIGUSR2)
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        for line in server.log[seen:]:
            if line.startswith("LOOP-STALL "):
                ms, _, what = line.removeprefix("LOOP-STALL ").partition(" ")
                return float(ms), what
        time.sleep(0.05)
    raise AssertionError("the server did not report its stalls")
