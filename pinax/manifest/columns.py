"""A manifest as columns (one list per page field), validated in bulk for large builds.

`manifest.from_dict` checks a page at a time and makes a `Page` of each: thorough, and too
slow for a million pages. Here every field is checked for all pages at once with a few quick
tests that only ever accept what `from_dict` accepts; when one fails (or looks unusual, such
as an IPv6 host), the manifest goes through `from_dict` after all, which either raises its
exact error (file, place, problem) or returns pages that are turned into columns. So a bad
manifest is still rejected whole, with the same message.

Headings and symbols (a million pages have millions) are kept flat, their texts numbered in
tables of distinct texts; a file in `manifest.dump`'s layout is parsed a few MB of page lines
at a time, so that the parsed objects of every page never exist at once, and a large one
(hundreds of MB) by two worker processes (`pinax.workers`), each batch's texts numbered
in tables of its own and renumbered here, in order: the same columns as parsed here alone.
"""

from __future__ import annotations

import itertools
import json
import logging
import re
import sys
from array import array
from collections import deque
from collections.abc import Iterator, Sequence
from concurrent.futures import CancelledError, Future
from dataclasses import dataclass
from functools import cached_property
from itertools import repeat
from typing import Any

import numpy as np

from pinax.manifest import model as manifest_io
from pinax.manifest.flat import Headings, Numbering, Numberings, Symbols
from pinax.manifest.model import (
    HEADING_LEVELS,
    MAX_HEADING_LENGTH,
    MAX_HEADINGS,
    MAX_SYMBOLS,
    SYMBOL_KINDS,
    Manifest,
    Page,
    parent_section,
    slug_title,
)

log = logging.getLogger("pinax.manifest")

OPTIONAL = ("description", "group", "markdown_url", "lastmod")
PAGE_FIELDS = ("url", "title", "section", *OPTIONAL)
# Absolute http(s) URLs with a plain host (no user info, no IPv6 brackets) and no whitespace:
# a strict subset of what `manifest.from_dict` accepts.
_PLAIN_URL = re.compile(r"(?i:https?)://[^\s/?#@\[\]:]+(?::[0-9]{1,5})?(?:[/?#]\S*)?")
_SPACE_BUT_SPACE = re.compile(r"[^\S ]")  # whitespace other than " " (see `_anchors`)
CHUNK = 8 << 20  # bytes of page lines parsed at a time
WORKERS = 2  # processes parsing the batches of a large manifest (at most; 0: none)
WORKERS_FROM = 8  # batches (of CHUNK bytes) from which a manifest is parsed by workers
IN_FLIGHT = 2  # batches queued per worker (bounds the memory a build holds)


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

    @classmethod
    def empty(cls, numberings: Numberings) -> PageColumns:
        """No pages yet, their texts to be numbered in `numberings`."""
        titles, anchors, names, symbol_anchors = numberings
        return cls(
            *([] for _ in PAGE_FIELDS),
            headings=Headings.empty(titles, anchors),
            symbols=Symbols.empty(names, symbol_anchors),
        )

    def extend(self, other: PageColumns, numberings: Numberings) -> None:
        """Add another batch's pages after these (its texts numbered in tables of its own,
        renumbered in `numberings`, those of these pages)."""
        titles, anchors, names, symbol_anchors = numberings
        self.headings.extend(other.headings, len(self), titles, anchors)
        self.symbols.extend(other.symbols, len(self), names, symbol_anchors)
        for name in PAGE_FIELDS:
            values = getattr(other, name)
            # Pages share a few thousand sections: one string each (a million pages: -90 MB).
            getattr(self, name).extend(map(sys.intern, values) if name == "section" else values)
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
    version: str | None = None
    packages: tuple[str, ...] | None = None

    @classmethod
    def of(cls, manifest: Manifest) -> ManifestColumns:
        return cls.headed(manifest, manifest.source, PageColumns.of(manifest.pages))

    @classmethod
    def headed(cls, header: Manifest, source: str, pages: PageColumns) -> ManifestColumns:
        """`pages` under the fields of `header` (a manifest read without its pages)."""
        return cls(
            header.name,
            header.url,
            header.title,
            header.description,
            header.ttl,
            source,
            pages,
            header.content,
            header.version,
            header.packages,
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
    return ManifestColumns.headed(header, source, columns)


_PAGES_START, _PAGES_END = b'\n  "pages": [\n', b"\n  ]\n}\n"


def _dump_layout(raw: bytes) -> tuple[bytes, int, int] | None:
    """(the header as a manifest without pages, where the page lines start and end) of a
    file in `manifest.dump`'s layout; None for any other."""
    start = raw.find(_PAGES_START)
    if not raw.startswith(b"{\n") or start < 0 or not raw.endswith(_PAGES_END):
        return None
    head = raw[:start] + b'\n  "pages": []\n}\n'
    return head, start + len(_PAGES_START), len(raw) - len(_PAGES_END)


def _spans(raw: bytes, start: int, end: int) -> list[tuple[int, int]]:
    """The lines raw[start:end] in runs of whole lines of about CHUNK bytes."""
    spans = []
    at = start
    while at < end:
        stop = raw.rfind(b"\n", at, min(end, at + CHUNK)) if at + CHUNK < end else end
        if stop <= at:  # one line longer than a chunk
            stop = raw.find(b"\n", at, end)
            stop = end if stop < 0 else stop
        spans.append((at, stop))
        at = stop + 1
    return spans


def parse_lines(lines: bytes, last_of_all: bool) -> PageColumns | None:
    """The pages of some page lines of the dump layout (`last_of_all`: whether the last line
    is the list's last), checked, their texts numbered in tables of their own; None if a
    line is not one page of the layout or a page fails the quick checks. What a worker
    process does with each batch of a large manifest."""
    rows = lines.split(b"\n")
    *rest, last = rows
    if not all(line.startswith(b"    {") for line in rows):
        return None
    if not all(line.endswith(b"},") for line in rest) or not last.endswith(
        b"}" if last_of_all else b"},"
    ):
        return None
    try:
        pages = json.loads(b"[%b]" % b",".join(line.rstrip(b",") for line in rows))
        return _quick(pages, Numbering(), Numbering(), Numbering(), Numbering())
    except (ValueError, RecursionError):
        return None


def _parsed(raw: bytes, spans: list[tuple[int, int]]) -> Iterator[PageColumns | None]:
    """`parse_lines` of each span of page lines, in order: in worker processes when there
    are many (a manifest of hundreds of MB), else here."""
    end = spans[-1][1] if spans else 0
    jobs = ((raw[a:b], b == end) for a, b in spans)
    # Imported here: a worker runs that module as its main, after importing this one.
    from pinax.workers import WorkerError, Workers, worth_starting

    count = worth_starting(WORKERS) if len(spans) >= WORKERS_FROM else 0
    pool = None
    if count:
        try:
            pool = Workers(count, "manifest")
        except WorkerError as exc:
            log.warning("manifest parsed without workers: %s", exc)
    pending: deque[tuple[tuple[bytes, bool], Future[PageColumns | None] | None]] = deque()
    try:
        for job in jobs:
            pending.append((job, pool.submit(job) if pool is not None else None))
            while len(pending) > max(1, count * IN_FLIGHT):
                yield _answer(*pending.popleft())
        while pending:
            yield _answer(*pending.popleft())
    finally:
        if pool is not None:
            pool.close()


def _answer(job: tuple[bytes, bool], done: Future[PageColumns | None] | None) -> PageColumns | None:
    """A batch's pages as its worker parsed them, or parsed here (no worker, or it failed)."""
    from pinax.workers import WorkerError  # (see `_parsed`)

    if done is not None:
        try:
            return done.result()
        except (WorkerError, CancelledError) as exc:
            log.warning("manifest parsed without a worker: %s", exc or "stopped")
    return parse_lines(*job)


def _batched(raw: bytes, head: bytes, start: int, end: int, source: str) -> ManifestColumns | None:
    """The manifest from its header and page lines, parsed and checked a batch at a time;
    None if anything is off (the whole file is then read the careful way, which says what)."""
    if b"\\ud" in raw or b"\\uD" in raw:  # maybe a lone surrogate: the careful way finds it
        return None
    try:
        data = json.loads(head)
    except (ValueError, RecursionError):
        return None
    if not isinstance(data, dict) or data.get("pages") != []:
        return None
    numberings = Numbering(), Numbering(), Numbering(), Numbering()
    columns = PageColumns.empty(numberings)
    spans = _spans(raw, start, end)
    for found in _parsed(raw, spans):
        if found is None:
            return None
        columns.extend(found, numberings)
    if not spans or len(set(columns.url)) != len(columns):
        return None
    header = manifest_io.from_dict(data, source)
    return ManifestColumns.headed(header, source, columns)


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
    counts = np.fromiter(map(len, [r or () for r in raw]), dtype=np.int_, count=len(raw))
    if counts.max(initial=0) > most:
        return None
    entries = list(itertools.chain.from_iterable(filter(None, raw)))
    if not _all_of(entries, dict):
        return None
    texts = _field(entries, text_key)
    if not _all_of(texts, str):
        return None
    texts = list(map(str.strip, texts))
    if not all(texts) or max(map(len, texts), default=0) > MAX_HEADING_LENGTH:
        return None
    ids = _field(entries, "anchor")
    if not _all_of(ids, str, type(None)) or not _anchors(list(filter(None, ids)), ids):
        return None
    page = array("l")
    page.frombytes(np.repeat(np.arange(len(raw), dtype=np.int_), counts).tobytes())
    return page, entries, texts, ids


def _anchors(given: list[str], ids: list[str | None]) -> bool:
    """Whether the anchors `given` (the strings of `ids`, the rest None) are all anchors:
    none empty, none longer than MAX_HEADING_LENGTH, no whitespace or `#` in any (checked
    in their text joined by spaces: no other whitespace, and only the joining spaces)."""
    if len(given) + ids.count(None) != len(ids):  # an empty one: `filter` left it out
        return False
    if max(map(len, given), default=0) > MAX_HEADING_LENGTH:
        return False
    joined = " ".join(given)
    if "#" in joined or _SPACE_BUT_SPACE.search(joined):
        return False
    return joined.count(" ") == max(0, len(given) - 1)


def _field(pages: list[dict[str, Any]], name: str) -> list[Any]:
    """One field of every page (None where a page lacks it)."""
    return list(map(dict.get, pages, repeat(name)))


def _all_of(values: list[Any], *types: type) -> bool:
    """Whether every value is exactly of one of these types (no subclasses, as JSON gives)."""
    return set(map(type, values)) <= set(types)
