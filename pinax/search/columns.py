"""A manifest as columns (one list per page field), validated in bulk for large builds.

`manifest.from_dict` checks a page at a time and makes a `Page` of each: thorough, and too
slow for a million pages. Here every field is checked for all pages at once with a few quick
tests that only ever accept what `from_dict` accepts; when one fails (or looks unusual, such
as an IPv6 host), the manifest goes through `from_dict` after all, which either raises its
exact error (file, place, problem) or returns pages that are turned into columns. So a bad
manifest is still rejected whole, with the same message.
"""

from __future__ import annotations

import itertools
import json
import re
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cached_property
from itertools import repeat
from typing import Any, NamedTuple

from pinax import manifest as manifest_io
from pinax.manifest import (
    HEADING_LEVELS,
    MAX_HEADING_LENGTH,
    MAX_HEADINGS,
    Heading,
    Manifest,
    Page,
    parent_section,
    slug_title,
)

OPTIONAL = ("description", "group", "markdown_url", "lastmod")
# Absolute http(s) URLs with a plain host (no user info, no IPv6 brackets) and no whitespace:
# a strict subset of what `manifest.from_dict` accepts.
_PLAIN_URL = re.compile(r"(?i:https?)://[^\s/?#@\[\]:]+(?::[0-9]{1,5})?(?:[/?#]\S*)?")
_ANCHOR = re.compile(r"[^\s#]+")  # its length is checked apart


class Headings(NamedTuple):
    """Every heading of every page, flat, in page order: the page each belongs to."""

    page: list[int]
    level: list[int]
    title: list[str]
    anchor: list[str | None]


@dataclass
class PageColumns:
    """The pages of a manifest, one list per field (the values `Page` would hold)."""

    url: list[str]
    title: list[str]
    section: list[str]
    description: list[str | None]
    group: list[str | None]
    markdown_url: list[str | None]
    lastmod: list[str | None]
    outline: list[tuple[Heading, ...]]

    def __len__(self) -> int:
        return len(self.url)

    @cached_property
    def headings(self) -> Headings:
        counts = list(map(len, self.outline))
        flat = list(itertools.chain.from_iterable(self.outline))
        page = list(itertools.chain.from_iterable(map(repeat, range(len(counts)), counts)))
        if not flat:
            return Headings(page, [], [], [])
        level, title, anchor = map(list, zip(*flat, strict=True))
        return Headings(page, level, title, anchor)

    @classmethod
    def of(cls, pages: Sequence[Page]) -> PageColumns:
        return cls(*([getattr(p, name) for p in pages] for name in Page.__slots__))

    def page(self, i: int) -> Page:
        return Page(*(getattr(self, name)[i] for name in Page.__slots__))


@dataclass
class ManifestColumns:
    name: str
    url: str
    title: str
    description: str | None
    ttl: float | None
    source: str
    pages: PageColumns

    @classmethod
    def of(cls, manifest: Manifest) -> ManifestColumns:
        return cls(
            manifest.name,
            manifest.url,
            manifest.title,
            manifest.description,
            manifest.ttl,
            manifest.source,
            PageColumns.of(manifest.pages),
        )


def loads(raw: bytes, source: str) -> ManifestColumns:
    """Parse and validate manifest JSON into columns; errors as `manifest.loads` raises them."""
    try:
        data = json.loads(raw.decode("utf-8-sig"))
    except ValueError:  # not UTF-8, or not JSON: manifest.loads says where
        return ManifestColumns.of(manifest_io.loads(raw, source))
    return from_dict(data, source)


def from_dict(data: Any, source: str) -> ManifestColumns:
    """Validate a parsed manifest into columns (see the module docstring)."""
    pages = data.get("pages") if isinstance(data, dict) else None
    if not isinstance(pages, list):
        return ManifestColumns.of(manifest_io.from_dict(data, source))  # raises
    header = manifest_io.from_dict({**data, "pages": []}, source)
    columns = _quick(pages)
    if columns is None:
        columns = PageColumns.of(manifest_io.from_dict(data, source).pages)
    return ManifestColumns(
        header.name, header.url, header.title, header.description, header.ttl, source, columns
    )


def _quick(pages: list[Any]) -> PageColumns | None:
    """The columns, if every page passes the quick checks; None to take the slow path.
    Each check is one pass in C (`map`, `set`) over a field of all pages."""
    if not set(map(type, pages)) <= {dict}:
        return None
    urls = _field(pages, "url")
    if not _all_of(urls, str) or not all(map(_PLAIN_URL.fullmatch, urls)):
        return None
    if len(set(urls)) != len(urls):
        return None
    titles = _field(pages, "title")
    if not _all_of(titles, str):
        return None
    titles = list(map(str.strip, titles))
    if not all(titles):
        titles = [t or slug_title(u) for t, u in zip(titles, urls, strict=True)]
    sections = _field(pages, "section")
    if not _all_of(sections, str, type(None)):
        return None
    given = [s for s in sections if s is not None] if None in sections else sections
    if not all(map(str.startswith, given, repeat("/"))):
        return None
    if len(given) < len(sections):
        sections = [
            parent_section(u) if s is None else s for s, u in zip(sections, urls, strict=True)
        ]
    optional = {name: _field(pages, name) for name in OPTIONAL}
    if not all(_all_of(values, str, type(None)) for values in optional.values()):
        return None
    markdown = [u for u in optional["markdown_url"] if u is not None]
    if not all(map(_PLAIN_URL.fullmatch, markdown)):
        return None
    outline = _outlines(pages)
    if outline is None:
        return None
    return PageColumns(urls, titles, sections, **optional, outline=outline)


def _outlines(pages: list[dict[str, Any]]) -> list[tuple[Heading, ...]] | None:
    """Every page's outline, checked for all headings at once (None: take the slow path)."""
    raw = _field(pages, "outline")
    if raw.count(None) == len(raw):
        return list(repeat((), len(raw)))
    if not _all_of(raw, list, type(None)):
        return None
    counts = [len(r) if r else 0 for r in raw]
    if max(counts) > MAX_HEADINGS:
        return None
    entries = list(itertools.chain.from_iterable(r for r in raw if r))
    if not _all_of(entries, dict):
        return None
    levels = _field(entries, "level")
    if not _all_of(levels, int) or not set(levels) <= set(HEADING_LEVELS):
        return None
    titles = _field(entries, "title")
    if not _all_of(titles, str):
        return None
    titles = list(map(str.strip, titles))
    if not all(titles) or max(map(len, titles), default=0) > MAX_HEADING_LENGTH:
        return None
    anchors = _field(entries, "anchor")
    if not _all_of(anchors, str, type(None)):
        return None
    given = [a for a in anchors if a is not None]
    if (
        not all(map(_ANCHOR.fullmatch, given))
        or max(map(len, given), default=0) > MAX_HEADING_LENGTH
    ):
        return None
    headings = iter(list(map(Heading, levels, titles, anchors)))
    return [tuple(itertools.islice(headings, n)) if n else () for n in counts]


def _field(pages: list[dict[str, Any]], name: str) -> list[Any]:
    """One field of every page (None where a page lacks it)."""
    return list(map(dict.get, pages, repeat(name)))


def _all_of(values: list[Any], *types: type) -> bool:
    """Whether every value is exactly of one of these types (no subclasses, as JSON gives)."""
    return set(map(type, values)) <= set(types)
