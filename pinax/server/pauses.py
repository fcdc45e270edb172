"""Short stalls for every client of a server: the garbage collector's and the GIL's.

A full collection walks every object the collector tracks, and while it walks, the event
loop and every client wait. Start-up leaves about 100,000 such objects (the SDK's pydantic
schemas, the loaded docs, their indexes), which lives as long as the server: walking them took
about 100 ms on a 2-core machine, a stall of every client whenever a full collection came,
more often the busier the server. Once loaded, that heap is moved out of the collector's way
(`gc.freeze`); only what requests and sessions create is walked from then on. A reload
unfreezes first, so one collection frees what the old docs leave behind in cycles (and what
was still in use at the previous reload). That collection walks the whole heap, a stall like
the ones avoided, so it waits until reloads have stopped for QUIET seconds: a burst of them
(a docs folder being edited) costs one.

The GIL: while a worker thread extracts a page (CPU-bound), the event loop, back from each
wait for the network, asks for the GIL and gets it only when the worker's switch interval
runs out (5 ms by default), and a request goes through many such waits: tens of ms added
to every other client's call. A server switches every SWITCH_INTERVAL instead.
"""

from __future__ import annotations

import gc
import logging
import sys
import threading
import time

log = logging.getLogger("pinax.server")

SWITCH_INTERVAL = 0.001  # seconds a thread holds the GIL while another waits for it
QUIET = 2.0  # seconds without a reload before the heap is settled again
_lock = threading.Lock()
_later: list[threading.Timer] = []  # the settling to come after reloads, if any


def share_the_gil() -> None:
    """Hand the GIL over sooner (see above): the event loop waits at most SWITCH_INTERVAL."""
    sys.setswitchinterval(SWITCH_INTERVAL)


def settle(reloaded: bool = False, collect: bool = True) -> None:
    """Collect once and freeze what is left, so later full collections skip it.
    `reloaded`: unfreeze first, so the replaced docs' cycles are collected too. Not
    `collect`: freeze at once, garbage and all (start-up leaves a few hundred objects of it,
    not worth a walk of the whole heap, ~100 ms, before the server's first answer)."""
    with _lock:  # start-up's warm thread and a reload may settle at once
        started = time.perf_counter()
        if reloaded:
            gc.unfreeze()
        if collect:
            gc.collect()
        gc.freeze()
        log.debug(
            "froze %d objects out of the collector's walks in %.0f ms",
            gc.get_freeze_count(),
            (time.perf_counter() - started) * 1000,
        )


def settle_after_reload(quiet: float = QUIET) -> None:
    """`settle(reloaded=True)` once no other reload has come for `quiet` seconds."""
    timer = threading.Timer(quiet, settle, kwargs={"reloaded": True})
    timer.daemon = True
    with _lock:
        for waiting in _later:
            waiting.cancel()
        _later[:] = [timer]
        timer.start()
