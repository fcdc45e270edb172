"""Freed memory is kept within a build and returned after it (glibc only)."""

from __future__ import annotations

import numpy as np
import pytest

from pinax.search import heap

BLOCK = heap.MAPPED_FROM // 2  # kept within a build
LARGE = heap.MAPPED_FROM * 4  # mapped on its own even within


def resident() -> int:
    with open("/proc/self/statm") as statm:
        return int(statm.read().split()[1]) * 4096


needs_glibc = pytest.mark.skipif(heap._glibc() is None, reason="mallopt is glibc's")


@needs_glibc
def test_kept_within_and_returned_after() -> None:
    start = resident()
    with heap.kept_for_reuse():
        block = np.ones(BLOCK, dtype=np.uint8)
        del block
        kept = resident() - start
    returned = resident() - start
    assert kept > BLOCK * 0.9
    assert returned < BLOCK * 0.2


@needs_glibc
def test_large_blocks_are_returned_at_once_within() -> None:
    """So that a build's peak is what it uses: a freed block of sort keys is no room for
    the next, larger one."""
    start = resident()
    with heap.kept_for_reuse():
        block = np.ones(LARGE, dtype=np.uint8)
        del block
        kept = resident() - start
    assert kept < LARGE * 0.2


@needs_glibc
def test_returned_at_once_outside() -> None:
    start = resident()
    block = np.ones(BLOCK, dtype=np.uint8)
    del block
    assert resident() - start < BLOCK * 0.2
