"""A TTL disk cache for fetched pages (diskcache), shared safely between processes.

Entries are kept past their TTL (until diskcache's size limit evicts them) so an expired copy
can still be revalidated or served when the site is down; freshness is decided by the caller,
from the age `get` reports. Values are stored as compressed JSON, never pickles (see
cache_disk.py), so a tampered or damaged cache folder can at worst lose pages, never run code;
an entry that cannot be read is dropped and reported as a miss.
"""

from __future__ import annotations

import logging
import os
import sys
import time
import zlib
from pathlib import Path
from typing import Any

from pinax.errors import CacheError

DEFAULT_TTL = 24 * 3600.0
SIZE_LIMIT = 1 << 30  # 1 GiB, least recently stored entries evicted first
FOLDER = "pages-v2"  # v2: JSON values (v1 held pickles)

# What reading one damaged value raises (bad zlib/JSON/UTF-8, a value file gone or unreadable);
# anything else is the database itself failing.
DAMAGED = (ValueError, zlib.error, OSError)

log = logging.getLogger("pinax.pages")


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
                    str(self.directory / FOLDER),
                    size_limit=SIZE_LIMIT,
                    timeout=2,
                    disk=JsonOnlyDisk,
                )
            except Exception as exc:  # diskcache raises sqlite3 and OS errors alike
                raise CacheError(f"cannot open the page cache in {self.directory}: {exc}") from exc
        return self._cache

    def get(self, key: str) -> tuple[dict[str, Any], float] | None:
        """(entry, age in seconds), or None when the key is not cached or its entry is damaged.

        Raises `CacheError` when the cache as a whole cannot be used, or when the entry was
        tampered with (it points outside the folder or at a special file; it is dropped).
        """
        from pinax.pages.cache_disk import UnsafeEntry

        cache = self._open()
        try:
            stored = cache.get(key)
        except UnsafeEntry as exc:  # tampered with: dropped, and said (cache_error)
            self._drop(key)
            raise CacheError(f"refused and dropped the cache entry for {key}: {exc}") from None
        except DAMAGED as exc:
            stored = exc
        except Exception as exc:  # the database itself: locked, malformed, gone
            raise CacheError(f"cannot read the page cache: {exc}") from exc
        if stored is None:
            return None
        if not _well_formed(stored):
            log.warning("dropped a damaged cache entry for %s (%s)", key, _describe(stored))
            self._drop(key)
            return None
        return stored["entry"], max(0.0, time.time() - stored["stored_at"])

    def put(self, key: str, entry: dict[str, Any], age: float = 0.0) -> None:
        """Store `entry`, as old as `age` seconds (a copy from the shared cache keeps its age)."""
        try:
            self._open().set(key, {"entry": entry, "stored_at": time.time() - age})
        except CacheError:
            raise
        except Exception as exc:
            raise CacheError(f"cannot write the page cache: {exc}") from exc

    def stats(self) -> dict[str, Any]:
        """Entries, bytes on disk and the ages (seconds) of the oldest and newest entry. A cache
        never written to is reported empty and left uncreated (looking must not make one)."""
        if not (self.directory / FOLDER).is_dir():
            ages: list[float] = []
            volume = 0
        else:
            cache = self._open()
            ages = [age for _, age in self._ages(cache)]
            volume = cache.volume() if ages else 0  # an empty database is not cached pages
        readable = [age for age in ages if age != float("inf")]
        return {
            "directory": str(self.directory / FOLDER),
            "entries": len(ages),
            "damaged": len(ages) - len(readable),
            "bytes": volume,
            "oldest_age": round(max(readable)) if readable else None,
            "newest_age": round(min(readable)) if readable else None,
        }

    def clear(self, older_than: float | None = None) -> int:
        """Remove every entry, or those stored more than `older_than` seconds ago; say how many."""
        if not (self.directory / FOLDER).is_dir():
            return 0
        cache = self._open()
        if older_than is None:
            return cache.clear()
        removed = 0
        for key, age in list(self._ages(cache)):
            if age > older_than and cache.delete(key):
                removed += 1
        return removed

    def _ages(self, cache: Any):
        """(key, age) of every readable entry; damaged ones count as infinitely old."""
        now = time.time()
        for key in cache.iterkeys():
            try:
                stored = cache.get(key)
            except DAMAGED as exc:
                stored = exc
            if stored is not None:
                yield key, now - stored["stored_at"] if _well_formed(stored) else float("inf")

    def _drop(self, key: str) -> bool:
        try:
            self._open().delete(key)
            return True
        except Exception:
            return False

    def close(self) -> None:
        if self._cache is not None:
            self._cache.close()
            self._cache = None


def _describe(stored: Any) -> str:
    return str(stored) if isinstance(stored, Exception) else f"unexpected {type(stored).__name__}"


def _well_formed(stored: Any) -> bool:
    return (
        isinstance(stored, dict)
        and isinstance(stored.get("entry"), dict)
        and isinstance(stored.get("stored_at"), int | float)
    )
