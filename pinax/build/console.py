"""Build reports on stderr (rich): notes dimmed, warnings in yellow, a progress bar for any
step that fetches more than a handful of URLs. Never stdout: it carries the manifest or the
MCP protocol."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from rich.console import Console
from rich.markup import escape
from rich.progress import BarColumn, MofNCompleteColumn, TextColumn, TimeElapsedColumn
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
        if self.quiet or (total is not None and total <= HANDFUL):
            yield Progress(total)
            return
        columns = (
            TextColumn("{task.description}"),
            BarColumn(),
            MofNCompleteColumn(),
            TimeElapsedColumn(),
        )
        with RichProgress(*columns, console=self.console) as bar:
            task = bar.add_task(label, total=total)
            yield _Bar(bar, task, total)


class _Bar(Progress):
    def __init__(self, bar: RichProgress, task: int, total: int | None) -> None:
        super().__init__(total)
        self.bar = bar
        self.task = task

    def advance(self, count: int = 1) -> None:
        super().advance(count)
        self.bar.advance(self.task, count)

    def set_total(self, total: int | None) -> None:
        super().set_total(total)
        self.bar.update(self.task, total=total)
