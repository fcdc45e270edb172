"""The project folders an MCP client's roots name.

A client that declares the roots capability lists `file://` URIs (the folders the user opened);
each one that is a local folder is a project. Anything else (another scheme, a remote host, a
relative or missing path, a NUL) is skipped with a warning naming the root: a root is the
client's word, not the user's, and is checked like any other input.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from pathlib import Path
from urllib.parse import unquote, urlsplit

MAX_ROOTS = 64  # more roots than any editor opens at once
MAX_URI_CHARS = 4096  # PATH_MAX on Linux


def folders_from_roots(uris: Iterable[object]) -> tuple[list[Path], list[str]]:
    """The local folders the root URIs name, once each and in order, and a warning per root
    that names none."""
    folders: list[Path] = []
    warnings: list[str] = []
    for index, uri in enumerate(uris):
        if index >= MAX_ROOTS:
            warnings.append(f"more than {MAX_ROOTS} roots; the rest skipped")
            break
        folder, problem = _folder(uri)
        if problem:
            warnings.append(f"root {str(uri)[:200]!r}: {problem}; skipped")
        elif folder not in folders:
            folders.append(folder)
    return folders, warnings


def _folder(uri: object) -> tuple[Path, str | None]:
    if not isinstance(uri, str) or len(uri) > MAX_URI_CHARS:
        return Path(), "not a URI of at most 4,096 characters"
    parts = urlsplit(uri)
    if parts.scheme.lower() != "file":
        return Path(), "not a file:// URI"
    if parts.netloc not in ("", "localhost"):
        return Path(), f"on another host ({parts.netloc[:60]})"
    path = unquote(parts.path)
    if "\x00" in path or not path.startswith("/"):
        return Path(), "not an absolute path"
    folder = Path(os.path.normpath(path))
    try:
        if not folder.is_dir():
            return folder, "not a folder here"
    except OSError as problem:
        return folder, f"cannot be read ({problem.strerror or problem})"
    return folder, None
