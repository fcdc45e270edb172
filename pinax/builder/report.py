"""How a build tells its user what it did: notes, warnings and progress.

The build never prints: it reports here. The CLI shows reports on stderr (stdout may be the
MCP channel or the manifest itself); tests read them back from `notes` and `warnings`.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager


def count_pages(count: int) -> str:
    """`1 page`, `2 pages`: what a build reports most."""
    return f"{count} page{'' if count == 1 else 's'}"


class Progress:
    """One running count of fetched URLs; the base class counts silently."""

    def __init__(self, total: int | None) -> None:
        self.total = total
        self.done = 0

    def advance(self, count: int = 1) -> None:
        self.done += count

    def set_total(self, total: int | None) -> None:
        self.total = total


class Reporter:
    """Collects what a build says; subclasses also show it."""

    def __init__(self) -> None:
        self.notes: list[str] = []
        self.warnings: list[str] = []

    def note(self, message: str) -> None:
        self.notes.append(message)

    def warn(self, message: str) -> None:
        self.warnings.append(message)

    @contextmanager
    def progress(self, label: str, total: int | None) -> Iterator[Progress]:
        yield Progress(total)
