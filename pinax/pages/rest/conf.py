"""The few settings of a Sphinx `conf.py` that change how its pages read: `rst_prolog` and
`rst_epilog` (text Sphinx adds to every page: Django defines its mailing lists there),
`version` / `release` (the `|version|` and `|release|` substitutions), `highlight_language`
(the language of `::` blocks), `extlinks` (what `:issue:`5730`` shows: `#5730`). Read as
literals with the standard library's `ast`: a value
that is not a plain string is not known, and nothing in the file is run.
"""

from __future__ import annotations

import ast
import os
import threading
from pathlib import Path
from typing import Any

from pinax.files import SpecialFile, read_regular

MAX_CONF_BYTES = 512 * 1024
WANTED = frozenset({"rst_prolog", "rst_epilog", "version", "release", "highlight_language"})
MAX_EXTLINKS = 200
_known: dict[tuple[str, int, int], dict[str, Any]] = {}
_lock = threading.Lock()


def settings(folder: Path | None) -> dict[str, Any]:
    """The wanted settings of `folder/conf.py` that are string literals ({} without one),
    and `extlinks` as {role: caption pattern}."""
    if folder is None:
        return {}
    path = folder / "conf.py"
    try:
        info = os.stat(path)
    except (OSError, ValueError):
        return {}
    key = (str(path), info.st_size, info.st_mtime_ns)
    with _lock:
        found = _known.get(key)
    if found is None:
        found = _read(path)
        with _lock:
            if len(_known) > 256:
                _known.clear()
            _known[key] = found
    return found


def _read(path: Path) -> dict[str, Any]:
    try:
        tree = ast.parse(read_regular(path, MAX_CONF_BYTES).decode("utf-8", errors="replace"))
    except (OSError, SpecialFile, SyntaxError, ValueError, RecursionError, MemoryError):
        return {}
    found: dict[str, Any] = {}
    for statement in tree.body:
        if not isinstance(statement, ast.Assign) or len(statement.targets) != 1:
            continue
        target, value = statement.targets[0], statement.value
        if isinstance(target, ast.Name) and target.id == "extlinks":
            found["extlinks"] = _extlinks(value)
        elif isinstance(target, ast.Name) and target.id in WANTED:
            if isinstance(value, ast.Constant) and isinstance(value.value, str):
                found[target.id] = value.value
            else:
                found.pop(target.id, None)  # set by code: not known
    return found


def _extlinks(value: ast.expr) -> dict[str, str]:
    """`{"issue": ("https://.../%s", "#%s")}` as {"issue": "#%s"} (a caption of None: the
    URL pattern, as Sphinx shows it)."""
    try:
        table = ast.literal_eval(value)
    except (ValueError, TypeError, SyntaxError, RecursionError, MemoryError):
        return {}
    found: dict[str, str] = {}
    if not isinstance(table, dict):
        return found
    for role, pair in list(table.items())[:MAX_EXTLINKS]:
        if isinstance(role, str) and isinstance(pair, tuple | list) and len(pair) == 2:
            caption = pair[1] if isinstance(pair[1], str) else pair[0]
            if isinstance(caption, str) and caption.count("%s") == 1:
                found[role.lower()] = caption
    return found


def wrapped(text: str, found: dict[str, Any]) -> str:
    """A page's text as Sphinx parses it: the prolog before, the epilog and the version
    substitutions after (a page's own definition of them comes first and wins)."""
    version = found.get("version", "")
    release = found.get("release", version)
    tail = [
        "",
        found.get("rst_epilog", ""),
        "",
        f".. |version| replace:: {version}" if version else ".. |version| unicode:: U+200B",
        f".. |release| replace:: {release}" if release else ".. |release| unicode:: U+200B",
        ".. |today| unicode:: U+200B",
        "",
    ]
    prolog = found.get("rst_prolog", "")
    return (prolog + "\n\n" if prolog else "") + text + "\n".join(tail)
