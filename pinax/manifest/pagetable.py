"""A manifest's pages as flat arrays, so a million pages cost a few hundred bytes each.

Strings live in UTF-8 blobs with offsets (sections and groups as small tables of distinct
values), and two permutations sort the pages by URL and by URL path, so a page is found by
URL, and a section's pages by path prefix, with binary searches. `Page` objects are made only
for the pages a caller asks for. The arrays may be memory-mapped from the on-disk store.
"""

from __future__ import annotations

import bisect
import itertools
import re
import struct
from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Sequence
from itertools import repeat
from operator import itemgetter
from typing import Any, TypeVar, overload
from urllib.parse import urlsplit

import numpy as np

from pinax.manifest.columns import PageColumns
from pinax.manifest.model import SYMBOL_KINDS, Heading, Page, Symbol

T = TypeVar("T")

_SITE_ROOT = re.compile(r"^[^:/?#]+://[^/?#]*")
_PATH = re.compile(r"[A-Za-z][A-Za-z0-9+.\-]*+://[^/?#\s]*+([^?#\s]*+)[?#]?\S*+")


def trim(path: str) -> str:
    return path.rstrip("/") or "/"


def raw_path(url: str) -> str:
    """A URL's path as written (what `urlsplit` gives, faster for plain absolute URLs)."""
    found = _PATH.fullmatch(url)
    return found.group(1) if found else urlsplit(url).path


def raw_paths_of(urls: Iterable[str]) -> list[str]:
    """`raw_path` of many URLs (a manifest's): plain http(s) URLs are sliced, not parsed."""
    return list(map(_sliced_path, urls))


def _sliced_path(url: str) -> str:
    """`raw_path` of a URL; one with an http(s) scheme and no query, fragment or whitespace
    has its path from the first `/` after the host to the end."""
    if url.startswith("https://"):
        host = 8
    elif url.startswith("http://"):
        host = 7
    else:
        return raw_path(url)
    # `isprintable` is false for every whitespace character but the space.
    if "?" in url or "#" in url or " " in url or not url.isprintable():
        return raw_path(url)
    start = url.find("/", host)
    return url[start:] if start >= 0 else ""


def url_path(url: str) -> str:
    """A URL's path with trailing slashes trimmed (`/` for the root)."""
    return trim(raw_path(url))


def base_path_of(site_url: str, paths: Iterable[str]) -> str:
    """The path under which most pages live (`/en/dev` for Django), or `` for `/`."""
    base = urlsplit(site_url).path.rstrip("/")
    if not base:
        return ""
    total = inside = 0
    for path in paths:
        total += 1
        inside += path == base or path.startswith(base + "/")
    return base if inside * 2 > total else ""


ROWS_KEPT = 4096  # search result rows kept decoded, per manifest
_SPANS = {4: struct.Struct("<2I"), 8: struct.Struct("<2Q")}


class Strings(Sequence[str]):
    """A column of strings: one UTF-8 blob and the offset where each string starts."""

    def __init__(self, data: np.ndarray, offsets: np.ndarray) -> None:
        self._data = memoryview(data)
        self._offsets = offsets
        self._spans = memoryview(np.ascontiguousarray(offsets)).cast("B")
        self._span = _SPANS[offsets.dtype.itemsize].unpack_from
        self._width = offsets.dtype.itemsize

    @staticmethod
    def arrays(values: Iterable[str], name: str) -> dict[str, np.ndarray]:
        values = values if isinstance(values, list) else list(values)
        joined = "".join(values)
        if joined.isascii():  # a character is a byte: no string encoded on its own
            data = joined.encode("ascii")
            lengths = map(len, values)
        else:
            encoded = [v.encode() for v in values]
            data = b"".join(encoded)
            lengths = map(len, encoded)
        del joined
        offsets = np.zeros(len(values) + 1, dtype=np.int64)
        np.cumsum(np.fromiter(lengths, dtype=np.int64, count=len(values)), out=offsets[1:])
        if offsets[-1] < 1 << 32:
            offsets = offsets.astype(np.uint32)
        return {f"{name}_data": np.frombuffer(data, dtype=np.uint8), f"{name}_offsets": offsets}

    def __len__(self) -> int:
        return len(self._offsets) - 1

    @overload
    def __getitem__(self, i: int) -> str: ...
    @overload
    def __getitem__(self, i: slice) -> Sequence[str]: ...
    def __getitem__(self, i: int | slice) -> Any:
        if isinstance(i, slice):
            return [self[j] for j in range(*i.indices(len(self)))]
        if not 0 <= i < len(self):
            raise IndexError(i)
        start, end = self._span(self._spans, self._width * i)
        return str(self._data[start:end], "utf-8")

    def __iter__(self) -> Iterator[str]:
        return (self.get(i) for i in range(len(self)))

    def get(self, i: int) -> str:
        """The i-th string, unchecked (callers with a page number in range)."""
        start, end = self._span(self._spans, self._width * i)
        return str(self._data[start:end], "utf-8")


def _optional(values: Sequence[str | None], name: str) -> dict[str, np.ndarray]:
    """A column most pages may lack: nothing at all when none has it."""
    if values.count(None) == len(values):
        values = []
    arrays = Strings.arrays((v or "" for v in values), name)
    arrays[f"{name}_present"] = np.array([v is not None for v in values], dtype=bool)
    return arrays


def _distinct(values: Sequence[str | None], name: str) -> dict[str, np.ndarray]:
    """A column of few distinct values (in order of first appearance) and each page's (-1 for
    none)."""
    distinct = dict.fromkeys(values)
    distinct.pop(None, None)
    table = dict(zip(distinct, itertools.count()))
    arrays = Strings.arrays(table, name)
    ids = map(table.get, values, repeat(-1))
    arrays[f"{name}_id"] = np.fromiter(ids, dtype=np.int32, count=len(values))
    return arrays


def build_table(
    pages: PageColumns, site_url: str, raw_paths: Sequence[str] | None = None
) -> tuple[dict[str, np.ndarray], dict[str, Any]]:
    """The arrays of a page table, and what the library needs to know of the site
    (`base_path`, `top_sections`, `site_roots`); `raw_paths` are the pages' URL paths if the
    caller has them already."""
    urls = pages.url
    if raw_paths is None:
        raw_paths = raw_paths_of(urls)
    paths = [p.rstrip("/") or "/" for p in raw_paths]
    base = base_path_of(site_url, paths)
    arrays: dict[str, np.ndarray] = {}
    arrays.update(Strings.arrays(urls, "url"))
    arrays.update(Strings.arrays(pages.title, "title"))
    arrays.update(_distinct(pages.section, "section"))
    arrays.update(_distinct(pages.group, "group"))
    for name in ("description", "markdown_url", "lastmod"):
        arrays.update(_optional(getattr(pages, name), name))
    arrays.update(_outline_arrays(pages))
    arrays.update(_symbol_arrays(pages))
    url_order = sorted(range(len(urls)), key=urls.__getitem__)
    # In URL order the paths are nearly sorted already (a site's URLs sort as their paths),
    # which the sort is quick to finish; pages with equal paths may come in any order.
    path_order = sorted(url_order, key=paths.__getitem__)
    arrays["url_order"] = np.fromiter(url_order, dtype=np.int32, count=len(urls))
    arrays["path_order"] = np.fromiter(path_order, dtype=np.int32, count=len(urls))
    del url_order, path_order
    folders = _folders(paths)
    arrays.update(Strings.arrays(folders, "folder"))
    roots = _roots([site_url, *urls, *(u for u in pages.markdown_url if u)])
    meta = {
        "base_path": base,
        "top_sections": _top_sections(paths, base),
        "site_roots": sorted(roots),
    }
    return arrays, meta


def _outline_arrays(pages: PageColumns) -> dict[str, np.ndarray]:
    """Every page's headings: where each page's start (`outline_start`, one more than pages),
    their levels, and their titles and anchors as numbers in tables of distinct texts (a
    million pages' headings repeat: "Examples", "See also")."""
    headings = pages.headings
    arrays = Strings.arrays(headings.titles, "heading_title")
    arrays.update(Strings.arrays(headings.anchors, "heading_anchor"))
    titles = np.frombuffer(headings.title, dtype=np.int_)
    arrays["heading_title_id"] = titles.astype(np.int32)
    arrays["heading_anchor_id"] = np.frombuffer(headings.anchor, dtype=np.int_).astype(np.int32)
    # Which headings share their text with another of the same page: those are named
    # with their parents (`Usage > Caveats`).
    page = np.frombuffer(headings.page, dtype=np.int_)
    keys = page * max(1, len(headings.titles)) + titles
    _, inverse, counts = np.unique(keys, return_inverse=True, return_counts=True)
    arrays["outline_start"] = narrow(pages.outline_start)
    arrays["heading_level"] = np.frombuffer(headings.level, dtype=np.uint8).copy()
    arrays["heading_repeats"] = counts[inverse] > 1
    return arrays


def _symbol_arrays(pages: PageColumns) -> dict[str, np.ndarray]:
    """Every page's symbols: where each page's start (`symbol_start`), their kinds (places
    in `SYMBOL_KINDS`), and their names and anchors as numbers in tables of distinct texts."""
    symbols = pages.symbols
    arrays = Strings.arrays(symbols.names, "symbol_name")
    arrays.update(Strings.arrays(symbols.anchors, "symbol_anchor"))
    arrays["symbol_name_id"] = np.frombuffer(symbols.name, dtype=np.int_).astype(np.int32)
    arrays["symbol_anchor_id"] = np.frombuffer(symbols.anchor, dtype=np.int_).astype(np.int32)
    arrays["symbol_kind"] = np.frombuffer(symbols.kind, dtype=np.uint8).copy()
    arrays["symbol_start"] = narrow(pages.symbol_start)
    return arrays


def narrow(offsets: np.ndarray) -> np.ndarray:
    """Offsets as uint32 when they fit (half the size, mapped or not)."""
    return offsets.astype(np.uint32) if offsets[-1] < 1 << 32 else offsets


def _root(url: str) -> str:
    found = _SITE_ROOT.match(url)
    return found.group(0) if found else url


def _roots(urls: Iterable[str]) -> set[str]:
    """`scheme://host[:port]` of every URL (most URLs share their predecessor's)."""
    found: set[str] = set()
    last = "\0"
    for url in urls:
        if not (url.startswith(last) and url[len(last) : len(last) + 1] in ("/", "?", "#", "")):
            last = _root(url)
            found.add(last)
    return found


def _folders(paths: Sequence[str]) -> list[str]:
    """Every path prefix that has pages below it, sorted."""
    parents = set(map(itemgetter(0), map(str.rpartition, paths, repeat("/"))))
    found = set()
    for parent in parents:
        parts = parent.split("/")
        for n in range(2, len(parts) + 1):
            found.add("/".join(parts[:n]))
    return sorted(found)


def _top_sections(paths: Sequence[str], base: str) -> list[tuple[str, int]]:
    """Top-level sections with their page counts, largest first; each count is what
    get_section_pages of that section lists.

    Below the base path a section is the first segment that has pages below it. The base
    itself (the root entry) lists every page below it, so it counts them all; pages outside
    it (on another host, say) form sections of their own, named by the shortest prefix of
    their path that does not lead to the base.
    """
    root = base or "/"
    inside = base + "/"
    counts: Counter[str] = Counter()
    firsts: list[str] = []
    folders = set()
    for path in paths:
        if base and not path.startswith(inside) and path != base:
            counts[_outside_section(path, base)] += 1
            continue
        counts[root] += 1
        rest = path[len(base) :]
        if "//" in rest:
            rest = "/".join(s for s in rest.split("/") if s)
        first, _, below = rest.lstrip("/").partition("/")
        if first:
            firsts.append(first)
        if below:
            folders.add(first)
    for first in firsts:
        if first in folders:
            counts[f"{base}/{first}"] += 1
    return sorted(counts.items(), key=lambda item: (-item[1], item[0]))


def _outside_section(path: str, base: str) -> str:
    """The shortest prefix of `path` (outside `base`) that is not `base` or above it: its
    pages are then exactly the pages below that prefix."""
    parts = [s for s in path.split("/") if s]
    for n in range(1, len(parts) + 1):
        prefix = "/" + "/".join(parts[:n])
        if not (base + "/").startswith(prefix + "/"):
            return prefix
    return base or "/"


class Picked(Sequence[T]):
    """Items read on demand by number, `read(numbers[i])`: pages of a section, or a column in
    sorted order for bisection. Slices stay lazy."""

    def __init__(self, read: Callable[[int], T], numbers: Sequence[int] | np.ndarray) -> None:
        self._read = read
        self._numbers = numbers

    def __len__(self) -> int:
        return len(self._numbers)

    @overload
    def __getitem__(self, i: int) -> T: ...
    @overload
    def __getitem__(self, i: slice) -> Sequence[T]: ...
    def __getitem__(self, i: int | slice) -> Any:
        if isinstance(i, slice):
            return Picked(self._read, self._numbers[i])
        return self._read(int(self._numbers[i]))

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Sequence) and list(self) == list(other)


class PageTable(Sequence[Page]):
    """Pages by number, made on demand from the arrays of `build_table`."""

    def __init__(self, arrays: dict[str, np.ndarray]) -> None:
        self._urls = Strings(arrays["url_data"], arrays["url_offsets"])
        self._titles = Strings(arrays["title_data"], arrays["title_offsets"])
        self._sections = Strings(arrays["section_data"], arrays["section_offsets"])
        self._section_id = arrays["section_id"]
        self._section_cache: dict[int, str] = {}
        self._rows: dict[int, tuple[str, str, str]] = {}
        self._groups = Strings(arrays["group_data"], arrays["group_offsets"])
        self._group_id = arrays["group_id"]
        self._optional = {
            name: (
                Strings(arrays[f"{name}_data"], arrays[f"{name}_offsets"]),
                arrays[f"{name}_present"],
            )
            for name in ("description", "markdown_url", "lastmod")
        }
        self._url_order = arrays["url_order"]
        self._by_url = Picked(self.url, self._url_order)
        self._by_path = Picked(lambda i: url_path(self.url(i)), arrays["path_order"])
        self._path_order = arrays["path_order"]
        self.folders = Strings(arrays["folder_data"], arrays["folder_offsets"])
        self.outline_start = arrays["outline_start"]
        self._heading_level = arrays["heading_level"]
        self._heading_repeats = arrays["heading_repeats"]
        self._heading_titles = Strings(
            arrays["heading_title_data"], arrays["heading_title_offsets"]
        )
        self._heading_title_id = arrays["heading_title_id"]
        self._heading_anchors = Strings(
            arrays["heading_anchor_data"], arrays["heading_anchor_offsets"]
        )
        self._heading_anchor_id = arrays["heading_anchor_id"]
        self.symbol_start = arrays["symbol_start"]
        self._symbol_names = Strings(arrays["symbol_name_data"], arrays["symbol_name_offsets"])
        self._symbol_name_id = arrays["symbol_name_id"]
        self._symbol_anchors = Strings(
            arrays["symbol_anchor_data"], arrays["symbol_anchor_offsets"]
        )
        self._symbol_anchor_id = arrays["symbol_anchor_id"]
        self._symbol_kind = arrays["symbol_kind"]

    def __len__(self) -> int:
        return len(self._urls)

    @overload
    def __getitem__(self, i: int) -> Page: ...
    @overload
    def __getitem__(self, i: slice) -> Sequence[Page]: ...
    def __getitem__(self, i: int | slice) -> Any:
        if isinstance(i, slice):
            return [self.page(j) for j in range(*i.indices(len(self)))]
        if i < 0:
            i += len(self)
        if not 0 <= i < len(self):
            raise IndexError(i)
        return self.page(i)

    def __iter__(self) -> Iterator[Page]:
        return (self.page(i) for i in range(len(self)))

    def url(self, i: int) -> str:
        return self._urls.get(i)

    def title(self, i: int) -> str:
        return self._titles.get(i)

    def section(self, i: int) -> str:
        number = self._section_id.item(i)
        found = self._section_cache.get(number)
        if found is None:
            found = self._sections.get(number)
            if len(self._section_cache) < 4096:
                self._section_cache[number] = found
        return found

    def row(self, i: int) -> tuple[str, str, str]:
        """(url, title, section) of a page: what a search result shows (the rows of the first
        few thousand pages shown are kept: the pages searches find tend to recur)."""
        found = self._rows.get(i)
        if found is None:
            found = self._urls.get(i), self._titles.get(i), self.section(i)
            if len(self._rows) < ROWS_KEPT:
                self._rows[i] = found
        return found

    def page(self, i: int) -> Page:
        group = self._group_id.item(i)
        optional = {
            name: strings.get(i) if len(present) and present.item(i) else None
            for name, (strings, present) in self._optional.items()
        }
        return Page(
            url=self.url(i),
            title=self.title(i),
            section=self.section(i),
            group=self._groups.get(group) if group >= 0 else None,
            **optional,
            outline=self.outline(i),
            symbols=self.symbols(i),
        )

    def symbol(self, at: int) -> Symbol:
        """Symbol number `at` (of all pages' symbols: see `symbol_start`)."""
        anchor = self._symbol_anchor_id.item(at)
        return Symbol(
            self._symbol_names.get(self._symbol_name_id.item(at)),
            SYMBOL_KINDS[self._symbol_kind.item(at)],
            self._symbol_anchors.get(anchor) if anchor >= 0 else None,
        )

    def symbols(self, i: int) -> tuple[Symbol, ...]:
        start, end = self.symbol_start.item(i), self.symbol_start.item(i + 1)
        return tuple(map(self.symbol, range(start, end)))

    def heading(self, h: int) -> Heading:
        """Heading number `h` (of all pages' headings: see `outline_start`)."""
        return Heading(self._heading_level.item(h), self.heading_title(h), self._heading_anchor(h))

    def heading_title(self, h: int) -> str:
        """The text of heading number `h` alone (no `Heading` made: the ranking reads many)."""
        return self._heading_titles.get(self._heading_title_id.item(h))

    def _heading_anchor(self, h: int) -> str | None:
        number = self._heading_anchor_id.item(h)
        return self._heading_anchors.get(number) if number >= 0 else None

    def heading_place(self, i: int, h: int) -> tuple[str, str | None]:
        """Heading `h` of page `i` as get_page's `section` takes it: its text (`Parent >
        Child`, parents up to the top, when the text occurs more than once on the page) and
        its anchor, if known."""
        text = self.heading_title(h)
        if self._heading_repeats.item(h):
            path = [text]
            level = self._heading_level.item(h)
            for parent in range(h - 1, self.outline_start.item(i) - 1, -1):
                if self._heading_level.item(parent) < level:
                    path.append(self.heading_title(parent))
                    level = self._heading_level.item(parent)
            text = " > ".join(reversed(path))
        return text, self._heading_anchor(h)

    def outline(self, i: int) -> tuple[Heading, ...]:
        start, end = self.outline_start.item(i), self.outline_start.item(i + 1)
        return tuple(map(self.heading, range(start, end)))

    def find(self, url: str) -> int:
        """The number of the page with this URL, or -1."""
        at = bisect.bisect_left(self._by_url, url)
        if at < len(self._by_url) and self._by_url[at] == url:
            return self._url_order.item(at)
        return -1

    def near(self, url: str, count: int) -> list[str]:
        """URLs that sort next to `url`: likely near-misses of a mistyped one."""
        at = bisect.bisect_left(self._by_url, url)
        return list(self._by_url[max(0, at - count) : at + count])

    def under(self, prefix: str) -> list[int]:
        """Numbers of the pages whose trimmed URL path is `prefix` or lies below it, in
        manifest order."""
        if prefix == "/":
            return list(range(len(self)))
        paths = self._by_path
        exact = slice(bisect.bisect_left(paths, prefix), bisect.bisect_right(paths, prefix))
        # Every path from prefix + "/" up to prefix + "0" ("0" sorts right after "/") lies below.
        below = slice(
            bisect.bisect_left(paths, prefix + "/"), bisect.bisect_left(paths, prefix + "0")
        )
        found = np.concatenate([self._path_order[exact], self._path_order[below]])
        return np.sort(found).tolist()
