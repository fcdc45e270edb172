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


needs_glibc = pytest.mark.skipif(
    heap._glibc() is None,
    reason="the heap settings are glibc's (mallopt); this C library is another",
)


@needs_glibc
def test_kept_within_and_returned_after() -> None:
    """Measured from the block in use, not from the start: earlier tests may have left free
    heap memory that the block takes without the process growing."""
    with heap.kept_for_reuse():
        block = np.ones(BLOCK, dtype=np.uint8)
        held = resident()
        del block
        given_back_within = held - resident()
    given_back_after = held - resident()
    assert given_back_within < BLOCK * 0.1
    assert given_back_after > BLOCK * 0.8


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
    """A large block (larger than any free room earlier tests leave in the heap, which a
    smaller one could take and keep) is mapped on its own and returned when freed."""
    start = resident()
    block = np.ones(LARGE, dtype=np.uint8)
    del block
    assert resident() - start < LARGE * 0.2
