"""One manifest's search side: its pages as a `PageTable` (arrays) and its `SearchIndex`.

Opened through the on-disk store (`open_collection`), both are memory-mapped, built once per
manifest content; made from a `Manifest` in memory (`Collection.from_manifest`), the table is built
at once and the index on first use, so a server can answer `initialize` before every index
exists.
"""

from __future__ import annotations

import contextlib
import gc
import hashlib
import logging
import threading
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import numpy as np

from pinax import manifest as manifest_io
from pinax.errors import ManifestError
from pinax.files import SpecialFile
from pinax.manifest import (
    Manifest,
    ManifestColumns,
    Page,
    PageColumns,
    PageTable,
    PageText,
    Picked,
    Symbol,
    build_table,
    open_page_texts,
    parse_columns,
    raw_paths_of,
    read_page_texts,
    trim,
    url_path,
)
from pinax.search import semantic
from pinax.search.content import FORMAT as CONTENT_FORMAT
from pinax.search.content import ContentIndex
from pinax.search.heap import kept_for_reuse
from pinax.search.index import SearchIndex
from pinax.search.indexing import (
    FORMAT,
    build,
    page_path,
    page_paths,
    section_text,
)
from pinax.search.store import (
    IndexCache,
    StoreError,
    Writer,
    content_hash,
    load,
    prefetch,
    save,
    signature,
)

log = logging.getLogger("pinax.search")

CHILDREN_EXPLAINED = 200  # children titles read to explain a hit's `children` field


def index_cache(folder: Path) -> IndexCache:
    """The on-disk indexes kept in `folder` (those of another index format, or made with
    another embedding model or none, are ignored: installing the model re-indexes)."""
    return IndexCache(folder, f"pinax-index-{FORMAT}-{semantic.state()}")


class Collection:
    """One manifest: its pages, its search index and its URL-path structure."""

    def __init__(
        self,
        header: dict[str, Any],
        arrays: dict[str, np.ndarray],
        pages: PageColumns | None = None,
    ) -> None:
        """`header` and `arrays` as `Collection.make` makes them; `pages` to build the index
        from when the arrays hold only the page table."""
        self.name: str = header["name"]
        self.url: str = header["url"]
        self.title: str = header["title"]
        self.description: str | None = header.get("description")
        self.ttl: float | None = header.get("ttl")  # seconds a fetched page stays fresh
        self.source: str = header["source"]
        self.declared_content: str | None = header.get("content")
        self.version: str | None = header.get("version")  # of the software documented
        packages = header.get("packages")  # "ecosystem:name"; None: its own name's
        self.packages: tuple[str, ...] | None = None if packages is None else tuple(packages)
        self.base_path: str = header["base_path"]
        self.top_sections: list[tuple[str, int]] = [tuple(s) for s in header["top_sections"]]
        self.site_roots: list[str] = header["site_roots"]
        self.pages = PageTable(arrays)
        self._arrays = arrays
        self._source_pages = pages
        self.index_file: Path | None = None  # the on-disk index the arrays are mapped from
        self._index: SearchIndex | None = None
        self._lock = threading.Lock()
        # What the pages say (see `load_content`): the file, its index once loaded, and
        # why it is not (a warning), for list_docs and doctor.
        self.content_path: Path | None = None
        self.content_source: Callable[[], Iterable[PageText]] | None = None
        self.content: ContentIndex | None = None
        self.content_note: str | None = None
        self.content_file: Path | None = None  # the cache file `content` is mapped from

    @classmethod
    def from_manifest(cls, manifest: Manifest) -> Collection:
        """A manifest in memory; its index is built on first use."""
        columns = ManifestColumns.of(manifest)
        arrays: dict[str, np.ndarray] = {}
        header = cls.make(columns, arrays.__setitem__, index=False)
        return cls(header, arrays, columns.pages)

    @staticmethod
    def make(
        manifest: ManifestColumns, add: Callable[[str, np.ndarray], None], index: bool = True
    ) -> dict[str, Any]:
        """Make the arrays a `Collection` is made of (what the store saves), handing each to `add`
        as soon as it is ready; return the header."""
        with _no_gc():  # millions of short-lived objects, none in a cycle
            paths = raw_paths_of(manifest.pages.url)
            arrays, site = build_table(manifest.pages, manifest.url, paths)
            for name in list(arrays):
                add(name, arrays.pop(name))
            if index:
                base = site["base_path"]
                paths = page_paths(paths, base)
                build(manifest.pages, base, _handed_over(paths), add)  # handed over as made
        return {
            "name": manifest.name,
            "url": manifest.url,
            "title": manifest.title,
            "description": manifest.description,
            "ttl": manifest.ttl,
            "source": manifest.source,
            "content": manifest.content,
            "version": manifest.version,
            "packages": None if manifest.packages is None else list(manifest.packages),
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
            content=self.declared_content,
            version=self.version,
            packages=self.packages,
        )

    @property
    def identity(self) -> str:
        """`name@version`, or `name`: unique among the loaded docs."""
        return f"{self.name}@{self.version}" if self.version else self.name

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
                    if "terms" not in arrays:  # the page table's, and now the index's
                        assert self._source_pages is not None
                        arrays = {**arrays, **build(self._source_pages, self.base_path)}
                    self._index = SearchIndex(arrays, self.fields_of)
                    self._source_pages = None
        return self._index

    def fields_of(self, doc: int) -> list[str]:
        """A page's search fields as text (see `pinax.search.indexing.FIELDS`), to explain a hit."""
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
        anchors = {s.anchor for s in page.symbols}  # headings that are symbols count as those
        headings = " ".join(h.title for h in page.outline if h.anchor not in anchors)
        symbols = " ".join(s.name for s in page.symbols)
        children_text = " ".join(children)
        return [
            page.title,
            slug,
            section,
            description,
            children_text,
            page.title,
            headings,
            symbols,
        ]

    def place(self, doc: int, heading: int) -> tuple[str, str | None]:
        """A hit's heading as `get_page(url, section=...)` takes it, and its anchor."""
        return self.pages.heading_place(doc, heading)

    def symbol(self, at: int) -> Symbol:
        """Symbol number `at` of all pages' (as `SearchIndex.best_symbols` names them)."""
        return self.pages.symbol(at)

    def warm(self, read_files: bool = True) -> None:
        """Build the index and its term lookup table, and (`read_files`) read the index file
        into the page cache, so the first queries are as fast as the others."""
        self.index.vocabulary.prepare()
        if read_files and self.index_file is not None:
            prefetch(self.index_file)

    def load_content(self, folder: Path | None = None, previous: Collection | None = None) -> None:
        """Load the index of `content_path`: mapped from `folder` (where it is kept by the
        content file's hash and this manifest's index) if there and sound, else built and
        saved there; taken over from `previous` (these docs before a reload) when that is the
        same file, not mapped and checked again. A bad file costs a warning
        (`content_note`), never the docs; a reload whose file is bad keeps no half-read
        content."""
        path = self.content_path
        if (path is None and self.content_source is None) or self.content is not None:
            return
        # The builder loads only when an index is built: a server mapping built indexes
        # never loads it (content_build imports content, never the other way).
        from pinax.search.content_build import build as build_content

        try:
            target = None
            if path is None:  # text from a docs folder, read now: nothing kept on disk
                assert self.content_source is not None
                self.content = ContentIndex(build_content(self.content_source(), self.pages).arrays)
                return
            if folder is not None and self.index_file is not None:
                target = folder / f"{_content_key(path, folder, self.index_file.name)}.pxc"
                if previous is not None and previous.content_file == target:
                    self.content, self.content_note = previous.content, previous.content_note
                    self.content_file = target
                    return
                headings = int(self.pages.outline_start[-1])
                index = _mapped_content(target, len(self.pages), headings)
                if index is not None:
                    self.content, self.content_file = index, target
                    return
            started = time.perf_counter()
            built = build_content(read_page_texts(path), self.pages)
            index = ContentIndex(built.arrays)
            if built.skipped_pages or built.unmatched_sections:
                self.content_note = (
                    f"{path}: {built.skipped_pages} pages not in the manifest skipped, "
                    f"{built.unmatched_sections} sections not matching the outline"
                )
                log.warning("%s", self.content_note)
            if target is not None:
                try:
                    save(target, built.arrays, {"content_format": CONTENT_FORMAT})
                except OSError as exc:
                    log.warning("cannot save the content index of %s (%s)", path, exc)
            log.info("indexed the content of %s in %.1f s", path, time.perf_counter() - started)
            self.content, self.content_file = index, target
        except (ManifestError, OSError, SpecialFile, ValueError) as exc:
            self.content_note = f"served without content: {exc}"
            log.warning("%s: %s", self.name, self.content_note)

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


def open_collection(path: Path, cache: IndexCache) -> Collection:
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
            raw = manifest_io.read_bytes(path)  # a FIFO or a device: refused, not waited on
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
        raw = manifest_io.read_bytes(path)
    started = time.perf_counter()
    with kept_for_reuse():
        with _no_gc():
            manifest = parse_columns(raw, source)
        del raw
        try:
            _save(manifest, target)
        except OSError as exc:
            log.warning("cannot save the index of %s (%s); keeping it in memory", source, exc)
            arrays: dict[str, np.ndarray] = {}
            return Collection(Collection.make(manifest, arrays.__setitem__), arrays)
        del manifest
    log.info("indexed %s in %.1f s", source, time.perf_counter() - started)
    if previous and previous != digest:
        with contextlib.suppress(OSError):  # still mapped elsewhere, or gone: no matter
            cache.index_path(previous).unlink(missing_ok=True)
    return _mapped(target, source)  # serve from the mapping: only touched pages stay in memory


def _mapped(target: Path, source: str) -> Collection:
    """The docs mapped from an index file; StoreError if the file lacks what they need (the
    cache folder is untrusted, and an index of another build may have other arrays)."""
    arrays, header = load(target)
    if "terms" not in arrays:
        raise StoreError("it holds no search index")
    try:
        docs = Collection({**header, "source": source}, arrays)
        docs.index  # noqa: B018  (made now: a missing array is found here, not mid-search)
    except (KeyError, TypeError, ValueError) as exc:
        raise StoreError(f"it lacks or garbles {exc}") from None
    docs.index_file = target
    return docs


def _save(manifest: ManifestColumns, target: Path) -> None:
    writer = Writer(target)
    try:
        writer.commit(Collection.make(manifest, writer.add))
    except BaseException:
        writer.abort()
        raise


def _content_key(path: Path, folder: Path, salt: str) -> str:
    """A content file's key: a hash of its bytes (streamed) and of the manifest index it is
    joined to. Remembered with the file's size and times, as a manifest's is, so a restart
    reads a large unchanged file not at all."""
    records = IndexCache(folder, f"pinax-content-{CONTENT_FORMAT}-{salt}")
    known = records.known_hash(path)
    if known:
        return known
    before = signature(path)
    digest = hashlib.sha256(f"{CONTENT_FORMAT}:{salt}\0".encode())
    with open_page_texts(path) as file:
        for block in iter(lambda: file.read(1 << 20), b""):
            digest.update(block)
    key = digest.hexdigest()[:32]
    if signature(path) == before:  # not changed while read
        records.remember(path, key, before)
    return key


def _mapped_content(target: Path, pages: int, headings: int) -> ContentIndex | None:
    """The content index kept at `target`, or None if absent or unsound (the cache folder
    is untrusted: a damaged file is rebuilt, never used)."""
    if not target.exists():
        return None
    try:
        arrays, meta = load(target)
        if meta.get("content_format") != CONTENT_FORMAT:
            raise StoreError("another content format")
        index = ContentIndex(arrays)
        index.check(pages, headings)
        return index
    except (StoreError, KeyError, TypeError, ValueError, AttributeError) as exc:
        log.warning("content index %s is unusable (%s); rebuilding it", target, exc)
        return None
