"""A manifest as columns (one list per page field), validated in bulk for large builds.

`manifest.from_dict` checks a page at a time and makes a `Page` of each: thorough, and too
slow for a million pages. Here every field is checked for all pages at once with a few quick
tests that only ever accept what `from_dict` accepts; when one fails (or looks unusual, such
as an IPv6 host), the manifest goes through `from_dict` after all, which either raises its
exact error (file, place, problem) or returns pages that are turned into columns. So a bad
manifest is still rejected whole, with the same message.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from itertools import repeat
from typing import Any

from pinax import manifest as manifest_io
from pinax.manifest import Manifest, Page, parent_section, slug_title

OPTIONAL = ("description", "group", "markdown_url", "lastmod")
# Absolute http(s) URLs with a plain host (no user info, no IPv6 brackets) and no whitespace:
# a strict subset of what `manifest.from_dict` accepts.
_PLAIN_URL = re.compile(r"(?i:https?)://[^\s/?#@\[\]:]+(?::[0-9]{1,5})?(?:[/?#]\S*)?")


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

    def __len__(self) -> int:
        return len(self.url)

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
        text = raw.decode("utf-8-sig")
    except ValueError:  # not UTF-8: manifest.loads says where
        return ManifestColumns.of(manifest_io.loads(raw, source))
    return from_dict(manifest_io.parse_json(text, source), source)


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
    return PageColumns(urls, titles, sections, **optional)


def _field(pages: list[dict[str, Any]], name: str) -> list[Any]:
    """One field of every page (None where a page lacks it)."""
    return list(map(dict.get, pages, repeat(name)))


def _all_of(values: list[Any], *types: type) -> bool:
    """Whether every value is exactly of one of these types (no subclasses, as JSON gives)."""
    return set(map(type, values)) <= set(types)
