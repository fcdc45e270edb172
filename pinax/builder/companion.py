"""A manifest's content file as a build sees it: the last build's text to reuse, what a
rebuild changed (`--check`), and writing it beside the manifest.

Why its own module: publishing puts two files in place, and each must be whole. The content
file is written to a temporary name first, then the manifest (atomically, as always), then
the content file is renamed into place: a failure before the last step leaves both old files
as they were, and the two renames follow each other at once. A reader that catches the
moment between them sees a new manifest beside the old text, which it tolerates (pages it
does not know are skipped, sections that disagree with the outline are used as they are).
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path

from pinax.errors import InvalidArgs, PinaxError
from pinax.manifest import PageText, companion_path, read_page_texts, write_page_texts

from .diff import SHOWN
from .report import Reporter


def previous_texts(manifest: Path, reporter: Reporter | None = None) -> dict[str, PageText]:
    """The text of the last build by page URL, from the content file beside `manifest`;
    empty when there is none, or when it does not read (said once: the build then reads
    every page whole)."""
    path = companion_path(manifest)
    try:
        return {page.url: page for page in read_page_texts(path)}
    except FileNotFoundError:
        return {}
    except (OSError, PinaxError) as exc:
        if reporter is not None:
            message = exc.message if isinstance(exc, PinaxError) else str(exc)
            reporter.warn(f"the existing {path} does not read ({message}); replacing it")
        return {}


@dataclass
class TextDiff:
    """Pages whose text a rebuild adds, drops or changes (`fetched_at` alone is no change)."""

    added: list[str] = field(default_factory=list)
    removed: list[str] = field(default_factory=list)
    changed: list[str] = field(default_factory=list)

    @property
    def empty(self) -> bool:
        return not (self.added or self.removed or self.changed)

    def report(self, path: Path) -> str:
        lines = [
            f"{path}: text of {len(self.added)} pages added, {len(self.removed)} removed, "
            f"{len(self.changed)} changed"
        ]
        for mark, urls in (("+", self.added), ("-", self.removed), ("*", self.changed)):
            lines += [f"  {mark} {url}" for url in urls[:SHOWN]]
            if len(urls) > SHOWN:
                lines.append(f"  {mark} ... and {len(urls) - SHOWN} more")
        return "\n".join(lines)


def compare(old: Mapping[str, PageText], new: Iterable[PageText]) -> TextDiff:
    diff = TextDiff()
    seen = set()
    for page in new:
        seen.add(page.url)
        before = old.get(page.url)
        if before is None:
            diff.added.append(page.url)
        elif before.sections != page.sections:
            diff.changed.append(page.url)
    diff.removed = [url for url in old if url not in seen]
    return diff


def stage(target: Path, texts: list[PageText]) -> Path:
    """The content file written whole under a temporary name beside `target`, for
    `put_in_place` to rename once the manifest is written."""
    folder = target.parent if str(target.parent) else Path(".")
    staged: Path | None = None
    try:
        folder.mkdir(parents=True, exist_ok=True)
        fd, name = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".staged", dir=folder)
        os.close(fd)
        staged = Path(name)
        write_page_texts(staged, texts)
    except BaseException as exc:
        if staged is not None:
            staged.unlink(missing_ok=True)
        if isinstance(exc, OSError):
            raise InvalidArgs(f"cannot write {target}: {exc.strerror or exc}") from None
        raise
    return staged


def put_in_place(staged: Path, target: Path) -> None:
    try:
        os.replace(staged, target)
    except OSError as exc:
        staged.unlink(missing_ok=True)
        raise InvalidArgs(f"cannot write {target}: {exc.strerror or exc}") from None
