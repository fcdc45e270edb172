"""Putting a built manifest in place: compared with the one already there, written atomically.

`check`: compare only, never write (CI: exit 1 when the manifest is out of date). Otherwise
write, unless more than `max_removed` of the pages disappeared (refused, exit 3): a refresh
must never silently lose half a site. With `--content` the page texts go to the content file
beside the manifest (`<stem>.content.jsonl.gz`), compared and written with it (see
companion.py for the order of the two writes).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from pinax import manifest as manifest_io
from pinax.errors import PinaxError
from pinax.manifest import Manifest, PageText, companion_path

from . import companion
from .diff import ManifestDiff, compare
from .output import write_atomic
from .report import Reporter, count_pages

CHANGED = 1  # --check: the manifest on disk is out of date
REFUSED = 3  # too many pages disappeared; nothing written


@dataclass
class Outcome:
    exit_code: int
    written: bool
    diff: ManifestDiff | None


def publish(
    built: Manifest,
    path: Path,
    check: bool,
    max_removed: float,
    reporter: Reporter,
    texts: list[PageText] | None = None,
    previous_texts: Mapping[str, PageText] | None = None,
) -> Outcome:
    """Compare with the manifest at `path` and write (or, `check`, only compare); `texts`
    (`--content`) go to its content file, compared with `previous_texts` (read from the
    file when not given: the build may hold them already) and written with it."""
    previous = _previous(path, check, reporter)
    diff = compare(previous, built) if previous is not None else None
    if diff is not None and not diff.empty:
        report = diff.report(max_removed)
        (reporter.warn if diff.too_many_removed(max_removed) else reporter.note)(report)
    target = companion_path(path)
    text_diff = None
    if texts is not None:
        if previous_texts is None:
            previous_texts = companion.previous_texts(path, reporter)
        text_diff = companion.compare(previous_texts, texts)
        if not text_diff.empty and target.exists():
            reporter.note(text_diff.report(target))
    texts_changed = text_diff is not None and (not text_diff.empty or not target.exists())
    if check:
        if previous is None:
            reporter.warn(f"{path} does not exist yet")
            return Outcome(CHANGED, False, None)
        if texts_changed and not target.exists():
            reporter.warn(f"{target} does not exist yet")
        up_to_date = diff is not None and diff.empty and not texts_changed
        if up_to_date:
            also = f" and {target.name} are" if texts is not None else " is"
            reporter.note(f"{path}{also} up to date ({count_pages(len(built.pages))})")
        return Outcome(0 if up_to_date else CHANGED, False, diff)
    if diff is not None and diff.too_many_removed(max_removed):
        reporter.warn(
            f"not writing {path}: raise --max-removed (now {max_removed:g}) to accept the loss"
        )
        return Outcome(REFUSED, False, diff)
    text = manifest_io.dump(built)
    same = diff is not None and diff.empty and _same_text(path, text)
    if same and not texts_changed:
        also = f" and {target.name} are" if texts is not None else " is"
        reporter.note(f"{path}{also} unchanged ({count_pages(len(built.pages))})")
        return Outcome(0, False, diff)
    staged = companion.stage(target, texts) if texts is not None and texts_changed else None
    try:
        if not same:
            write_atomic(path, text)
    except BaseException:
        if staged is not None:
            staged.unlink(missing_ok=True)
        raise
    if staged is not None:
        companion.put_in_place(staged, target)
        reporter.note(f"wrote {target}: the text of {count_pages(len(texts or ()))}")
    if not same:
        reporter.note(f"wrote {path}: {count_pages(len(built.pages))}")
    return Outcome(0, True, diff)


def _previous(path: Path, check: bool, reporter: Reporter) -> Manifest | None:
    if not path.exists():
        return None
    try:
        return manifest_io.load(path)
    except PinaxError as exc:
        if check:
            raise
        reporter.warn(f"the existing {path} does not load ({exc.message}); replacing it")
        return None


def _same_text(path: Path, text: str) -> bool:
    try:
        return path.read_text(encoding="utf-8") == text
    except OSError:
        return False
