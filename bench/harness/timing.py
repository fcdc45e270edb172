"""Timings as every bench reports them: percentiles by nearest rank, so a p99 is a time that
was measured, not one interpolated between two."""

from __future__ import annotations


def percentile(values: list[float], q: float) -> float:
    """The value at quantile q (nearest rank) of the values."""
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]
