"""Freed memory kept for reuse while an index is built.

A build makes and frees gigabytes of arrays and objects. By default glibc hands every large
freed block straight back to the kernel, and the next one is faulted in again a page at a
time: at a million pages that is about 190,000 extra page faults, over a second of the build
on a VM. While a build runs, every block below `MAPPED_FROM` comes from malloc's heap and
freed memory stays there for the next; larger ones (a million pages' sort keys and postings,
hundreds of MB each) are mapped on their own and returned when freed, so that the build's
peak is the memory it uses, not the most the heap ever held (a freed block of keys is no
room for a larger one): at a million pages with API symbols 3.2 GB -> 3.0 GB, for about a
second of CPU (numpy asks for huge pages for such blocks: few faults). When the build ends,
both thresholds are set back to glibc's starting value and the free memory is returned
(`malloc_trim`): a server that has just built a million-page index holds about 110 MB
instead of 380. Elsewhere than on glibc, nothing changes.
"""

from __future__ import annotations

import contextlib
import ctypes
import os
import sys
from collections.abc import Iterator
from typing import Any

M_TRIM_THRESHOLD = -1
M_MMAP_THRESHOLD = -3
DEFAULT_THRESHOLD = 128 * 1024  # glibc's default for both
KEEP = (1 << 31) - 1  # mallopt takes an int: 2 GiB, in effect "never"
MAPPED_FROM = 16 << 20  # blocks this large are mapped on their own during a build


@contextlib.contextmanager
def kept_for_reuse() -> Iterator[None]:
    """Within: no block below MAPPED_FROM is mapped on its own, and the heap is never
    trimmed."""
    libc = _glibc()
    if libc is None:
        yield
        return
    libc.mallopt(M_MMAP_THRESHOLD, MAPPED_FROM)
    libc.mallopt(M_TRIM_THRESHOLD, KEEP)
    try:
        yield
    finally:
        libc.mallopt(M_MMAP_THRESHOLD, DEFAULT_THRESHOLD)
        libc.mallopt(M_TRIM_THRESHOLD, DEFAULT_THRESHOLD)
        libc.malloc_trim(0)


def _glibc() -> Any:
    if not sys.platform.startswith("linux"):
        return None
    try:
        if not os.confstr("CS_GNU_LIBC_VERSION"):
            return None
        return ctypes.CDLL(None)
    except (OSError, ValueError):
        return None
