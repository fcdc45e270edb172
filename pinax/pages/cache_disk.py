"""How page-cache entries lie on disk: JSON only, read only from regular files inside the
cache folder, and nothing left behind by a failed write.

Everything in the cache folder is untrusted input (anyone who can write it can plant rows and
files). diskcache unpickles any entry whose row says it is pickled, whatever `Disk` class
wrote the rest; here a pickled entry (planted, or left by an older Pinax) is refused. diskcache
joins the value file's name from the database to the folder as it is, to read it and to delete
it; here a name that leads outside the folder (`../`, an absolute path, a symlink) is refused
and never deleted, and only a regular file is read (a FIFO would block the reader forever, a
device would never end), and never past `MAX_VALUE_BYTES`. A refused entry raises
`UnsafeEntry`. And diskcache leaves the half-written value file of a write that failed (a full
disk) where nothing will ever delete it; here it is removed.
"""

from __future__ import annotations

import contextlib
import io
import json
import logging
import os
import stat
import zlib
from typing import Any

from diskcache import JSONDisk
from diskcache.core import MODE_BINARY, MODE_PICKLE, MODE_TEXT

from pinax.errors import CacheError
from pinax.files import SpecialFile, read_regular

MAX_VALUE_BYTES = 64 << 20  # a page is at most 10 MiB of text before compression

log = logging.getLogger("pinax.pages")


class UnsafeEntry(CacheError, ValueError):
    """Raised when a cache row points outside the folder, at a special file, or at too much
    (the folder was tampered with). A `CacheError` for the tree; still a `ValueError` because
    the cache's readers count a damaged entry by `ValueError` (`cache.DAMAGED`): pruning
    treats a refused entry as infinitely old and deletes it, as before."""


class JsonOnlyDisk(JSONDisk):
    def fetch(self, mode: int, filename: str | None, value: Any, read: bool) -> Any:
        if mode == MODE_PICKLE:
            raise ValueError("a pickled page-cache entry; refused")
        if mode in (MODE_BINARY, MODE_TEXT):
            data = _read_regular(self._inside(filename))
            if read:
                return io.BytesIO(data)
            return json.loads(zlib.decompress(data).decode("utf-8"))
        return super().fetch(mode, filename, value, read)

    def remove(self, file_path: str) -> None:
        try:
            full = self._inside(file_path)
            if not stat.S_ISREG(os.lstat(full).st_mode):
                raise UnsafeEntry(f"{file_path!r} is not a regular file")
        except (UnsafeEntry, OSError) as exc:
            log.warning("left a page-cache value file alone: %s", exc)
            return
        super().remove(file_path)

    def _inside(self, filename: Any) -> str:
        """The value file's real path, which must lie inside the cache folder."""
        if not isinstance(filename, str) or not filename or "\0" in filename:
            raise UnsafeEntry(f"a page-cache value file named {filename!r}; refused")
        root = os.path.realpath(self._directory)
        full = os.path.realpath(os.path.join(root, filename))
        if full == root or os.path.commonpath([root, full]) != root:
            raise UnsafeEntry(f"a page-cache value file outside the cache folder ({filename!r})")
        return full

    def _write(self, full_path: str, iterator: Any, mode: str, encoding: str | None = None) -> Any:
        try:
            return super()._write(full_path, iterator, mode, encoding)
        except OSError:
            with contextlib.suppress(OSError):
                os.remove(full_path)
            raise


def _read_regular(path: str) -> bytes:
    """A value file's bytes: a regular file, not followed through a symlink, opened without
    blocking (a FIFO), never more than MAX_VALUE_BYTES."""
    try:
        return read_regular(path, MAX_VALUE_BYTES, follow_links=False)
    except (SpecialFile, IsADirectoryError) as exc:
        raise UnsafeEntry(f"{path}: {exc}") from None
