"""Which found pages go into the manifest: `--include`/`--exclude`, the path prefix, one
page per URL, and `--max-pages`.

A pattern is a shell-style glob (`*` crosses `/`). With `://` in it, it is matched against
the whole URL; otherwise against the URL's path: `--exclude '/blog/*'`. A pattern without
`/` also matches any one segment of the path, at any depth: `--exclude 'changelog*'`
leaves out `/guide/changelog.html` (as in a `.gitignore`).
"""

from __future__ import annotations

from collections.abc import Iterable
from fnmatch import fnmatchcase
from urllib.parse import urlsplit

from pinax.manifest import Page

from .report import Reporter, count_pages
from .urls import in_prefix


class Patterns:
    def __init__(self, include: Iterable[str] = (), exclude: Iterable[str] = ()) -> None:
        self.include = tuple(include)
        self.exclude = tuple(exclude)

    def excluded(self, url: str) -> bool:
        return any(_matches(url, p) for p in self.exclude)

    def keeps(self, url: str) -> bool:
        if self.include and not any(_matches(url, p) for p in self.include):
            return False
        return not self.excluded(url)


def under_prefix(pages: list[Page], base: str) -> list[Page]:
    return [page for page in pages if in_prefix(page.url, base)]


def select(
    pages: Iterable[Page], patterns: Patterns, max_pages: int, reporter: Reporter
) -> list[Page]:
    kept: dict[str, Page] = {}
    duplicates = filtered = 0
    for page in pages:
        if page.url in kept:
            duplicates += 1
        elif not patterns.keeps(page.url):
            filtered += 1
        else:
            kept[page.url] = page
    if filtered:
        reporter.note(f"--include/--exclude left out {count_pages(filtered)}")
    if duplicates:
        reporter.note(f"{duplicates} repeated URLs were kept once")
    result = list(kept.values())
    if len(result) > max_pages:
        reporter.warn(
            f"kept the first {max_pages:,} of {len(result):,} pages (--max-pages {max_pages})"
        )
        result = result[:max_pages]
    return result


def _matches(url: str, pattern: str) -> bool:
    target = url if "://" in pattern else (urlsplit(url).path or "/")
    if fnmatchcase(target, pattern):
        return True
    if "/" in pattern:
        return False
    return any(fnmatchcase(segment, pattern) for segment in target.split("/") if segment)
