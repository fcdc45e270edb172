"""How page-cache entries lie on disk: JSON only, and nothing left behind by a failed write.

diskcache unpickles any entry whose row says it is pickled, whatever `Disk` class wrote the
rest, so whoever can write the cache folder could make the server run code. Here a pickled
entry (planted, or left by an older Pinax) is refused like any corrupt entry. And diskcache
leaves the half-written value file of a write that failed (a full disk) where nothing will
ever delete it; here it is removed.
"""

from __future__ import annotations

import contextlib
import os
from typing import Any

from diskcache import JSONDisk
from diskcache.core import MODE_PICKLE


class JsonOnlyDisk(JSONDisk):
    def fetch(self, mode: int, filename: str | None, value: Any, read: bool) -> Any:
        if mode == MODE_PICKLE:
            raise ValueError("a pickled page-cache entry; refused")
        return super().fetch(mode, filename, value, read)

    def _write(self, full_path: str, iterator: Any, mode: str, encoding: str | None = None) -> Any:
        try:
            return super()._write(full_path, iterator, mode, encoding)
        except OSError:
            with contextlib.suppress(OSError):
                os.remove(full_path)
            raise
