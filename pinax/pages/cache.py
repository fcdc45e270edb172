"""A TTL disk cache for fetched pages (diskcache), shared safely between processes.

Entries are kept past their TTL (until diskcache's size limit evicts them) so an expired copy
can still be revalidated or served when the site is down; freshness is decided here, from the
time each entry was stored. Entries are JSON, never pickles (see cache_disk.py), and a corrupt
entry is only a miss.
"""

from __future__ import annotations

import contextlib
import os
import sys
import time
import zlib
from pathlib import Path
from typing import Any

from pinax.errors import CacheError

DEFAULT_TTL = 24 * 3600.0
SIZE_LIMIT = 1 << 30  # 1 GiB, least recently stored entries evicted first


def default_cache_dir() -> Path:
    """`PINAX_CACHE_DIR`, else the platform's user cache folder."""
    configured = os.environ.get("PINAX_CACHE_DIR")
    if configured:
        return Path(configured).expanduser()
    if sys.platform == "darwin":
        return Path.home() / "Library" / "Caches" / "pinax"
    if sys.platform == "win32":
        local = os.environ.get("LOCALAPPDATA") or str(Path.home() / "AppData" / "Local")
        return Path(local) / "pinax" / "Cache"
    xdg = os.environ.get("XDG_CACHE_HOME")
    return (Path(xdg) if xdg else Path.home() / ".cache") / "pinax"


class PageCache:
    """Pages by URL; `get` says how old an entry is, the caller decides what fresh means."""

    def __init__(self, directory: Path, ttl: float = DEFAULT_TTL) -> None:
        self.directory = Path(directory)
        self.ttl = ttl
        self._cache: Any = None

    def _open(self) -> Any:
        if self._cache is None:
            import diskcache

            from pinax.pages.cache_disk import JsonOnlyDisk

            try:
                self._cache = diskcache.Cache(
                    str(self.directory / "pages"),
                    size_limit=SIZE_LIMIT,
                    timeout=2,
                    disk=JsonOnlyDisk,
                )
            except Exception as exc:  # diskcache raises sqlite3 and OS errors alike
                raise CacheError(f"cannot open the page cache in {self.directory}: {exc}") from exc
        return self._cache

    def get(self, key: str) -> tuple[dict[str, Any], float] | None:
        """(entry, age in seconds), or None when the key is not cached."""
        try:
            stored = self._open().get(key)
        except CacheError:
            raise
        except (zlib.error, ValueError):  # a corrupt entry: forget it, fetch again
            with contextlib.suppress(Exception):  # if that fails, the next put overwrites it
                self._open().delete(key)
            return None
        except Exception as exc:
            raise CacheError(f"cannot read the page cache: {exc}") from exc
        if not isinstance(stored, dict) or "entry" not in stored or "stored_at" not in stored:
            return None
        return stored["entry"], max(0.0, time.time() - stored["stored_at"])

    def is_fresh(self, age: float) -> bool:
        return age < self.ttl

    def put(self, key: str, entry: dict[str, Any]) -> None:
        try:
            self._open().set(key, {"entry": entry, "stored_at": time.time()})
        except CacheError:
            raise
        except Exception as exc:
            raise CacheError(f"cannot write the page cache: {exc}") from exc

    def close(self) -> None:
        if self._cache is not None:
            self._cache.close()
            self._cache = None
