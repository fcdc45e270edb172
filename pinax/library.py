"""The loaded manifests by name: fan-out search, sections, and "did you mean" for every miss.

Each manifest is a `Docs`: its pages as a `PageTable` (arrays) and its `SearchIndex`. Loaded
with an index folder (`Library.load(paths, index_dir)`, as the CLI does), both come from the
on-disk store, memory-mapped, built once per manifest content; loaded without one (or from
`Manifest` objects), the table is built at once and the index on first use, or by `warm()` in
the background, so a server can answer `initialize` before every index exists.
"""

from __future__ import annotations

import contextlib
import gc
import logging
import threading
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any, NamedTuple

import numpy as np

from pinax import columns as columns_io
from pinax import manifest as manifest_io
from pinax.columns import ManifestColumns, PageColumns
from pinax.errors import ManifestError, NotFound
from pinax.heap import kept_for_reuse
from pinax.index import SearchIndex, corrected_query
from pinax.indexing import FORMAT as INDEX_FORMAT
from pinax.indexing import build, page_path, page_paths, section_text
from pinax.manifest import Manifest, Page
from pinax.pagetable import PageTable, Picked, build_table, raw_paths_of, trim, url_path
from pinax.store import IndexCache, StoreError, Writer, content_hash, load, prefetch, signature
from pinax.tokens import chunk_words, chunks

log = logging.getLogger("pinax.library")

STRATEGIES = ("bm25", "fuzzy", "substring")  # from plain to most rescued
CHILDREN_EXPLAINED = 200  # children titles read to explain a hit's `children` field


def closest(word: str, choices: Iterable[str], cutoff: float = 60.0, limit: int = 1) -> list[str]:
    """The choices most like `word`, for "did you mean" hints."""
    from rapidfuzz import fuzz, process

    found = process.extract(
        word, list(choices), scorer=fuzz.WRatio, score_cutoff=cutoff, limit=limit
    )
    return [choice for choice, _, _ in found]


def did_you_mean(word: str, choices: Iterable[str]) -> str:
    match = closest(word, choices)
    return f" (did you mean {match[0]!r}?)" if match else ""


class Docs:
    """One manifest: its pages, its search index and its URL-path structure."""

    def __init__(
        self,
        header: dict[str, Any],
        arrays: dict[str, np.ndarray],
        pages: PageColumns | None = None,
    ) -> None:
        """`header` and `arrays` as `Docs.make` makes them; `pages` to build the index
        from when the arrays hold only the page table."""
        self.name: str = header["name"]
        self.url: str = header["url"]
        self.title: str = header["title"]
        self.description: str | None = header.get("description")
        self.ttl: float | None = header.get("ttl")  # seconds a fetched page stays fresh
        self.source: str = header["source"]
        self.base_path: str = header["base_path"]
        self.top_sections: list[tuple[str, int]] = [tuple(s) for s in header["top_sections"]]
        self.site_roots: list[str] = header["site_roots"]
        self.pages = PageTable(arrays)
        self._arrays = arrays
        self._source_pages = pages
        self.index_file: Path | None = None  # the on-disk index the arrays are mapped from
        self._index: SearchIndex | None = None
        self._lock = threading.Lock()

    @classmethod
    def from_manifest(cls, manifest: Manifest) -> Docs:
        """A manifest in memory; its index is built on first use."""
        columns = ManifestColumns.of(manifest)
        arrays: dict[str, np.ndarray] = {}
        header = cls.make(columns, arrays.__setitem__, index=False)
        return cls(header, arrays, columns.pages)

    @staticmethod
    def make(
        manifest: ManifestColumns, add: Callable[[str, np.ndarray], None], index: bool = True
    ) -> dict[str, Any]:
        """Make the arrays a `Docs` is made of (what the store saves), handing each to `add`
        as soon as it is ready; return the header."""
        with _no_gc():  # millions of short-lived objects, none in a cycle
            paths = raw_paths_of(manifest.pages.url)
            arrays, site = build_table(manifest.pages, manifest.url, paths)
            for name in list(arrays):
                add(name, arrays.pop(name))
            if index:
                base = site["base_path"]
                paths = page_paths(paths, base)
                arrays = build(manifest.pages, base, _handed_over(paths))
                for name in list(arrays):
                    add(name, arrays.pop(name))
        return {
            "name": manifest.name,
            "url": manifest.url,
            "title": manifest.title,
            "description": manifest.description,
            "ttl": manifest.ttl,
            "source": manifest.source,
            **site,
        }

    @property
    def manifest(self) -> Manifest:
        """The whole manifest as value objects (every page made: costly for large ones)."""
        return Manifest(
            name=self.name,
            url=self.url,
            title=self.title,
            pages=tuple(self.pages),
            description=self.description,
            ttl=self.ttl,
            source=self.source,
        )

    @property
    def ready(self) -> bool:
        """Whether the search index is built (a call will not wait for it)."""
        return self._index is not None or "terms" in self._arrays

    @property
    def index(self) -> SearchIndex:
        if self._index is None:
            with self._lock:
                if self._index is None:
                    arrays = self._arrays
                    if "terms" not in arrays:
                        assert self._source_pages is not None
                        arrays = build(self._source_pages, self.base_path)
                    self._index = SearchIndex(arrays, self.fields_of)
                    self._source_pages = None
        return self._index

    def fields_of(self, doc: int) -> list[str]:
        """A page's search fields as text (see `pinax.indexing.FIELDS`), to explain a hit."""
        page = self.pages.page(doc)
        slug = page_path(page.url, self.base_path).rpartition("/")[2]
        section = section_text(page.section, page.group, self.base_path)
        parent = page.url.rstrip("/")
        children = [
            self.pages.title(i)
            for i in self.pages.under(url_path(page.url))[: CHILDREN_EXPLAINED * 4]
            if self.pages.url(i).rstrip("/").rpartition("/")[0] == parent
        ][:CHILDREN_EXPLAINED]
        description = page.description or ""
        return [page.title, slug, section, description, " ".join(children), page.title]

    @property
    def folders(self) -> Sequence[str]:
        """Every path prefix that has pages below it, for section suggestions."""
        return self.pages.folders

    def section_pages(self, section: str) -> tuple[str, Sequence[Page]]:
        """(the prefix that matched, pages whose URL path is it or lies below it, in manifest
        order, made only when read).

        A section not found as given is tried below the base path, so `/topics` finds
        Django's `/en/dev/topics`; nothing found gives an empty list.
        """
        for prefix in self._candidates(section):
            found = self.pages.under(prefix)
            if found:
                return prefix, Picked(self.pages.page, found)
        return trim(section), []

    def _candidates(self, section: str) -> list[str]:
        prefix = trim(section)
        if self.base_path and not (prefix + "/").startswith(self.base_path + "/"):
            return [prefix, trim(self.base_path + prefix)]
        return [prefix]

    def find(self, url: str) -> Page | None:
        doc = self.pages.find(url)
        return self.pages.page(doc) if doc >= 0 else None


class SearchHit(NamedTuple):
    docs: str
    url: str
    title: str
    section: str
    score: float
    explain: dict[str, Any] | None = None


@dataclass
class Found:
    """A search's results over the selected manifests."""

    hits: list[SearchHit]
    corrections: dict[str, str]  # query word -> the known word it was read as
    strategy: str  # "bm25", "fuzzy" or "substring": the most rescue any result needed
    pages_searched: int

    def did_you_mean(self, query: str) -> str | None:
        return corrected_query(query, self.corrections) if self.corrections else None


class Library:
    """Manifests by name; the one place that knows which docs are loaded."""

    def __init__(self, manifests: Sequence[Manifest] = (), docs: Sequence[Docs] = ()) -> None:
        self._docs: dict[str, Docs] = {}
        for entry in [*docs, *(Docs.from_manifest(m) for m in manifests)]:
            if entry.name in self._docs:
                other = self._docs[entry.name].source
                raise ManifestError(
                    entry.source,
                    "name",
                    f"{entry.name!r} is also the name of the manifest in {other}",
                )
            self._docs[entry.name] = entry

    @classmethod
    def load(cls, paths: Iterable[str | Path], index_dir: Path | None = None) -> Library:
        """Load manifest files; with `index_dir`, through the on-disk index kept there."""
        if index_dir is None:
            return cls([manifest_io.load(p) for p in paths])
        cache = IndexCache(Path(index_dir), f"pinax-index-{INDEX_FORMAT}")
        return cls(docs=[open_docs(Path(p), cache) for p in paths])

    def __len__(self) -> int:
        return len(self._docs)

    @property
    def names(self) -> list[str]:
        return list(self._docs)

    def all(self) -> list[Docs]:
        return list(self._docs.values())

    def get(self, name: str) -> Docs:
        docs = self._docs.get(name)
        if docs is None:
            if not self._docs:
                raise NotFound(f"no manifest named {name!r}: no manifests are loaded")
            hint = did_you_mean(name, self._docs) or f"; loaded: {', '.join(self._docs)}"
            raise NotFound(f"no manifest named {name!r}{hint}")
        return docs

    def select(self, name: str | None) -> list[Docs]:
        return self.all() if name is None else [self.get(name)]

    @property
    def ready(self) -> bool:
        """Whether every search index is built."""
        return all(docs.ready for docs in self._docs.values())

    def warm(self, read_files: bool = True) -> None:
        """Build every index and its term lookup table, and (`read_files`) read the index
        files into the page cache, now (e.g. in a background thread after start-up), so the
        first queries are as fast as the others."""
        for docs in self.all():
            docs.index.vocabulary.prepare()
            if read_files and docs.index_file is not None:
                prefetch(docs.index_file)

    def search(
        self, query: str, limit: int, name: str | None = None, explain: bool = False
    ) -> Found:
        """Best pages first across the selected manifests (ties: rank, then manifest order).

        A word one manifest knows is not a typo, so no other manifest corrects it."""
        selected = self.select(name)
        known: frozenset[str] = frozenset()
        if len(selected) > 1:
            written = {w for chunk in chunks(query) for w, _ in chunk_words(chunk)}
            known = frozenset(w for w in written if any(d.index.knows(w) for d in selected))
        merged: list[tuple[float, int, int, Docs, int, dict[str, Any] | None]] = []
        corrections: dict[str, str] = {}
        strategy = "bm25"
        for order, docs in enumerate(selected):
            index = docs.index
            plan = index.plan(query, trusted=known)
            ranked = index.run(plan, limit, explain)
            if not ranked.docs:
                continue
            if STRATEGIES.index(plan.strategy) > STRATEGIES.index(strategy):
                strategy = plan.strategy
            for word, fixed in plan.corrections.items():
                corrections.setdefault(word, fixed)
            details = ranked.explain or [None] * len(ranked.docs)
            for rank, doc in enumerate(ranked.docs):
                merged.append((-ranked.scores[rank], rank, order, docs, doc, details[rank]))
        if len(selected) > 1:
            merged.sort(key=lambda item: item[:3])
        hits = [
            SearchHit(docs.name, *docs.pages.row(doc), -negative, detail)
            for negative, _, _, docs, doc, detail in merged[:limit]
        ]
        pages_searched = sum(len(d.pages) for d in selected)
        return Found(hits, corrections, strategy, pages_searched)

    def find_page(self, url: str) -> tuple[Docs, Page] | None:
        for docs in self.all():
            page = docs.find(url)
            if page is not None:
                return docs, page
        return None

    def site_roots(self) -> list[str]:
        """`scheme://host[:port]` of every URL the manifests name: where get_page may go."""
        return sorted({root for docs in self.all() for root in docs.site_roots})

    def site_urls(self) -> Iterator[str]:
        """Every URL the manifests name (every page of every manifest: prefer `site_roots`)."""
        for docs in self.all():
            yield docs.url
            for page in docs.pages:
                yield page.url
                if page.markdown_url:
                    yield page.markdown_url

    def similar_urls(self, url: str, limit: int = 3) -> list[str]:
        """Known URLs like a mistyped one: its neighbours in sorted order, and the pages a
        search for its path's words finds."""
        candidates: set[str] = set()
        words = " ".join(chunks(url.partition("://")[2].partition("/")[2]))  # no parsing: any text
        for docs in self.all():
            candidates.update(docs.pages.near(url, 10))
            if words:
                found = docs.index.run(docs.index.plan(words), 20)
                candidates.update(docs.pages.url(doc) for doc in found.docs)
        return closest(url, sorted(candidates), cutoff=70.0, limit=limit)

    def describe(self) -> list[dict[str, Any]]:
        return [
            {"name": d.name, "title": d.title, "url": d.url, "pages": len(d.pages)}
            for d in self.all()
        ]


def _handed_over(items: list[str]) -> list[str]:
    """The items in a new list, the old one emptied: the callee alone holds them (and frees
    them when done)."""
    taken = items[:]
    items.clear()
    return taken


@contextmanager
def _no_gc() -> Iterator[None]:
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


def open_docs(path: Path, cache: IndexCache) -> Docs:
    """A manifest file through the on-disk index: mapped if it exists and is sound, else
    built from the (validated) manifest and saved for the next start (the index of the
    manifest's previous content is removed then)."""
    source = str(path)
    try:
        digest = cache.known_hash(path)
    except OSError:
        digest = None
    raw: bytes | None = None
    previous = None
    if digest is None:
        try:
            before = signature(path)
            raw = path.read_bytes()
        except OSError:
            manifest_io.load(path)  # raises the ManifestError that names the problem
            raise
        digest = content_hash(raw, cache.version)
        previous = cache.recorded_hash(path)
        if signature(path) == before:
            cache.remember(path, digest, before)
    target = cache.index_path(digest)
    if target.exists():
        try:
            return _mapped(target, source)
        except StoreError as exc:
            log.warning("index %s is unusable (%s); rebuilding it", target, exc)
    if raw is None:
        raw = path.read_bytes()
    started = time.perf_counter()
    with kept_for_reuse():
        with _no_gc():
            manifest = columns_io.loads(raw, source)
        del raw
        try:
            _save(manifest, target)
        except OSError as exc:
            log.warning("cannot save the index of %s (%s); keeping it in memory", source, exc)
            arrays: dict[str, np.ndarray] = {}
            return Docs(Docs.make(manifest, arrays.__setitem__), arrays)
        del manifest
    log.info("indexed %s in %.1f s", source, time.perf_counter() - started)
    if previous and previous != digest:
        with contextlib.suppress(OSError):  # still mapped elsewhere, or gone: no matter
            cache.index_path(previous).unlink(missing_ok=True)
    return _mapped(target, source)  # serve from the mapping: only touched pages stay in memory


def _mapped(target: Path, source: str) -> Docs:
    arrays, header = load(target)
    docs = Docs({**header, "source": source}, arrays)
    docs.index_file = target
    return docs


def _save(manifest: ManifestColumns, target: Path) -> None:
    writer = Writer(target)
    try:
        writer.commit(Docs.make(manifest, writer.add))
    except BaseException:
        writer.abort()
        raise
