"""The content file: each page's text by section, in a gzip'd JSON-lines companion of a manifest.

One line per page: `{"url", "fetched_at"?, "sections": [{"level", "heading", "anchor"?,
"text"}]}`; `sections[0]` is the text before the first heading (level 1, the page title),
`sections[1:]` follow the page's outline. The file comes from outside like a manifest does:
it is read as a stream, a line at a time, each line and the whole bounded (a gzip bomb stops
at the limit, not at the end of memory), and a bad line raises a `ManifestError` naming the
file and the line. Writing is atomic, so a reader never sees half a file.
"""

from __future__ import annotations

import gzip
import json
import os
import re
import tempfile
import zlib
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any, BinaryIO

from pinax import files
from pinax.errors import ManifestError
from pinax.files import SpecialFile

SUFFIX = ".content.jsonl.gz"
MAX_FILE_BYTES = 1 << 30  # compressed
MAX_TEXT_BYTES = 4 << 30  # decompressed: ~6 KB a page for 700,000 pages is a fifth of this
MAX_LINE_BYTES = 16 << 20  # one page's text
MAX_SECTIONS = 5001  # the lead and an outline's most headings
MAX_HEADING = 500
MAX_ANCHOR = 500
CONTENT_LEVELS = range(1, 7)
_DATE = re.compile(r"[0-9]{4}-[0-9]{2}-[0-9]{2}(?:[T ][0-9:.]{5,15}(?:Z|[+-][0-9:]{2,5})?)?")


@dataclass(frozen=True, slots=True)
class Section:
    level: int  # 1: the lead (the text before the first heading, headed by the page title)
    heading: str
    text: str
    anchor: str | None = None

    def to_dict(self) -> dict[str, Any]:
        entry: dict[str, Any] = {"level": self.level, "heading": self.heading}
        if self.anchor:
            entry["anchor"] = self.anchor
        entry["text"] = self.text
        return entry


@dataclass(frozen=True, slots=True)
class PageText:
    url: str
    sections: tuple[Section, ...]
    fetched_at: str | None = None

    def to_dict(self) -> dict[str, Any]:
        entry: dict[str, Any] = {"url": self.url}
        if self.fetched_at:
            entry["fetched_at"] = self.fetched_at
        entry["sections"] = [s.to_dict() for s in self.sections]
        return entry


def is_date(text: str) -> bool:
    """Whether `text` is an ISO 8601 date (and time) as a content file's `fetched_at` holds."""
    return bool(_DATE.fullmatch(text))


def companion(manifest: Path, declared: str | None = None) -> Path:
    """Where a manifest's content file is: the `content` field's relative path inside the
    manifest's folder (refused if it leads out), else `<stem>.content.jsonl.gz` beside it."""
    folder = manifest.parent
    if declared is None:
        stem = manifest.name[: -len(".json")] if manifest.name.endswith(".json") else manifest.name
        return folder / f"{stem}{SUFFIX}"
    path = Path(declared)
    if path.is_absolute() or ".." in path.parts or not declared.strip():
        raise ManifestError(
            str(manifest), "content", f"{declared[:200]!r} must be a path inside its folder"
        )
    return folder / path


def read(path: Path) -> Iterator[PageText]:
    """The pages of a content file, in file order. ManifestError (file and line) for a file
    that is not a regular one, not gzip, not UTF-8 JSON lines of the shape above, or past a
    limit; OSError as the system gives it."""
    source = str(path)
    try:
        raw = open_regular(path)
    except SpecialFile as exc:
        raise ManifestError(source, "", str(exc)) from None
    with raw, gzip.GzipFile(fileobj=raw, mode="rb") as lines:
        total = 0
        number = 0
        while True:
            number += 1
            try:
                line = lines.readline(MAX_LINE_BYTES + 1)
            except (OSError, EOFError, zlib.error) as exc:
                raise ManifestError(source, f"line {number}", f"not gzip data ({exc})") from None
            if not line:
                return
            total += len(line)
            if len(line) > MAX_LINE_BYTES:
                raise ManifestError(
                    source, f"line {number}", f"longer than {MAX_LINE_BYTES:,} bytes"
                )
            if total > MAX_TEXT_BYTES:
                raise ManifestError(
                    source, f"line {number}", f"more than {MAX_TEXT_BYTES:,} bytes of text"
                )
            if line.strip():
                yield _page(line, source, f"line {number}")


def write(path: Path, pages: Iterable[PageText]) -> None:
    """Write a content file atomically (a temporary file beside it, then renamed), with no
    time stamp in the gzip header, so the same pages give the same bytes."""
    folder = path.parent
    folder.mkdir(parents=True, exist_ok=True)
    handle, temporary = tempfile.mkstemp(prefix=f".{path.name}.", dir=folder)
    try:
        with (
            os.fdopen(handle, "wb") as out,
            gzip.GzipFile(filename="", mode="wb", fileobj=out, mtime=0) as packed,
        ):
            for page in pages:
                row = json.dumps(page.to_dict(), ensure_ascii=False, separators=(",", ":"))
                packed.write(row.encode() + b"\n")
        os.chmod(temporary, 0o644)
        os.replace(temporary, path)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise


def open_regular(path: Path) -> BinaryIO:
    """The content file opened as a stream (a regular file within the limit: see
    `pinax.files.open_regular`)."""
    return files.open_regular(path, MAX_FILE_BYTES)


def _page(line: bytes, source: str, place: str) -> PageText:
    try:
        data = json.loads(line.decode("utf-8"))
    except UnicodeDecodeError as exc:
        raise ManifestError(source, place, f"not UTF-8 ({exc.reason})") from None
    except (ValueError, RecursionError) as exc:
        raise ManifestError(source, place, f"not JSON ({str(exc)[:200]})") from None
    if not isinstance(data, dict):
        raise ManifestError(source, place, "expected an object")
    url = data.get("url")
    if not isinstance(url, str) or not url.strip() or len(url) > 8192:
        raise ManifestError(source, f"{place}: url", "expected a URL")
    fetched_at = data.get("fetched_at")
    if fetched_at is not None and (not isinstance(fetched_at, str) or not is_date(fetched_at)):
        raise ManifestError(source, f"{place}: fetched_at", "expected an ISO 8601 date")
    sections = data.get("sections")
    if not isinstance(sections, list):
        raise ManifestError(source, f"{place}: sections", "expected a list")
    if len(sections) > MAX_SECTIONS:
        raise ManifestError(source, f"{place}: sections", f"more than {MAX_SECTIONS} sections")
    return PageText(
        url,
        tuple(_section(s, source, f"{place}: sections[{i}]") for i, s in enumerate(sections)),
        fetched_at,
    )


def _section(entry: Any, source: str, place: str) -> Section:
    if not isinstance(entry, dict):
        raise ManifestError(source, place, "expected an object")
    level = entry.get("level")
    if type(level) is not int or level not in CONTENT_LEVELS:
        raise ManifestError(source, f"{place}.level", f"expected 1 to 6, found {level!r}")
    heading = entry.get("heading")
    if not isinstance(heading, str) or len(heading) > MAX_HEADING:
        raise ManifestError(
            source, f"{place}.heading", f"expected text of at most {MAX_HEADING} characters"
        )
    text = entry.get("text")
    if not isinstance(text, str):
        raise ManifestError(source, f"{place}.text", "expected text")
    anchor = entry.get("anchor")
    if anchor is not None and (
        not isinstance(anchor, str)
        or not 0 < len(anchor) <= MAX_ANCHOR
        or any(c.isspace() or c == "#" for c in anchor)
    ):
        raise ManifestError(source, f"{place}.anchor", "not an anchor (no whitespace or '#')")
    return Section(level, heading.strip(), text, anchor)
