"""Short stalls for every client of a server: the garbage collector's, set once loaded.

A full collection walks every object the collector tracks, and while it walks, the event
loop and every client wait. Start-up leaves about 100,000 such objects (the SDK's pydantic
schemas, the loaded docs, their indexes), which lives as long as the server: walking them took
about 100 ms on a 2-core machine, a stall of every client whenever a full collection came,
more often the busier the server. Once loaded, that heap is moved out of the collector's way
(`gc.freeze`); only what requests and sessions create is walked from then on. A reload
unfreezes first, so one collection frees what the old docs leave behind in cycles (and what
was still in use at the previous reload).
"""

from __future__ import annotations

import gc
import logging
import threading
import time

log = logging.getLogger("pinax.server")

_lock = threading.Lock()


def settle(reloaded: bool = False) -> None:
    """Collect once and freeze what is left, so later full collections skip it.
    `reloaded`: unfreeze first, so the replaced docs' cycles are collected too."""
    with _lock:  # start-up's warm thread and a reload may settle at once
        started = time.perf_counter()
        if reloaded:
            gc.unfreeze()
        gc.collect()
        gc.freeze()
        log.debug(
            "froze %d objects out of the collector's walks in %.0f ms",
            gc.get_freeze_count(),
            (time.perf_counter() - started) * 1000,
        )
