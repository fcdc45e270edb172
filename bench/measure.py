"""What every benchmark measures with: percentiles, and the process's memory."""

from __future__ import annotations

import resource
from pathlib import Path


def percentile(values: list[float], q: float) -> float:
    """The value at quantile q (nearest rank) of the values."""
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


def rss_mb() -> float:
    """Resident memory now (VmRSS), in MB."""
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return float("nan")


def peak_mb() -> float:
    """The highest resident memory of this process so far, in MB."""
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
