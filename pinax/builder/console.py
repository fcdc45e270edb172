"""Build reports on stderr (rich): notes dimmed, warnings in yellow, a progress bar once a
step has more than a handful of URLs to fetch. Never stdout: it carries the manifest or the
MCP protocol."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from rich.console import Console
from rich.markup import escape
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    TextColumn,
    TimeElapsedColumn,
    TimeRemainingColumn,
)
from rich.progress import Progress as RichProgress

from .report import Progress, Reporter

HANDFUL = 5


class ConsoleReporter(Reporter):
    def __init__(self, quiet: bool = False, console: Console | None = None) -> None:
        super().__init__()
        self.quiet = quiet
        self.console = console or Console(stderr=True, highlight=False, soft_wrap=True)

    def note(self, message: str) -> None:
        super().note(message)
        if not self.quiet:
            self.console.print(f"[dim]{escape(message)}[/dim]")

    def warn(self, message: str) -> None:
        super().warn(message)
        self.console.print(f"[yellow]warning:[/yellow] {escape(message)}")

    @contextmanager
    def progress(self, label: str, total: int | None) -> Iterator[Progress]:
        if self.quiet:
            yield Progress(total)
            return
        bar = _Bar(label, total, self.console)
        try:
            yield bar
        finally:
            bar.stop()


class _Bar(Progress):
    """Drawn only once there is more than a handful to do (the total may grow: a crawl)."""

    def __init__(self, label: str, total: int | None, console: Console) -> None:
        super().__init__(total)
        self.label = label
        self.console = console
        self.rich: RichProgress | None = None
        self.task = 0
        self._show_if_worth_it()

    def advance(self, count: int = 1) -> None:
        super().advance(count)
        if self.rich is not None:
            self.rich.advance(self.task, count)

    def set_total(self, total: int | None) -> None:
        super().set_total(total)
        if self.rich is not None:
            self.rich.update(self.task, total=total)
        self._show_if_worth_it()

    def stop(self) -> None:
        if self.rich is not None:
            self.rich.stop()

    def _show_if_worth_it(self) -> None:
        if self.rich is not None or (self.total is not None and self.total <= HANDFUL):
            return
        self.rich = RichProgress(
            TextColumn("{task.description}"),
            BarColumn(),
            MofNCompleteColumn(),
            TimeElapsedColumn(),
            TimeRemainingColumn(),  # the ETA, once the total is known
            console=self.console,
        )
        self.task = self.rich.add_task(self.label, total=self.total, completed=self.done)
        self.rich.start()
