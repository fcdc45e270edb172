"""The registry of loaded manifests by identity: load, select (with "did you mean" for every
miss), find a page, describe, reload; a search is handed to `pinax.search.search_many`.

A manifest's identity is `name@version` (or `name`): several versions of one library may be
loaded side by side. `choose` picks the docs a call covers: a library at a version by
`versions.select` (a version not loaded is refused with the loaded ones, never substituted),
its highest version when none is asked; over all docs, each library's highest version only,
so one result list never mixes two versions of one library.

Each manifest is a `Collection`: its pages as a `PageTable` (arrays) and its `SearchIndex`. Loaded
with an index folder (`Library.load(paths, index_dir)`, as the CLI does), both come from the
on-disk store, memory-mapped, built once per manifest content; loaded without one (or from
`Manifest` objects), the table is built at once and the index on first use, or by `warm()` in
the background, so a server can answer `initialize` before every index exists.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any, NamedTuple
from urllib.parse import urlsplit

from pinax import manifest as manifest_io
from pinax import versions
from pinax.errors import InvalidArgs, ManifestError, NotFound, VersionNotLoaded
from pinax.hints import closest_names, closest_texts, did_you_mean
from pinax.manifest import Manifest, Page, PageText, companion_path
from pinax.search import (
    RANKING,
    Collection,
    Ranking,
    SearchResults,
    index_cache,
    near_urls,
    open_collection,
    preload_model,
    search_many,
)


def index_state(manifest: Path, index_dir: Path) -> str:
    """Whether `Library.load(..., index_dir)` would map this manifest's index as it is
    ("fresh"), re-index a changed manifest ("stale"), or index it the first time ("missing").
    Looks only: builds nothing. Indexes are keyed by content: a manifest whose file was
    touched, copied or checked out again, unchanged, has its index still ("fresh"), as
    loading would find it."""
    indexes = index_cache(Path(index_dir))
    known = indexes.known_hash(manifest)
    if known and indexes.index_path(known).exists():
        return "fresh"
    try:
        raw = manifest_io.read_bytes(manifest)
    except (OSError, ManifestError):
        raw = None
    if raw is not None and indexes.index_for(raw).exists():
        return "fresh"
    return "stale" if indexes.recorded_hash(manifest) else "missing"


class Chosen(NamedTuple):
    """The docs a call covers, and what the answer says about the versions chosen."""

    collections: list[Collection]
    said: dict[str, Any]


class Library:
    """Manifests by identity; the one place that knows which docs are loaded."""

    def __init__(
        self, manifests: Sequence[Manifest] = (), collections: Sequence[Collection] = ()
    ) -> None:
        self._collections: dict[str, Collection] = {}
        for entry in [*collections, *(Collection.from_manifest(m) for m in manifests)]:
            if entry.identity in self._collections:
                other = self._collections[entry.identity].source
                place = "version" if entry.version else "name"
                raise ManifestError(
                    entry.source,
                    place,
                    f"{entry.identity!r} is also the identity of the manifest in {other}",
                )
            self._collections[entry.identity] = entry
        self._content_dir: Path | None = None  # where content indexes are kept

    @classmethod
    def load(
        cls,
        paths: Iterable[str | Path],
        index_dir: Path | None = None,
        contents: Mapping[str, Path] | None = None,
    ) -> Library:
        """Load manifest files; with `index_dir`, through the on-disk index kept there.
        Each manifest's content file (`contents[name]`, else the one its `content` field
        names, else `<stem>.content.jsonl.gz` beside it, if there) is noted, to be indexed
        by `load_contents` (or `warm`)."""
        paths = [Path(p) for p in paths]
        if index_dir is None:
            library = cls([manifest_io.load(p) for p in paths])
        else:
            cache = index_cache(Path(index_dir))
            library = cls(collections=[open_collection(p, cache) for p in paths])
        library._content_dir = None if index_dir is None else Path(index_dir) / "content"
        contents = dict(contents or {})
        for path, collection in zip(paths, library.all(), strict=True):
            given = contents.pop(collection.identity, None) or contents.pop(collection.name, None)
            try:
                found = given or companion_path(path, collection.declared_content)
            except ManifestError as exc:
                collection.content_note = f"served without content: {exc}"
                continue
            if given is not None or found.exists():
                collection.content_path = found
        if contents:
            name = next(iter(contents))
            hint = did_you_mean(closest_texts(name, library.names))
            raise NotFound(f"--content names {name!r}, which is not a loaded manifest{hint}")
        return library

    def with_manifests(
        self,
        manifests: Sequence[Manifest],
        texts: Mapping[str, Callable[[], Iterable[PageText]]] | None = None,
    ) -> Library:
        """This library and `manifests` (built in memory, say from a docs folder) in one;
        `texts[name]` reads a manifest's page text, indexed as its content."""
        joined = Library(manifests, collections=self.all())
        joined._content_dir = self._content_dir
        for name, read in (texts or {}).items():
            joined.get(name).content_source = read
        return joined

    def load_contents(self, previous: Library | None = None) -> None:
        """Index every manifest's content file now (kept on disk beside the search indexes
        when loaded with an index folder; an unchanged one `previous`, the library before a
        reload, had is taken over); a bad file costs its manifest the content only."""
        for collection in self.all():
            before = None if previous is None else previous._collections.get(collection.identity)
            collection.load_content(self._content_dir, before)

    def keep_content(self, previous: Library) -> None:
        """Where a manifest's content file no longer loads but the manifest is unchanged,
        serve the content `previous` had (a reload loses nothing to a bad file)."""
        for collection in self.all():
            before = previous._collections.get(collection.identity)
            failed = collection.content is None and collection.content_note is not None
            if not failed or before is None or before.content is None:
                continue
            if before.index_file is not None and before.index_file == collection.index_file:
                collection.content = before.content
                collection.content_note += "; serving the content loaded before"

    @property
    def content_pending(self) -> bool:
        """Whether a content file is still to be indexed."""
        return any(
            (d.content_path is not None or d.content_source is not None)
            and d.content is None
            and d.content_note is None
            for d in self.all()
        )

    def __len__(self) -> int:
        return len(self._collections)

    @property
    def names(self) -> list[str]:
        """The identities loaded (`name@version` or `name`), in loading order."""
        return list(self._collections)

    @property
    def libraries(self) -> list[str]:
        """The names loaded, each once."""
        return list(dict.fromkeys(d.name for d in self._collections.values()))

    def all(self) -> list[Collection]:
        return list(self._collections.values())

    def get(self, name: str, version: str | None = None) -> Collection:
        """The one manifest `name` (or `name@version`) names: see `choose`."""
        return self.choose(name, version).collections[0]

    def select(self, name: str | None, version: str | None = None) -> list[Collection]:
        return self.choose(name, version).collections

    def choose(
        self,
        name: str | None,
        version: str | None = None,
        scope: Sequence[tuple[str, str | None]] | None = None,
    ) -> Chosen:
        """The docs a call covers. `name` (maybe `name@version`) with `version`: that
        library at the one loaded version `versions.select` picks, else `NotFound` naming the
        loaded ones (never another version, never an unversioned copy); without a version,
        its highest. No name: the `scope` given (identities), else every library at its
        highest version. `said` is what the answer tells about it."""
        if name is None and version is not None:
            if len(self.libraries) != 1:  # one library loaded: the version can only be its
                raise InvalidArgs("version needs docs: the library it is a version of")
            name = self.libraries[0]
        if name is None:
            if scope is not None:
                return Chosen([self._collections[identity(*pair)] for pair in scope], {})
            return self._highest_each()
        name, asked = _asked(name, version)
        same = [d for d in self._collections.values() if d.name == name]
        if not same:
            raise NotFound(self._no_such(name))
        versioned = [d for d in same if d.version]
        loaded = [d.version for d in versioned if d.version]
        if asked is not None:
            chosen = versions.select(asked, loaded) if loaded else None
            if chosen is None:
                message = versions.refusal(name, asked, loaded)
                if len(versioned) < len(same):
                    message += f" (and a copy of {name} that states no version)"
                raise VersionNotLoaded(message)
            found = next(d for d in versioned if d.version == chosen.text)
            said = {"version": found.version}
            if len(same) > 1:
                said["versions"] = _sorted(loaded)
            return Chosen([found], said)
        if len(same) == 1:
            only = same[0]
            return Chosen([only], {"version": only.version} if only.version else {})
        top = versions.highest(loaded)
        found = next(d for d in versioned if top is not None and d.version == top.text)
        return Chosen([found], {"version": found.version, "versions": _sorted(loaded)})

    def _highest_each(self) -> Chosen:
        """Every library once, at its highest version; `said` names the libraries loaded at
        several versions and the one searched."""
        by_name: dict[str, list[Collection]] = {}
        for collection in self._collections.values():
            by_name.setdefault(collection.name, []).append(collection)
        chosen, highest = [], {}
        for name, same in by_name.items():
            if len(same) == 1:
                chosen.append(same[0])
                continue
            loaded = [d.version for d in same if d.version]
            top = versions.highest(loaded)
            found = next(d for d in same if top is not None and d.version == top.text)
            chosen.append(found)
            highest[name] = {"version": found.version, "versions": _sorted(loaded)}
        said = {"highest_only": highest} if highest else {}
        return Chosen(chosen, said)

    def _no_such(self, name: str) -> str:
        if not self._collections:
            return f"no manifest named {name!r}: no manifests are loaded"
        hint = did_you_mean(closest_names(name, self.libraries))
        hint = hint or f"; loaded: {', '.join(self._collections)}"
        return f"no manifest named {name!r}{hint}"

    @property
    def ready(self) -> bool:
        """Whether every search index is built."""
        return all(collection.ready for collection in self._collections.values())

    def warm(self, read_files: bool = True, contents: bool = True) -> None:
        """Build every index and its term lookup table, and (`read_files`) read the index
        files into the page cache, now (e.g. in a background thread after start-up), so the
        first queries are as fast as the others; the embedding model loads beside them;
        then (`contents`) the content indexes."""
        preload_model()
        for collection in self.all():
            collection.warm(read_files)
        if contents:
            self.load_contents()

    def search(
        self,
        query: str,
        limit: int,
        name: str | None = None,
        explain: bool = False,
        lexical_weight: float = RANKING.lexical_weight,
        embedding_weight: float = RANKING.embedding_weight,
        content_weight: float = RANKING.content_weight,
    ) -> SearchResults:
        """Best pages first across the selected manifests (all, or the one named), by the
        ranking sheet with the caller's three weights (see `search_many`)."""
        ranking = _weighted(lexical_weight, embedding_weight, content_weight)
        return search_many(self.select(name), query, limit, ranking, explain)

    def search_in(
        self,
        chosen: Sequence[Collection],
        query: str,
        limit: int,
        explain: bool = False,
        weights: tuple[float, float, float] = (
            RANKING.lexical_weight,
            RANKING.embedding_weight,
            RANKING.content_weight,
        ),
    ) -> SearchResults:
        """Best pages first across the docs `choose` chose."""
        return search_many(list(chosen), query, limit, _weighted(*weights), explain)

    def find_page(self, url: str) -> tuple[Collection, Page] | None:
        for collection in self.all():
            page = collection.find(url)
            if page is not None:
                return collection, page
        return None

    def site_roots(self) -> list[str]:
        """`scheme://host[:port]` of every URL the manifests name: where get_page may go."""
        return sorted({root for collection in self.all() for root in collection.site_roots})

    def site_urls(self) -> Iterator[str]:
        """Every URL the manifests name (every page of every manifest: prefer `site_roots`)."""
        for collection in self.all():
            yield collection.url
            for page in collection.pages:
                yield page.url
                if page.markdown_url:
                    yield page.markdown_url

    def similar_urls(self, url: str, limit: int = 3) -> list[str]:
        """Known URLs like a mistyped one: its neighbours in sorted order, and the pages a
        search for its path's words finds."""
        return closest_texts(url, sorted(near_urls(self.all(), url)), limit, cutoff=70.0)

    def describe(self) -> list[dict[str, Any]]:
        return [_described(d) for d in self.all()]


@functools.lru_cache(maxsize=64, typed=True)
def _weighted(lexical: float, embedding: float, content: float) -> Ranking:
    """The ranking sheet with a caller's three weights (made once per set of weights)."""
    return replace(
        RANKING, lexical_weight=lexical, embedding_weight=embedding, content_weight=content
    )


def identity(name: str, version: str | None) -> str:
    return versions.identity(name, version)


def version_arg(value: Any) -> str | None:
    """A `version` argument as a model or a shell sent it: a string, or None."""
    if value is None:
        return None
    if isinstance(value, int) and not isinstance(value, bool):
        value = str(value)  # a major version sent as a number
    if isinstance(value, float):  # 1.20 arrives as 1.2: which was meant is lost
        raise InvalidArgs(f"version must be a string such as '5.2' (got the number {value!r})")
    if not isinstance(value, str):
        raise InvalidArgs(f"version must be a string such as '5.2', got {type(value).__name__}")
    return value.strip() or None


def _asked(name: str, version: str | None) -> tuple[str, versions.Version | None]:
    """`name` or `name@version`, and a separate `version`: the name and the version asked
    (both ways at once must agree)."""
    name, written = versions.split_identity(name)
    given = None if version is None else versions.as_version(version)
    if written is not None and given is not None and written.text != given.text:
        raise InvalidArgs(
            f"docs asks for {name}@{written.text} and version for {given.text}: give one"
        )
    return name, written or given


def _sorted(loaded: Iterable[str | None]) -> list[str]:
    return [v.text for v in sorted(versions.as_version(v) for v in dict.fromkeys(loaded) if v)]


def _described(collection: Collection) -> dict[str, Any]:
    """A manifest as list_docs shows it; `content` says whether its text is searched."""
    entry: dict[str, Any] = {
        "name": collection.name,
        "title": collection.title,
        "url": collection.url,
        "pages": len(collection.pages),
    }
    if others := _other_hosts(collection.url, collection.site_roots):
        entry["hosts"] = others
    if collection.version is not None:
        entry["version"] = collection.version
    if collection.packages is not None:
        entry["packages"] = list(collection.packages)
    if collection.content is not None:
        entry["content"] = {"state": "ready", "pages": collection.content.pages}
        if collection.content_note:
            entry["content"]["note"] = collection.content_note
    elif collection.content_note is not None:
        entry["content"] = {"state": "unavailable", "reason": collection.content_note}
    elif collection.content_path is not None:
        entry["content"] = {"state": "indexing"}
    return entry


def _other_hosts(site: str, roots: Iterable[str]) -> list[str]:
    """The hosts of pages that are not the site's own (nor its www. twin): get_page reads
    any page on them, so list_docs shows them."""
    own = (urlsplit(site).hostname or "").removeprefix("www.")
    hosts = {urlsplit(root).hostname or "" for root in roots}
    return sorted(h for h in hosts if h and h.removeprefix("www.") != own)
