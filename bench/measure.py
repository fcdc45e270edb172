"""What every benchmark measures with: percentiles, and the process's memory."""

from __future__ import annotations

import resource
from pathlib import Path


def percentile(values: list[float], q: float) -> float:
    """The value at quantile q (nearest rank) of the values."""
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


def rss_mb(kind: str = "VmRSS") -> float:
    """Resident memory now, in MB: all of it (VmRSS), or its part in the process's own memory
    (RssAnon) or in mapped files (RssFile: the code of Python and its libraries, and the
    index's pages of the page cache, which recent kernels map a whole folio at a time: up to
    2 MB for one byte read)."""
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith(f"{kind}:"):
            return int(line.split()[1]) / 1024
    return float("nan")


def peak_mb() -> float:
    """The highest resident memory of this process so far, in MB."""
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
