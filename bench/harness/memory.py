"""The memory of a process and of the processes it starts, as every bench reports it: now
(RSS), at its high-water mark, and summed over a tree of workers while they run."""

from __future__ import annotations

import math
import os
import resource
import threading
from pathlib import Path


def rss_mb(kind: str = "VmRSS", pid: str = "self") -> float:
    """Resident memory now, in MB, of this process or another (`pid`; NaN once it is gone):
    all of it (VmRSS), or its part in the process's own memory (RssAnon) or in mapped files
    (RssFile: the code of Python and its libraries, and the index's pages of the page cache,
    which recent kernels map a whole folio at a time: up to 2 MB for one byte read)."""
    try:
        status = Path(f"/proc/{pid}/status").read_text()
    except OSError:
        return math.nan
    for line in status.splitlines():
        if line.startswith(f"{kind}:"):
            return int(line.split()[1]) / 1024
    return math.nan


def peak_mb() -> float:
    """The highest resident memory of this process so far, in MB: its memory's high-water mark
    (VmHWM), not `ru_maxrss`, which a process started from a larger one may inherit (Linux
    keeps the old memory's mark across exec: a bench that generated a manifest of several GB
    would see its workers report that)."""
    found = rss_mb("VmHWM")
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024 if math.isnan(found) else found


def _children() -> list[str]:
    """The processes this one started (those of every thread) that still run."""
    found = []
    for task in Path("/proc/self/task").iterdir():
        try:
            found += (task / "children").read_text().split()
        except OSError:
            continue
    return found


class TreePeak:
    """The highest resident memory of this process and the processes it starts (a build's
    workers), added up, in MB: sampled every `interval` seconds while in the `with` block,
    and never below this process's own high-water mark."""

    def __init__(self, interval: float = 0.02) -> None:
        self.interval = interval
        self.mb = 0.0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._sample, daemon=True)

    def __enter__(self) -> TreePeak:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join()
        self.mb = max(self.mb, peak_mb())

    def _sample(self) -> None:
        me = str(os.getpid())
        while not self._stop.wait(self.interval):
            each = (rss_mb("VmRSS", pid) for pid in [me, *_children()])
            self.mb = max(self.mb, sum(mb for mb in each if not math.isnan(mb)))
