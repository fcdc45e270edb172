"""The on-disk index: a manifest's page table and search index in one memory-mapped file.

`<cache>/indexes/<content hash>.pxi` holds named numpy arrays, then a JSON header saying where
each one lies (so a builder can write and free the arrays one by one). Opening it
maps the file and wraps each array without reading it, so a restart with a million pages takes
milliseconds and the serving process keeps in memory only the pages of the file it touches.
The file is keyed by a hash of the manifest's bytes (and the format version): a changed
manifest gets a new index. To avoid hashing a large manifest at every start, a small record per
manifest path remembers the hash together with the file's size, inode and modification times.

Files are written to a temporary name and renamed into place, so a reader sees a whole file
or none, and two processes starting at once simply both write the same file. A file that
fails its checks (truncated, garbled, another format) is reported and rebuilt.
"""

from __future__ import annotations

import hashlib
import json
import logging
import mmap
import os
import struct
import tempfile
from pathlib import Path
from typing import Any

import numpy as np

from pinax.errors import InternalError

log = logging.getLogger("pinax.search")

MAGIC = b"PINAXIDX"
TRAILER = b"PINAXEND"
FORMAT = 2  # 2: top_sections count the root entry whole, and pages outside it apart
ALIGN = 64
_LENGTH = struct.Struct("<Q")


class StoreError(InternalError):
    """Raised when an on-disk index file cannot be used: short, truncated, of another format
    or garbled. Callers rebuild the index (or serve without content), never show it."""


def content_hash(raw: bytes, version: str) -> str:
    """A manifest's key: SHA-256 (which CPUs compute in hardware: 1 GB/s and more) of the
    version and the bytes, shortened to 128 bits."""
    digest = hashlib.sha256(version.encode() + b"\0")
    digest.update(raw)
    return digest.hexdigest()[:32]


class Writer:
    """Writes an index file array by array (each can be freed once written), then its
    header, under a temporary name; `commit` renames it into place."""

    def __init__(self, path: Path) -> None:
        self.path = path
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, self._temporary = tempfile.mkstemp(
            prefix=path.name + ".", suffix=".tmp", dir=path.parent
        )
        self._out = os.fdopen(fd, "wb")
        self._out.write(MAGIC)
        self._entries: dict[str, dict[str, Any]] = {}

    def add(self, name: str, array: np.ndarray) -> None:
        array = np.ascontiguousarray(array)
        self._out.write(b"\0" * (_aligned(self._out.tell()) - self._out.tell()))
        offset = self._out.tell()
        self._out.write(memoryview(array).cast("B") if array.nbytes else b"")
        shape = list(array.shape)
        self._entries[name] = {"dtype": array.dtype.str, "shape": shape, "offset": offset}

    def commit(self, meta: dict[str, Any]) -> None:
        header = json.dumps({"format": FORMAT, "meta": meta, "arrays": self._entries}).encode()
        self._out.write(header + _LENGTH.pack(len(header)) + TRAILER)
        self._out.close()
        os.replace(self._temporary, self.path)

    def abort(self) -> None:
        self._out.close()
        Path(self._temporary).unlink(missing_ok=True)


def save(path: Path, arrays: dict[str, np.ndarray], meta: dict[str, Any]) -> None:
    """Write arrays and metadata to `path` atomically (temporary file, then rename)."""
    writer = Writer(path)
    try:
        for name, array in arrays.items():
            writer.add(name, array)
        writer.commit(meta)
    except BaseException:
        writer.abort()
        raise


def load(path: Path) -> tuple[dict[str, np.ndarray], dict[str, Any]]:
    """Map an index file: its arrays (views of the mapping) and metadata."""
    tail = _LENGTH.size + len(TRAILER)
    try:
        with open(path, "rb") as file:
            size = os.fstat(file.fileno()).st_size
            if size < len(MAGIC) + tail:
                raise StoreError("too short")
            mapped = mmap.mmap(file.fileno(), 0, access=mmap.ACCESS_READ)
        if hasattr(mapped, "madvise") and hasattr(mmap, "MADV_RANDOM"):
            # Lookups jump around: read no more than the pages they touch.
            mapped.madvise(mmap.MADV_RANDOM)
    except OSError as exc:
        raise StoreError(f"cannot read: {exc.strerror or exc}") from None
    if mapped[: len(MAGIC)] != MAGIC:
        raise StoreError("not a Pinax index file")
    if mapped[size - len(TRAILER) :] != TRAILER:
        raise StoreError("truncated (no trailer)")
    (length,) = _LENGTH.unpack_from(mapped, size - tail)
    header_start = size - tail - length
    if header_start < len(MAGIC):
        raise StoreError("header runs past the start")
    try:
        header = json.loads(mapped[header_start : size - tail])
        if header["format"] != FORMAT:
            raise StoreError(f"format {header['format']} (expected {FORMAT})")
        arrays = {}
        for name, entry in header["arrays"].items():
            dtype = np.dtype(entry["dtype"])
            shape = tuple(entry["shape"])
            count = int(np.prod(shape, dtype=np.int64))
            first = int(entry["offset"])
            if first < len(MAGIC) or first + count * dtype.itemsize > header_start:
                raise StoreError(f"array {name!r} lies outside the data")
            arrays[name] = np.frombuffer(mapped, dtype, count, first).reshape(shape)
        return arrays, header["meta"]
    except (KeyError, TypeError, ValueError) as exc:
        raise StoreError(f"bad header ({exc})") from None


def prefetch(path: Path, chunk: int = 1 << 20) -> None:
    """Read a file through once, so the kernel's page cache holds it and the first lookups in
    its mapping do not wait on the disk (the kernel's own read-ahead hint reads only a few
    MB). The pages land in the page cache, not in this process's memory."""
    buffer = bytearray(chunk)
    try:
        with open(path, "rb", buffering=0) as file:
            while file.readinto(buffer):
                pass
    except OSError as exc:
        log.debug("cannot prefetch %s: %s", path, exc)


def _aligned(n: int) -> int:
    return (n + ALIGN - 1) // ALIGN * ALIGN


class IndexCache:
    """Index files in a folder, keyed by manifest content, found fast by manifest path."""

    def __init__(self, folder: Path, version: str) -> None:
        self.folder = Path(folder)
        self.version = version

    def index_path(self, digest: str) -> Path:
        return self.folder / f"{digest}.pxi"

    def index_for(self, raw: bytes) -> Path:
        """Where the index of a manifest with these bytes is (whatever its path)."""
        return self.index_path(content_hash(raw, self.version))

    def known_hash(self, manifest: Path) -> str | None:
        """The content hash recorded for this manifest file, if the file is unchanged since
        and the hash was made for this cache's version (index format, embedding model)."""
        saved = self._record(manifest)
        if not saved or saved.get("version") != self.version:
            return None
        return saved["hash"] if saved.get("stat") == signature(manifest) else None

    def recorded_hash(self, manifest: Path) -> str | None:
        """The content hash last recorded for this manifest file, changed since or not."""
        saved = self._record(manifest)
        return saved.get("hash") if saved else None

    def _record(self, manifest: Path) -> dict[str, Any] | None:
        try:
            saved = json.loads(self._record_path(manifest).read_text())
        except (OSError, ValueError):
            return None
        return saved if isinstance(saved, dict) else None

    def remember(self, manifest: Path, digest: str, signature: list[int]) -> None:
        record = self._record_path(manifest)
        data = {"path": str(manifest), "stat": signature, "hash": digest, "version": self.version}
        try:
            record.parent.mkdir(parents=True, exist_ok=True)
            fd, temporary = tempfile.mkstemp(
                prefix=record.name + ".", suffix=".tmp", dir=record.parent
            )
            with os.fdopen(fd, "w") as out:
                json.dump(data, out)
            os.replace(temporary, record)
        except OSError as exc:
            log.warning("cannot write %s: %s", record, exc)

    def _record_path(self, manifest: Path) -> Path:
        key = hashlib.blake2b(str(manifest.resolve()).encode(), digest_size=12).hexdigest()
        return self.folder / f"{key}.stat.json"


def signature(path: Path) -> list[int]:
    """What changes when a file is rewritten: size, modification and change times, inode."""
    st = os.stat(path)
    return [st.st_size, st.st_mtime_ns, st.st_ctime_ns, st.st_ino]
