"""A manifest as columns (one list per page field), validated in bulk for large builds.

`manifest.from_dict` checks a page at a time and makes a `Page` of each: thorough, and too
slow for a million pages. Here every field is checked for all pages at once with a few quick
tests that only ever accept what `from_dict` accepts; when one fails (or looks unusual, such
as an IPv6 host), the manifest goes through `from_dict` after all, which either raises its
exact error (file, place, problem) or returns pages that are turned into columns. So a bad
manifest is still rejected whole, with the same message.

Headings and symbols (a million pages have millions) are kept flat, their texts numbered in
tables of distinct texts; a file in `manifest.dump`'s layout is parsed a few MB of page lines
at a time, so that the parsed objects of every page never exist at once.
"""

from __future__ import annotations

import itertools
import json
import re
from array import array
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from functools import cached_property
from itertools import repeat
from typing import Any, NamedTuple

import numpy as np

from pinax import manifest as manifest_io
from pinax.manifest import (
    HEADING_LEVELS,
    MAX_HEADING_LENGTH,
    MAX_HEADINGS,
    MAX_SYMBOLS,
    SYMBOL_KINDS,
    Heading,
    Manifest,
    Page,
    Symbol,
    parent_section,
    slug_title,
)

OPTIONAL = ("description", "group", "markdown_url", "lastmod")
PAGE_FIELDS = ("url", "title", "section", *OPTIONAL)
# Absolute http(s) URLs with a plain host (no user info, no IPv6 brackets) and no whitespace:
# a strict subset of what `manifest.from_dict` accepts.
_PLAIN_URL = re.compile(r"(?i:https?)://[^\s/?#@\[\]:]+(?::[0-9]{1,5})?(?:[/?#]\S*)?")
_ANCHOR = re.compile(r"[^\s#]+")  # its length is checked apart
CHUNK = 8 << 20  # bytes of page lines parsed at a time


class Numbering:
    """Distinct texts numbered in order of first appearance: a million pages' headings are
    a few hundred thousand texts ("Examples", "See also"), each kept and analysed once."""

    def __init__(self) -> None:
        self.ids: dict[str, int] = {}
        self.texts: list[str] = []

    def numbers(self, values: list[str | None]) -> array:
        """Each value's number (-1 for None), numbering the new ones."""
        ids = self.ids
        new = [v for v in dict.fromkeys(values) if v is not None and v not in ids]
        ids.update(zip(new, itertools.count(len(self.texts))))
        self.texts.extend(new)
        return array("l", [-1 if v is None else ids[v] for v in values])


class Headings(NamedTuple):
    """Every heading of every page, flat, in page order; titles and anchors as numbers in
    tables of distinct texts."""

    page: array  # the page each heading belongs to ("l")
    level: array  # 2..6 ("B")
    title: array  # its number in `titles` ("l")
    anchor: array  # its number in `anchors`, -1 where none is known ("l")
    titles: list[str]
    anchors: list[str]

    @classmethod
    def empty(cls, titles: Numbering, anchors: Numbering) -> Headings:
        return cls(array("l"), array("B"), array("l"), array("l"), titles.texts, anchors.texts)

    @classmethod
    def of(cls, pages: Sequence[Page], titles: Numbering, anchors: Numbering) -> Headings:
        flat = [(i, h) for i, page in enumerate(pages) for h in page.outline]
        return cls(
            array("l", [i for i, _ in flat]),
            array("B", [h.level for _, h in flat]),
            titles.numbers([h.title for _, h in flat]),
            anchors.numbers([h.anchor for _, h in flat]),
            titles.texts,
            anchors.texts,
        )

    def heading(self, at: int) -> Heading:
        anchor = self.anchor[at]
        return Heading(
            self.level[at],
            self.titles[self.title[at]],
            self.anchors[anchor] if anchor >= 0 else None,
        )

    def extend(self, other: Headings, first_page: int) -> None:
        """Add another batch's headings (numbered in the same tables), its pages numbered
        from `first_page`."""
        _extend_flat(self, other, first_page)


class Symbols(NamedTuple):
    """Every symbol of every page, flat, in page order; names and anchors as numbers in tables
    of distinct texts, kinds as places in `SYMBOL_KINDS`."""

    page: array  # ("l")
    kind: array  # ("B")
    name: array  # its number in `names` ("l")
    anchor: array  # its number in `anchors`, -1 where none is known ("l")
    names: list[str]
    anchors: list[str]

    @classmethod
    def empty(cls, names: Numbering, anchors: Numbering) -> Symbols:
        return cls(array("l"), array("B"), array("l"), array("l"), names.texts, anchors.texts)

    @classmethod
    def of(cls, pages: Sequence[Page], names: Numbering, anchors: Numbering) -> Symbols:
        flat = [(i, s) for i, page in enumerate(pages) for s in page.symbols]
        return cls(
            array("l", [i for i, _ in flat]),
            array("B", [SYMBOL_KINDS.index(s.kind) for _, s in flat]),
            names.numbers([s.name for _, s in flat]),
            anchors.numbers([s.anchor for _, s in flat]),
            names.texts,
            anchors.texts,
        )

    def symbol(self, at: int) -> Symbol:
        anchor = self.anchor[at]
        return Symbol(
            self.names[self.name[at]],
            SYMBOL_KINDS[self.kind[at]],
            self.anchors[anchor] if anchor >= 0 else None,
        )

    def extend(self, other: Symbols, first_page: int) -> None:
        _extend_flat(self, other, first_page)


def _extend_flat(mine: Headings | Symbols, other: Headings | Symbols, first_page: int) -> None:
    """Add a batch's flat entries to `mine`, both laid out alike: (page, a small number,
    text number, anchor number, text table, anchor table), the tables shared."""
    page, *columns, texts, anchors = mine
    more_page, *more, more_texts, more_anchors = other
    assert more_texts is texts and more_anchors is anchors
    page.extend(array("l", [p + first_page for p in more_page]))
    for column, added in zip(columns, more, strict=True):
        column.extend(added)


def _starts(page: array, size: int) -> np.ndarray:
    """Where each page's entries start in a flat list in page order (one more than pages)."""
    counts = np.bincount(np.frombuffer(page, dtype=np.int_), minlength=size)
    start = np.zeros(size + 1, dtype=np.int64)
    np.cumsum(counts, out=start[1:])
    return start


@dataclass
class PageColumns:
    """The pages of a manifest, one list per field (the values `Page` would hold), and their
    headings, flat."""

    url: list[str]
    title: list[str]
    section: list[str]
    description: list[str | None]
    group: list[str | None]
    markdown_url: list[str | None]
    lastmod: list[str | None]
    headings: Headings
    symbols: Symbols

    def __len__(self) -> int:
        return len(self.url)

    @cached_property
    def outline_start(self) -> np.ndarray:
        """Where each page's headings start (one more entry than pages)."""
        return _starts(self.headings.page, len(self))

    @cached_property
    def symbol_start(self) -> np.ndarray:
        """Where each page's symbols start (one more entry than pages)."""
        return _starts(self.symbols.page, len(self))

    @classmethod
    def of(cls, pages: Sequence[Page]) -> PageColumns:
        columns = ([getattr(p, name) for p in pages] for name in PAGE_FIELDS)
        headings = Headings.of(pages, Numbering(), Numbering())
        symbols = Symbols.of(pages, Numbering(), Numbering())
        return cls(*columns, headings=headings, symbols=symbols)

    def page(self, i: int) -> Page:
        start, end = self.outline_start[i : i + 2].tolist()
        outline = tuple(map(self.headings.heading, range(start, end)))
        start, end = self.symbol_start[i : i + 2].tolist()
        symbols = tuple(map(self.symbols.symbol, range(start, end)))
        fields = (getattr(self, name)[i] for name in PAGE_FIELDS)
        return Page(*fields, outline=outline, symbols=symbols)

    def extend(self, other: PageColumns) -> None:
        """Add another batch's pages after these."""
        self.headings.extend(other.headings, len(self))
        self.symbols.extend(other.symbols, len(self))
        for name in PAGE_FIELDS:
            getattr(self, name).extend(getattr(other, name))
        self.__dict__.pop("outline_start", None)
        self.__dict__.pop("symbol_start", None)


@dataclass
class ManifestColumns:
    name: str
    url: str
    title: str
    description: str | None
    ttl: float | None
    source: str
    pages: PageColumns
    content: str | None = None

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
            manifest.content,
        )


def loads(raw: bytes, source: str) -> ManifestColumns:
    """Parse and validate manifest JSON into columns; errors as `manifest.loads` raises them.

    A file in `manifest.dump`'s layout (one page a line) is read a batch of lines at a time,
    so that the parsed objects of a million pages never exist all at once."""
    split = _dump_layout(raw)
    if split is not None:
        found = _batched(raw, *split, source)
        if found is not None:
            return found
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
    columns = _quick(pages, Numbering(), Numbering(), Numbering(), Numbering())
    if columns is None or len(set(columns.url)) != len(columns):
        columns = PageColumns.of(manifest_io.from_dict(data, source).pages)
    return ManifestColumns(
        header.name,
        header.url,
        header.title,
        header.description,
        header.ttl,
        source,
        columns,
        header.content,
    )


_PAGES_START, _PAGES_END = b'\n  "pages": [\n', b"\n  ]\n}\n"


def _dump_layout(raw: bytes) -> tuple[bytes, int, int] | None:
    """(the header as a manifest without pages, where the page lines start and end) of a
    file in `manifest.dump`'s layout; None for any other."""
    start = raw.find(_PAGES_START)
    if not raw.startswith(b"{\n") or start < 0 or not raw.endswith(_PAGES_END):
        return None
    head = raw[:start] + b'\n  "pages": []\n}\n'
    return head, start + len(_PAGES_START), len(raw) - len(_PAGES_END)


def _page_batches(raw: bytes, start: int, end: int) -> Iterator[list[Any]]:
    """The pages of the lines raw[start:end], parsed about CHUNK bytes at a time (whole
    lines); ValueError if a line is not one page of the layout."""
    at = start
    while at < end:
        stop = raw.rfind(b"\n", at, min(end, at + CHUNK)) if at + CHUNK < end else end
        if stop <= at:  # one line longer than a chunk
            stop = raw.find(b"\n", at, end)
            stop = end if stop < 0 else stop
        lines = raw[at:stop].split(b"\n")
        *rest, last = lines
        if not all(line.startswith(b"    {") for line in lines):
            raise ValueError("not the dump layout")
        if not all(line.endswith(b"},") for line in rest) or not last.endswith(
            b"}" if stop == end else b"},"
        ):
            raise ValueError("not the dump layout")
        yield json.loads(b"[%b]" % b",".join(line.rstrip(b",") for line in lines))
        at = stop + 1


def _batched(raw: bytes, head: bytes, start: int, end: int, source: str) -> ManifestColumns | None:
    """The manifest from its header and page lines, parsed and checked a batch at a time;
    None if anything is off (the whole file is then read the careful way, which says what)."""
    if b"\\ud" in raw or b"\\uD" in raw:  # maybe a lone surrogate: the careful way finds it
        return None
    try:
        data = json.loads(head)
        numberings = Numbering(), Numbering(), Numbering(), Numbering()
        columns = None
        for pages in _page_batches(raw, start, end):
            found = _quick(pages, *numberings)
            if found is None:
                return None
            if columns is None:
                columns = found
            else:
                columns.extend(found)
    except (ValueError, RecursionError):
        return None
    if not isinstance(data, dict) or data.get("pages") != [] or columns is None:
        return None
    if len(set(columns.url)) != len(columns):
        return None
    header = manifest_io.from_dict(data, source)
    return ManifestColumns(
        header.name,
        header.url,
        header.title,
        header.description,
        header.ttl,
        source,
        columns,
        header.content,
    )


def _quick(
    pages: list[Any],
    heading_titles: Numbering,
    heading_anchors: Numbering,
    symbol_names: Numbering,
    symbol_anchors: Numbering,
) -> PageColumns | None:
    """The columns, if every page passes the quick checks; None to take the slow path.
    Each check is one pass in C (`map`, `set`) over a field of all pages. Duplicate URLs are
    the caller's to find (pages may come in batches); heading titles and anchors, symbol
    names and anchors, are numbered in the numberings given."""
    if not set(map(type, pages)) <= {dict}:
        return None
    urls = _field(pages, "url")
    if not _all_of(urls, str) or not all(map(_PLAIN_URL.fullmatch, urls)):
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
    headings = _outlines(pages, heading_titles, heading_anchors)
    if headings is None:
        return None
    symbols = _symbols(pages, symbol_names, symbol_anchors)
    if symbols is None:
        return None
    return PageColumns(urls, titles, sections, **optional, headings=headings, symbols=symbols)


def _outlines(
    pages: list[dict[str, Any]], titles: Numbering, anchors: Numbering
) -> Headings | None:
    """Every page's headings, checked all at once (None: take the slow path)."""
    raw = _field(pages, "outline")
    if raw.count(None) == len(raw):
        return Headings.empty(titles, anchors)
    found = _entries(raw, MAX_HEADINGS, "title")
    if found is None:
        return None
    page, entries, texts, ids = found
    levels = _field(entries, "level")
    if not _all_of(levels, int) or not set(levels) <= set(HEADING_LEVELS):
        return None
    return Headings(
        page,
        array("B", levels),
        titles.numbers(texts),
        anchors.numbers(ids),
        titles.texts,
        anchors.texts,
    )


def _symbols(pages: list[dict[str, Any]], names: Numbering, anchors: Numbering) -> Symbols | None:
    """Every page's symbols, checked all at once (None: take the slow path)."""
    raw = _field(pages, "symbols")
    if raw.count(None) == len(raw):
        return Symbols.empty(names, anchors)
    found = _entries(raw, MAX_SYMBOLS, "name")
    if found is None:
        return None
    page, entries, texts, ids = found
    kinds = _field(entries, "kind")
    known = {kind: at for at, kind in enumerate(SYMBOL_KINDS)}
    if not _all_of(kinds, str) or not set(kinds) <= known.keys():
        return None
    return Symbols(
        page,
        array("B", map(known.__getitem__, kinds)),
        names.numbers(texts),
        anchors.numbers(ids),
        names.texts,
        anchors.texts,
    )


def _entries(
    raw: list[Any], most: int, text_key: str
) -> tuple[array, list[dict[str, Any]], list[str], list[str | None]] | None:
    """Every page's list of entries (an outline's headings, a page's symbols) checked all at
    once: (the page of each entry, the entries, their texts stripped, their anchors), or None
    to take the slow path."""
    if not _all_of(raw, list, type(None)):
        return None
    counts = [len(r) if r else 0 for r in raw]
    if max(counts) > most:
        return None
    entries = list(itertools.chain.from_iterable(r for r in raw if r))
    if not _all_of(entries, dict):
        return None
    texts = _field(entries, text_key)
    if not _all_of(texts, str):
        return None
    texts = list(map(str.strip, texts))
    if not all(texts) or max(map(len, texts), default=0) > MAX_HEADING_LENGTH:
        return None
    ids = _field(entries, "anchor")
    if not _all_of(ids, str, type(None)):
        return None
    given = [a for a in ids if a is not None]
    longest = max(map(len, given), default=0)
    if longest > MAX_HEADING_LENGTH or not all(map(_ANCHOR.fullmatch, given)):
        return None
    page = array("l", itertools.chain.from_iterable(map(repeat, range(len(counts)), counts)))
    return page, entries, texts, ids


def _field(pages: list[dict[str, Any]], name: str) -> list[Any]:
    """One field of every page (None where a page lacks it)."""
    return list(map(dict.get, pages, repeat(name)))


def _all_of(values: list[Any], *types: type) -> bool:
    """Whether every value is exactly of one of these types (no subclasses, as JSON gives)."""
    return set(map(type, values)) <= set(types)
