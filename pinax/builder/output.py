"""Writing a manifest: all or nothing (a temporary file beside the target, then a rename)."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

from pinax.errors import InvalidArgs


def write_atomic(path: Path, text: str) -> None:
    """Replace `path` with `text` in one step; on any failure the old file stays untouched."""
    folder = path.parent if str(path.parent) else Path(".")
    try:
        folder.mkdir(parents=True, exist_ok=True)
        fd, temporary = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=folder)
    except OSError as exc:
        raise InvalidArgs(f"cannot write {path}: {exc.strerror or exc}") from None
    try:
        with os.fdopen(fd, "w", encoding="utf-8", newline="\n") as handle:
            handle.write(text)
            handle.flush()
            os.fsync(handle.fileno())
        os.chmod(temporary, 0o644)
        os.replace(temporary, path)
    except BaseException as exc:
        Path(temporary).unlink(missing_ok=True)
        if isinstance(exc, OSError):
            raise InvalidArgs(f"cannot write {path}: {exc.strerror or exc}") from None
        raise
