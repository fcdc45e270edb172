"""The five tools as plain functions: arguments checked here, JSON-ready dicts out.

Nothing here knows about MCP or the command line: the server and the CLI both call these,
and a failure is raised as a `PinaxError` whose code and message the caller turns into a
result. Arguments arrive as a model or a shell sent them, so every one is checked.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from contextvars import ContextVar
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar
from urllib.parse import unquote, urlsplit

from pinax.arguments import (
    CONTENT_WEIGHT,
    EMBEDDING_WEIGHT,
    LEXICAL_WEIGHT,
    MAX_URL_LENGTH,
    bounded_int,
    docs_name,
    flag,
    fraction,
    search_weights,
    section_path,
    text_argument,
)
from pinax.errors import FetchFailed, InvalidArgs, NotFound
from pinax.hints import closest_texts, did_you_mean
from pinax.library import (
    Chosen,
    Collection,
    Library,
    index_state,
    version_arg,
)
from pinax.manifest import Manifest, Page
from pinax.pages import (
    DEFAULT_MAX_TOKENS,
    DEFAULT_TTL,
    MAX_MAX_TOKENS,
    MIN_MAX_TOKENS,
    AddressPolicy,
    Credentials,
    PageCache,
    SectionNotFound,
    UrlPolicy,
    default_cache_dir,
    origin_of,
    page_slice,
    site_origins,
    visible_text,
)
from pinax.search import RANKING

if TYPE_CHECKING:
    from pinax.pages import PageReader
    from pinax.project import Project, Scope

DEFAULT_LIMIT = 10
MAX_LIMIT = 50
MAX_QUERY_LENGTH = 500
# search_pages' default weights (see `pinax.search.ranking`, where each is measured)
DEFAULT_SECTION_LIMIT = 200
MAX_SECTION_LIMIT = 1000
MAX_HEADING_LENGTH = 500
MAX_CURSOR_LENGTH = 200
INDEX_FOLDER = "indexes"  # the on-disk search indexes, inside the cache folder
# The scope of the call being answered when its client's MCP roots gave one (set by the
# server around a call; None: the tools' own `scope`).
CALL_SCOPE: ContextVar[Scope | None] = ContextVar("pinax_call_scope", default=None)


class Tools:
    """The tool implementations over one library (and a page reader for get_page)."""

    def __init__(
        self,
        library: Library,
        reader: PageReader | None = None,
        ttls: Mapping[str, float] | None = None,
        make_reader: Callable[[], PageReader] | None = None,
        unavailable: Sequence[Mapping[str, str]] = (),
    ) -> None:
        self.library = library
        self._reader = reader
        self._make_reader = make_reader
        self._reader_lock = threading.Lock()
        self.ttls = dict(ttls or {})
        # search_pages' default (lexical, embedding) weights: `pinax serve` sets its own.
        self.weights: tuple[float, float, float] = (
            LEXICAL_WEIGHT,
            EMBEDDING_WEIGHT,
            CONTENT_WEIGHT,
        )
        # Docs the operator asked for that could not be loaded ({"source", "reason"}): the
        # server runs with the rest, and list_docs says what is missing.
        self.unavailable = [dict(item) for item in unavailable]
        # A live reload that failed since these docs loaded ({"since", "error", "source"}):
        # list_docs marks the sets it concerns as stale, so the model knows (reload.py).
        self.stale: dict[str, Any] | None = None
        # The default scope when a call names no docs: the projects' dependencies (see
        # `use_projects`); None: every library, each at its highest version.
        self.scope: Scope | None = None
        self.projects: list[Project] = []
        self.folder_names: list[str] = []  # docs folders served from disk: always in scope

    @property
    def reader(self) -> PageReader | None:
        """The page reader, made on first use when `make_reader` was given: a server that
        only searches never loads the HTTP stack (about 80 ms of start-up)."""
        if self._reader is None and self._make_reader is not None:
            with self._reader_lock:  # `warm_pages` may be making it on another thread
                if self._reader is None:
                    self._reader = self._make_reader()
        return self._reader

    def warm_pages(self) -> None:
        """Make the page reader and load the page extraction code now (a server does it on a
        background thread at start-up): the first get_page would otherwise import both where it
        runs, for half a second or more, on a server's event loop, every client waiting."""
        if self.reader is not None:
            self.reader.warm()

    @classmethod
    def open(
        cls,
        manifests: Iterable[str | Path],
        cache_dir: Path | None = None,
        ttl: float | None = None,
        ttls: Mapping[str, float] | None = None,
        allow_private: Iterable[str] = (),
        read_pages: bool = True,
        unavailable: Sequence[Mapping[str, str]] = (),
        contents: Mapping[str, Path] | None = None,
        folders: Sequence[tuple[Manifest, Mapping[str, tuple[Path, str]]]] = (),
        credentials: Credentials | None = None,
        folder_texts: Mapping[str, Callable[[], Iterable[Any]]] | None = None,
        cache_redis: str | None = None,
    ) -> Tools:
        """Load manifests (through their on-disk indexes in `cache_dir`/indexes) and wire
        get_page to their sites, with a page cache in `cache_dir` (unless `read_pages` is
        false: searching needs no HTTP client).

        A page stays fresh for `ttls["name@version"]` of its manifest, else `ttls[name]` (every
        version of it), else the manifest's own `ttl`, else `ttl` (default one day). get_page
        connects only to public addresses, plus the networks (CIDR) in `allow_private` and in
        `PINAX_ALLOW_PRIVATE`: the operator's allowance. `unavailable` lists requested docs
        that could not be loaded. `contents` names content files for manifests by name (others
        use the one beside them).

        `folders` are docs folders built in memory, each with its pages' files (page URL ->
        (folder, path inside it)): get_page reads those pages from disk, and never fetches
        anything else from a folder's site (only loaded manifests open a site).
        `credentials` are headers for sites behind a login, each sent to its origin only.
        `folder_texts` reads a folder manifest's page text (by name), searched as its content.
        `cache_redis` is a Redis URL whose page cache is shared with other processes.
        """
        folder = cache_dir or default_cache_dir()
        library = Library.load(manifests, index_dir=folder / INDEX_FOLDER, contents=contents)
        sites = library.site_roots()
        if folders:
            library = library.with_manifests([m for m, _ in folders], folder_texts or {})
        local = {url: place for _, files in folders for url, place in files.items()}
        ttls = ttls_by_identity(library, ttls or {})
        if not read_pages:
            tools = cls(library, None, ttls, unavailable=unavailable)
            tools.folder_names = [m.name for m, _ in folders if m.packages is None]
            return tools
        addresses = AddressPolicy.from_env(allow_private)  # a bad network stops start-up
        cache = PageCache(folder, DEFAULT_TTL if ttl is None else ttl)
        shared = None
        if cache_redis:
            from pinax.pages import open_shared

            shared = open_shared(cache_redis)  # a bad URL or a missing extra stops start-up

        def make_reader() -> PageReader:
            from pinax.pages import LocalFiles, PageReader

            policy = UrlPolicy(site_origins(sites), addresses)
            files = LocalFiles(local) if local else None
            return PageReader(policy, cache, files=files, credentials=credentials, shared=shared)

        tools = cls(library, None, ttls, make_reader, unavailable)
        tools.folder_names = [m.name for m, _ in folders if m.packages is None]
        return tools

    def use_projects(self, projects: Sequence[Project], served: Iterable[str] = ()) -> None:
        """Make the projects' dependencies the default scope of calls that name no docs;
        `served` are the names of docs folders served from disk (always in scope)."""
        from pinax.project import scope_of

        self.projects = list(projects)
        self.scope = scope_of(self.projects, self._loaded(), {*served, *self.folder_names})

    def use_project_folders(self, folders: Iterable[str | Path]) -> None:
        """Read each project folder (nothing executed, a bad file a warning) and make their
        dependencies the default scope."""
        from pinax.project import read_project

        self.use_projects([read_project(folder) for folder in folders])

    def project_warnings(self) -> list[str]:
        """The project files that could not be read, each naming the file."""
        return [warning for project in self.projects for warning in project.warnings]

    def _loaded(self) -> list[tuple[str, str | None, Sequence[str] | None]]:
        return [(d.name, d.version, d.packages) for d in self.library.all()]

    def choose(self, docs: Any = None, version: Any = None) -> Chosen:
        """The docs a call covers (see `Library.choose`): named by the caller, else the
        projects' scope, else every library at its highest version."""
        name = docs_name(docs)
        asked = version_arg(version)
        scope = CALL_SCOPE.get() or self.scope
        if name is None and asked is None and scope is not None:
            chosen = self.library.choose(None, scope=scope.docs)
            return Chosen(chosen.collections, {"scope": scope.to_dict()})
        return self.library.choose(name, asked)

    def scope_with_roots(self, uris: Iterable[object]) -> tuple[Scope | None, list[str]]:
        """The scope of a client whose MCP roots are `uris` (its folders are projects beside
        the server's), and a warning per root skipped or file that could not be read."""
        from pinax.project import with_roots

        return with_roots(self.projects, uris, self._loaded(), self.folder_names)

    def list_docs(self) -> dict[str, Any]:
        answer: dict[str, Any] = {"docs": self.library.describe()}
        if self.stale is not None:
            _mark_stale(answer["docs"], self.library.all(), self.stale)
        if self.unavailable:
            answer["unavailable"] = [dict(item) for item in self.unavailable]
        if self.scope is not None:
            answer["scope"] = self.scope.to_dict()
        return answer

    def list_sections(self, docs: Any = None, version: Any = None) -> dict[str, Any]:
        name = docs_name(docs)
        chosen = self.choose(docs, version)
        if name is not None:
            entry = chosen.collections[0]
            sections = [{"section": s, "pages": n} for s, n in entry.top_sections]
            return {"docs": entry.name, **chosen.said, "sections": sections}
        merged = [
            _versioned({"docs": entry.name, "section": s, "pages": n}, entry)
            for entry in chosen.collections
            for s, n in entry.top_sections
        ]
        merged.sort(key=lambda item: -item["pages"])
        return {**chosen.said, "sections": merged}

    def search_pages(
        self,
        query: Any,
        limit: Any = DEFAULT_LIMIT,
        docs: Any = None,
        explain: Any = False,
        threshold: Any = None,
        lexical_weight: Any = None,
        embedding_weight: Any = None,
        content_weight: Any = None,
        version: Any = None,
    ) -> dict[str, Any]:
        started = time.perf_counter()
        text = text_argument(query, "query", MAX_QUERY_LENGTH)
        count = bounded_int(limit, "limit", 1, MAX_LIMIT, DEFAULT_LIMIT)
        name = docs_name(docs)
        detailed = flag(explain, "explain")
        minimum = RANKING.threshold if threshold is None else fraction(threshold, "threshold")
        weights = search_weights(lexical_weight, embedding_weight, content_weight, self.weights)
        chosen = self.choose(docs, version)
        found = self.library.search_in(chosen.collections, text, count, detailed, weights)
        # One version of each library (see choose):
        by_name = {d.name: d for d in reversed(chosen.collections)}
        results = []
        for hit in found.hits:
            # Scores come rounded to 4 decimals, best first: one of 0 is a page nothing of
            # the query matched (the fan-out fills a short list with such), not a hit.
            if hit.score < minimum or hit.score <= 0:
                break
            row: dict[str, Any] = {
                "url": hit.url,
                "title": hit.title,
                "section": hit.section,
                "score": hit.score,
                "confidence": hit.confidence,
            }
            if hit.symbol is not None:
                row["symbol"] = hit.symbol
                row["kind"] = hit.kind
            if hit.heading is not None:
                row["heading"] = hit.heading
            if hit.anchor is not None:
                row["anchor"] = hit.anchor
            if hit.snippet is not None:
                row["snippet"] = visible_text(hit.snippet)  # as get_page would show it
            if hit.indexed_at is not None:
                row["indexed_at"] = hit.indexed_at
            if name is None:
                row["docs"] = hit.docs
            _versioned(row, by_name[hit.docs])
            if detailed:
                row["explain"] = hit.explain
            results.append(row)
        answer: dict[str, Any] = {"query": text, **chosen.said, "results": results}
        if found.also_matched:
            answer["also_matched"] = found.also_matched
        answer["strategy"] = found.strategy
        answer["pages_searched"] = found.pages_searched
        answer["latency_ms"] = round((time.perf_counter() - started) * 1000, 3)
        return answer

    def get_section_pages(
        self,
        section: Any,
        docs: Any = None,
        limit: Any = None,
        offset: Any = 0,
        version: Any = None,
    ) -> dict[str, Any]:
        prefix = section_path(section)
        name = docs_name(docs)
        count = bounded_int(limit, "limit", 1, MAX_SECTION_LIMIT, DEFAULT_SECTION_LIMIT)
        start = bounded_int(offset, "offset", 0, 10**9, 0)
        chosen = self.choose(docs, version)
        selected = chosen.collections
        if name is not None:
            name = selected[0].name
        listed = []
        matched = set()
        for entry in selected:
            found, pages = entry.section_pages(prefix)
            if pages:
                matched.add(found)
                listed.append((entry, pages))
        total = sum(len(pages) for _, pages in listed)
        if not total:
            folders = {f for entry in selected for f in entry.folders}
            where = f" in {name}" if name else ""
            shown = prefix if len(prefix) <= 80 else prefix[:80] + "..."
            hint = did_you_mean(closest_texts(prefix[:200], folders))
            raise NotFound(f"no section {shown!r}{where}{hint}")
        listed_pages = []  # only the pages shown are made (a section may hold a million)
        skip = start
        for entry, pages in listed:
            for page in pages[skip : skip + count - len(listed_pages)]:
                row = _page_row(page)
                if name is None:
                    row["docs"] = entry.name
                listed_pages.append(_versioned(row, entry))
            skip = max(0, skip - len(pages))
        shown = matched.pop() if len(matched) == 1 else prefix
        answer: dict[str, Any] = {"section": shown, "total": total, "pages": listed_pages}
        answer = {**chosen.said, **answer}
        if name is not None:
            answer = {"docs": name, **answer}
        if start + count < total:
            answer["truncated"] = True
            answer["next_offset"] = start + count
        return answer

    async def get_page(
        self, url: Any, max_tokens: Any = None, section: Any = None, cursor: Any = None
    ) -> dict[str, Any]:
        text = text_argument(url, "url", MAX_URL_LENGTH)
        budget = bounded_int(
            max_tokens, "max_tokens", MIN_MAX_TOKENS, MAX_MAX_TOKENS, DEFAULT_MAX_TOKENS
        )
        heading = None if section is None else text_argument(section, "section", MAX_HEADING_LENGTH)
        position = None if cursor is None else text_argument(cursor, "cursor", MAX_CURSOR_LENGTH)
        if self.reader is None:
            raise InvalidArgs("get_page is not available: no page reader is configured")
        known = self.library.find_page(text)
        fragment = None
        if known is None and "#" in text:  # a link to a heading: the page, at that section
            text, _, fragment = text.partition("#")
            known = self.library.find_page(text)
        if known is None and (folder := self._served_folder(text)) is not None:
            # A page of a served docs folder that is not (or no longer) there: never fetched.
            hint = did_you_mean(self.library.similar_urls(text))
            raise NotFound(f"no page at {text} in the docs folder {folder!r}{hint}")
        try:
            page = await self.reader.read(
                text,
                title_hint=known[1].title if known else "",
                twin_url=known[1].markdown_url if known else None,
                ttl=self._ttl(text, known[0] if known else None),
            )
        except FetchFailed as exc:
            if known is None and exc.status == 404:
                hint = did_you_mean(self.library.similar_urls(text))
                raise NotFound(f"no page at {text}{hint}") from exc
            raise
        except InvalidArgs as exc:
            # Only URLs on another origin can help: this one's were refused with it (an
            # address not allowed) or are not loaded at all (an origin not allowed).
            similar = [u for u in self.library.similar_urls(text) if not _same_origin(u, text)]
            exc.message += did_you_mean(similar)
            raise
        labelled = partial(_labelled, known[0] if known else None)
        names = {s.name: s.anchor for s in known[1].symbols if s.anchor} if known else {}
        # The slice is cut on a worker thread: finding a big page's headings and counting its
        # tokens is CPU in proportion to its size, which other clients must not wait for.
        if fragment and heading is None and position is None:
            try:
                return labelled(
                    await to_thread(page_slice, page, budget, unquote(fragment), None, names)
                )
            except SectionNotFound as exc:
                # Not a heading: say so rather than answer with the whole page as if asked.
                raise NotFound(_no_anchor(page["url"], unquote(fragment), exc)) from None
        try:
            return labelled(await to_thread(page_slice, page, budget, heading, position, names))
        except SectionNotFound as exc:
            hint = did_you_mean(closest_texts(heading or "", exc.choices))
            hint = hint or "; call get_page without a section to see the page's outline"
            raise NotFound(exc.message + hint) from None

    def _served_folder(self, url: str) -> str | None:
        """The name of the served docs folder whose site `url` lies in, if any."""
        files = self.reader.files if self.reader is not None else None
        if files is None or not files.pages:
            return None
        if {".", ".."} & set(unquote(urlsplit(url).path).split("/")):
            return None  # a path that climbs out: refused as not a page of the folder

        for docs in self.library.all():
            if url.startswith(docs.url) and len(docs.pages) and docs.pages.url(0) in files:
                return docs.name
        return None

    def _ttl(self, url: str, collection: Collection | None) -> float | None:
        """The freshness of a page: its manifest's TTL, if one was set."""
        if collection is None:
            try:
                origin = origin_of(url)
            except ValueError:  # not a URL: the page reader refuses it
                return None
            collection = next((d for d in self.library.all() if origin_of(d.url) == origin), None)
        if collection is None:
            return None
        return self.ttls.get(collection.identity, self.ttls.get(collection.name, collection.ttl))


def ttls_by_identity(library: Library, ttls: Mapping[str, float]) -> dict[str, float]:
    """Each TTL keyed as `_ttl` looks it up: `name@version` by the identity of the one loaded
    manifest that version names (`django@5.2` for docs of `5.2.19`), `name` as written (every
    version of it). A TTL for docs that are not loaded is a mistake: `NotFound` (or the
    refusal naming the versions loaded)."""
    resolved: dict[str, float] = {}
    for key, seconds in ttls.items():
        collection = library.get(key)
        resolved[collection.identity if "@" in key else key] = seconds
    return resolved


T = TypeVar("T")


async def to_thread(work: Callable[..., T], *args: Any) -> T:
    """`work(*args)` on a worker thread (anyio is imported on first use: the CLI's searches
    never need it)."""
    import anyio.to_thread

    return await anyio.to_thread.run_sync(partial(work, *args))


def _no_anchor(url: str, anchor: str, missing: SectionNotFound, shown: int = 30) -> str:
    """The message for a `#anchor` that is no heading of the page: its headings, to choose."""
    headings = [f"{title} (#{slug})" for title, slug in missing.headings]
    headings += [f"{symbol} (#{symbol})" for symbol in missing.symbols]
    if not headings:
        return f"no heading #{anchor} on {url} (it has none); read it without #{anchor}"
    more = f", and {len(headings) - shown} more" if len(headings) > shown else ""
    hint = did_you_mean(closest_texts(anchor, missing.choices))
    return (
        f"no heading #{anchor} on {url}{hint}; its headings"
        f"{' and API entries' if missing.symbols else ''}: {'; '.join(headings[:shown])}"
        f"{more}. Pass one as section, or read the page without #{anchor}"
    )


def _same_origin(a: str, b: str) -> bool:
    try:
        return origin_of(a) == origin_of(b)
    except ValueError:  # not a URL: nothing in common
        return False


def index_freshness(manifest: Path, cache_dir: Path | None = None) -> str:
    """The state of a manifest's on-disk search index in the cache folder `Tools.open` uses:
    "fresh", "stale" (the manifest changed) or "missing". For `pinax doctor`; builds nothing."""
    return index_state(manifest, (cache_dir or default_cache_dir()) / INDEX_FOLDER)


def _page_row(page: Page) -> dict[str, Any]:
    return {"url": page.url, "title": page.title, "section": page.section}


def _versioned(row: dict[str, Any], collection: Collection) -> dict[str, Any]:
    """The row, with the version of the collection it came from when they state one."""
    if collection.version:
        row["version"] = collection.version
    return row


def _labelled(collection: Collection | None, page: dict[str, Any]) -> dict[str, Any]:
    """A page read, with its docs' name and version when they state one."""
    if collection is not None and collection.version:
        page["docs"] = collection.name
        page["version"] = collection.version
    return page


def _mark_stale(described: list[dict[str, Any]], loaded: Any, stale: dict[str, Any]) -> None:
    """`stale: {since, error}` on the sets a failed reload concerns: the one whose file
    failed, or every set when the failure names none of them (a new file, a folder)."""
    failed = _resolved(stale.get("source"))
    sources = [_resolved(getattr(docs, "source", None)) for docs in loaded]
    concerned = [failed is not None and failed == source for source in sources]
    if not any(concerned):
        concerned = [True] * len(sources)
    note = {"since": stale["since"], "error": stale["error"]}
    for entry, mark in zip(described, concerned, strict=False):
        if mark:
            entry["stale"] = dict(note)


def _resolved(source: Any) -> str | None:
    if not isinstance(source, str) or "://" in source:
        return source if isinstance(source, str) else None
    try:
        return str(Path(source).resolve())
    except (OSError, RuntimeError, ValueError):
        return source


def project_report(
    folders: Iterable[str | Path], loaded: Iterable[tuple[str, str | None, Any]]
) -> tuple[list[str], list[dict[str, Any]]]:
    """What `pinax doctor --project` says (see `pinax.project.project_report`)."""
    from pinax.project import project_report as report

    return report(folders, loaded)


def shipped_in(folders: Iterable[str | Path]) -> list[tuple[Path, str, str, list[str]]]:
    """The docs the projects' installed packages ship (see `pinax.project.shipped_in`)."""
    from pinax.project import shipped_in as shipped

    return shipped(folders)
