"""The loaded manifests by name: fan-out search, sections, and "did you mean" for every miss.

Each manifest gets a `Docs` entry whose search index is built on first use (or by `warm()`
in the background), so a server can answer `initialize` before every index exists.
"""

from __future__ import annotations

import bisect
import threading
from collections import Counter
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from pinax import manifest as manifest_io
from pinax.errors import ManifestError, NotFound
from pinax.index import SearchIndex
from pinax.manifest import Manifest, Page


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


def _trim(path: str) -> str:
    return path.rstrip("/") or "/"


class Docs:
    """One manifest with its index and its URL-path structure."""

    def __init__(self, manifest: Manifest) -> None:
        self.manifest = manifest
        self._index: SearchIndex | None = None
        self._lock = threading.Lock()

    @property
    def name(self) -> str:
        return self.manifest.name

    @property
    def pages(self) -> tuple[Page, ...]:
        return self.manifest.pages

    @property
    def index(self) -> SearchIndex:
        if self._index is None:
            with self._lock:
                if self._index is None:
                    self._index = SearchIndex.from_pages(self.pages)
        return self._index

    @cached_property
    def base_path(self) -> str:
        """The path under which the site's pages live (`/en/dev` for Django), or `` for `/`."""
        base = urlsplit(self.manifest.url).path.rstrip("/")
        inside = sum(1 for p in self._paths if p[0] == base or p[0].startswith(base + "/"))
        return base if inside * 2 > len(self.pages) else ""

    @cached_property
    def _paths(self) -> list[tuple[str, int]]:
        """(trimmed URL path, page number), sorted, for prefix lookups by bisection."""
        return sorted((_trim(urlsplit(p.url).path), i) for i, p in enumerate(self.pages))

    @cached_property
    def top_sections(self) -> list[tuple[str, int]]:
        """Top-level sections below the base path with their page counts, largest first.

        A page belongs to the section named by the first path segment below the base when
        that segment has pages below it; pages directly at the top count under the base.
        """
        base = self.base_path
        root = base or "/"
        segments: list[list[str]] = []
        for path, _ in self._paths:
            rest = path[len(base) :] if path.startswith(base + "/") else ""
            segments.append([s for s in rest.split("/") if s])
        folders = {parts[0] for parts in segments if len(parts) > 1}
        counts = Counter(
            f"{base}/{parts[0]}" if parts and parts[0] in folders else root for parts in segments
        )
        return sorted(counts.items(), key=lambda item: (-item[1], item[0]))

    def section_pages(self, section: str) -> tuple[str, list[Page]]:
        """(the prefix that matched, pages whose URL path is it or lies below it).

        A section not found as given is tried below the base path, so `/topics` finds
        Django's `/en/dev/topics`; nothing found gives an empty list.
        """
        for prefix in self._candidates(section):
            pages = self._under(prefix)
            if pages:
                return prefix, pages
        return _trim(section), []

    def _candidates(self, section: str) -> list[str]:
        prefix = _trim(section)
        if self.base_path and not (prefix + "/").startswith(self.base_path + "/"):
            return [prefix, _trim(self.base_path + prefix)]
        return [prefix]

    def _under(self, prefix: str) -> list[Page]:
        if prefix == "/":
            return list(self.pages)
        paths = self._paths
        found = []
        start = bisect.bisect_left(paths, (prefix, -1))
        if start < len(paths) and paths[start][0] == prefix:
            found.extend(i for path, i in paths[start:] if path == prefix)
        child = prefix + "/"
        lo = bisect.bisect_left(paths, (child, -1))
        hi = bisect.bisect_left(paths, (prefix + "0", -1))  # "0" sorts right after "/"
        found.extend(i for _, i in paths[lo:hi])
        return [self.pages[i] for i in sorted(found)]

    @cached_property
    def folders(self) -> list[str]:
        """Every path prefix that has pages below it, for section suggestions."""
        result = set()
        for path, _ in self._paths:
            parts = path.split("/")
            for n in range(2, len(parts)):
                result.add("/".join(parts[:n]))
        return sorted(result)

    @cached_property
    def by_url(self) -> dict[str, Page]:
        return {p.url: p for p in self.pages}


@dataclass(frozen=True)
class SearchHit:
    docs: str
    page: Page
    score: float


class Library:
    """Manifests by name; the one place that knows which docs are loaded."""

    def __init__(self, manifests: Sequence[Manifest]) -> None:
        self._docs: dict[str, Docs] = {}
        for m in manifests:
            if m.name in self._docs:
                other = self._docs[m.name].manifest.source
                raise ManifestError(
                    m.source, "name", f"{m.name!r} is also the name of the manifest in {other}"
                )
            self._docs[m.name] = Docs(m)

    @classmethod
    def load(cls, paths: Iterable[str | Path]) -> Library:
        return cls([manifest_io.load(p) for p in paths])

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

    def warm(self) -> None:
        """Build every index now (e.g. in a background thread after start-up)."""
        for docs in self.all():
            _ = docs.index

    def search(
        self, query: str, limit: int, name: str | None = None
    ) -> tuple[list[SearchHit], dict]:
        """Best pages first across the selected manifests, and the words that were corrected."""
        hits: list[tuple[float, int, int, SearchHit]] = []
        corrections: dict[str, str] = {}
        for order, docs in enumerate(self.select(name)):
            outcome = docs.index.search(query, limit)
            corrections.update(outcome.corrections)
            for rank, hit in enumerate(outcome.hits):
                page = docs.pages[hit.doc]
                hits.append((-hit.score, rank, order, SearchHit(docs.name, page, hit.score)))
        hits.sort(key=lambda item: item[:3])
        # A word one manifest knows was not a typo, even if another manifest corrected it.
        selected = self.select(name)
        corrections = {
            word: fixed
            for word, fixed in corrections.items()
            if not any(word in docs.index.vocabulary for docs in selected)
        }
        return [item[3] for item in hits[:limit]], corrections

    def find_page(self, url: str) -> tuple[Docs, Page] | None:
        for docs in self.all():
            page = docs.by_url.get(url)
            if page is not None:
                return docs, page
        return None

    def site_urls(self) -> Iterator[str]:
        """Every URL the manifests name; their origins are where get_page may go."""
        for docs in self.all():
            yield docs.manifest.url
            for page in docs.pages:
                yield page.url
                if page.markdown_url:
                    yield page.markdown_url

    def similar_urls(self, url: str, limit: int = 3) -> list[str]:
        urls = [p.url for docs in self.all() for p in docs.pages]
        return closest(url, urls, cutoff=70.0, limit=limit)

    def describe(self) -> list[dict[str, Any]]:
        return [
            {
                "name": d.name,
                "title": d.manifest.title,
                "url": d.manifest.url,
                "pages": len(d.pages),
            }
            for d in self.all()
        ]
