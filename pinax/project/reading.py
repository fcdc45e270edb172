"""A project's files read as untrusted input: size-limited, never executed, and a file that
cannot be read is a warning that names it, never an exception.

Every parser here is the standard library's (`json`, `tomllib`) or PyYAML's safe loader, each
on at most `MAX_FILE_BYTES`; a file nested deeper than a parser can follow, not UTF-8, or not
its format is skipped with a warning. A missing file is simply absent.
"""

from __future__ import annotations

import json
import logging
import os
import tomllib
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from pinax.files import SpecialFile, open_regular

log = logging.getLogger("pinax.project")

MAX_FILE_BYTES = 20 * 1024 * 1024  # a lockfile of many thousand packages is a few MB
MAX_FOLDER_ENTRIES = 100_000  # a node_modules of 100,000 top-level packages is not a project


class Reading:
    """Reads files under one project folder and keeps the warnings it met, in order."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self._root_prefix = os.path.join(os.fspath(root), "")
        self.warnings: list[str] = []
        self._parsed: dict[tuple[str, str | Path], Any] = {}  # a file two readers need is read once

    def shown(self, path: str | Path) -> str:
        """A path as a warning names it: under the project folder, relative to it."""
        text, root = os.fspath(path), self._root_prefix
        return text[len(root) :] if text.startswith(root) else text

    def warn(self, path: str | Path, problem: str) -> None:
        message = f"{self.root / self.shown(path)}: {problem}"
        log.warning("%s", message)
        self.warnings.append(message)

    def data(self, path: str | Path, limit: int = MAX_FILE_BYTES) -> bytes | None:
        """The bytes of a regular file, `None` when absent or refused (with a warning)."""
        try:
            with open_regular(path, limit) as reader:
                # As many bytes as the file has, and one more to see it grow: a read of
                # `limit` would allocate the whole limit for every small file.
                size = os.fstat(reader.fileno()).st_size
                data = reader.read(size + 1)
                if len(data) > size:
                    data += reader.read(limit + 1 - len(data))
            if len(data) > limit:
                raise SpecialFile(f"grew past the {limit:,}-byte limit while read")
            return data
        except FileNotFoundError:
            return None
        except IsADirectoryError:
            self.warn(path, "a folder where a file was expected; skipped")
        except SpecialFile as problem:
            self.warn(path, f"skipped: {problem}")
        except OSError as problem:
            self.warn(path, f"cannot be read ({problem.strerror or problem}); skipped")
        return None

    def head(self, path: str | Path, size: int) -> bytes | None:
        """The first `size` bytes of a regular file of any length (`None` as `data`)."""
        try:
            with open_regular(path, limit=1 << 62) as reader:
                return reader.read(size)
        except FileNotFoundError:
            return None
        except (OSError, SpecialFile) as problem:
            self.warn(path, f"cannot be read ({problem}); skipped")
        return None

    def text(self, path: str | Path, limit: int = MAX_FILE_BYTES) -> str | None:
        """A file as UTF-8 text (a BOM dropped), `None` when absent, refused or not UTF-8."""
        data = self.data(path, limit)
        if data is None:
            return None
        try:
            return data.decode("utf-8-sig")
        except UnicodeDecodeError as problem:
            self.warn(path, f"not UTF-8 text (byte {problem.start}); skipped")
            return None

    def json(self, path: str | Path, comments: bool = False, limit: int = MAX_FILE_BYTES) -> Any:
        """A JSON file's value (JSONC with `comments`: `//`, `/* */`, trailing commas), or
        `None` with a warning naming the place."""
        if ("json", path) in self._parsed:
            return self._parsed["json", path]
        self._parsed["json", path] = value = self._json(path, comments, limit)
        return value

    def _json(self, path: str | Path, comments: bool, limit: int) -> Any:
        text = self.text(path, limit)
        if text is None:
            return None
        if comments:
            text = strip_jsonc(text)
        try:
            return json.loads(text)
        except json.JSONDecodeError as problem:
            self.warn(path, f"not JSON at line {problem.lineno} column {problem.colno}; skipped")
        except RecursionError:
            self.warn(path, "nested too deeply to read; skipped")
        return None

    def toml(self, path: Path) -> dict[str, Any] | None:
        if ("toml", path) not in self._parsed:
            self._parsed["toml", path] = self._toml(path)
        return self._parsed["toml", path]

    def _toml(self, path: Path) -> dict[str, Any] | None:
        text = self.text(path)
        if text is None:
            return None
        try:
            return tomllib.loads(text)
        except tomllib.TOMLDecodeError as problem:
            self.warn(path, f"not TOML ({problem}); skipped")
        except RecursionError:
            self.warn(path, "nested too deeply to read; skipped")
        return None

    def yaml(self, path: Path) -> Any:
        text = self.text(path)
        if text is None:
            return None
        import yaml  # only a pnpm project pays for it at start-up

        loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
        try:
            return yaml.load(text, Loader=loader)  # a safe loader: builds no objects
        except yaml.YAMLError as problem:
            mark = getattr(problem, "problem_mark", None)
            where = f" at line {mark.line + 1}" if mark is not None else ""
            self.warn(path, f"not YAML{where}; skipped")
        except RecursionError:
            self.warn(path, "nested too deeply to read; skipped")
        return None

    def entries(self, folder: str | Path) -> Iterator[os.DirEntry[str]]:
        """A folder's entries, at most `MAX_FOLDER_ENTRIES` (a warning past them); none when
        it is absent or unreadable."""
        try:
            scanner = os.scandir(folder)
        except FileNotFoundError:
            return
        except OSError as problem:
            if os.path.lexists(folder) and not os.path.isfile(folder):
                self.warn(folder, f"cannot be listed ({problem.strerror or problem}); skipped")
            return
        with scanner:
            for count, entry in enumerate(scanner):
                if count >= MAX_FOLDER_ENTRIES:
                    self.warn(folder, f"more than {MAX_FOLDER_ENTRIES:,} entries; the rest skipped")
                    return
                yield entry


def is_folder(entry: os.DirEntry[str]) -> bool:
    """Whether an entry is a folder, following a symlink; a loop or a dangling link is not."""
    try:
        return entry.is_dir()
    except OSError:
        return False


def strip_jsonc(text: str) -> str:
    """JSON with comments and trailing commas (bun.lock) as plain JSON, in one pass."""
    out: list[str] = []
    index, length = 0, len(text)
    start = 0
    pending_comma = -1  # where in `out` a comma waits to learn whether a `]` or `}` follows
    while index < length:
        char = text[index]
        if char == '"':
            end = index + 1
            while end < length and text[end] != '"':
                end += 2 if text[end] == "\\" else 1
            out.append(text[start:index])
            out.append(text[index : end + 1])
            index = start = end + 1
            pending_comma = -1
            continue
        if char == "/" and text.startswith("//", index):
            out.append(text[start:index])
            end = text.find("\n", index)
            index = start = length if end < 0 else end
            continue
        if char == "/" and text.startswith("/*", index):
            out.append(text[start:index])
            end = text.find("*/", index + 2)
            index = start = length if end < 0 else end + 2
            continue
        if char == ",":
            out.append(text[start:index])
            pending_comma = len(out)
            out.append(",")
            index = start = index + 1
            continue
        if char in "]}" and pending_comma >= 0:
            out[pending_comma] = ""
        if not char.isspace():
            pending_comma = -1
        index += 1
    out.append(text[start:])
    return "".join(out)
