"""Local files read as untrusted input: a FIFO would block a read forever, a device never
ends, and a file may grow while read. Manifests, the page cache's value files and the
builder's local sources all come through here."""

from __future__ import annotations

import os
import stat
from pathlib import Path
from typing import BinaryIO

from pinax.errors import InvalidArgs


class SpecialFile(InvalidArgs, ValueError):
    """Raised by `open_regular`/`read_regular` for a file that is not a regular one (a FIFO, a
    device, a socket, a symlink where none is followed) or past the size limit: an input the
    caller must change. Every caller catches it at the call and says which file; it stays a
    `ValueError` so the readers that catch `ValueError` for any bad input (the reST include
    and conf readers, the content index loader) keep treating it as one."""


def open_regular(path: str | Path, limit: int, follow_links: bool = True) -> BinaryIO:
    """A regular file opened for reading, refused at once when it is a FIFO (reading would
    wait for a writer forever), a device (`/dev/zero` never ends) or bigger than `limit`
    bytes: opened without blocking (and, unless `follow_links`, without following a
    symlink), checked with fstat. IsADirectoryError for a folder. The caller reads it as a
    stream, no further than the limit."""
    flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0)
    if not follow_links:
        flags |= getattr(os, "O_NOFOLLOW", 0)
    fd = os.open(path, flags)
    try:
        info = os.fstat(fd)
        if stat.S_ISDIR(info.st_mode):
            raise IsADirectoryError(21, "Is a directory", str(path))
        if not stat.S_ISREG(info.st_mode):
            raise SpecialFile("not a regular file (a FIFO, device or socket); refused")
        if info.st_size > limit:
            raise SpecialFile(f"{info.st_size:,} bytes, over the {limit:,}-byte limit")
    except BaseException:
        os.close(fd)
        raise
    return os.fdopen(fd, "rb")


def read_regular(path: str | Path, limit: int, follow_links: bool = True) -> bytes:
    """A regular file's bytes (see `open_regular`), never read past the limit."""
    with open_regular(path, limit, follow_links) as reader:
        data = reader.read(limit + 1)
    if len(data) > limit:
        raise SpecialFile(f"grew past the {limit:,}-byte limit while read")
    return data
