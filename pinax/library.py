"""The loaded manifests by name: fan-out search, sections, and "did you mean" for every miss.

Each manifest is a `Docs`: its pages as a `PageTable` (arrays) and its `SearchIndex`. Loaded
with an index folder (`Library.load(paths, index_dir)`, as the CLI does), both come from the
on-disk store, memory-mapped, built once per manifest content; loaded without one (or from
`Manifest` objects), the table is built at once and the index on first use, or by `warm()` in
the background, so a server can answer `initialize` before every index exists.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, NamedTuple

import numpy as np
from rapidfuzz import fuzz, process  # imported here, once: see vocabulary._osa_distance

from pinax import manifest as manifest_io
from pinax.errors import ManifestError, NotFound
from pinax.manifest import Manifest, Page
from pinax.search import (
    Docs,
    Plan,
    Ranked,
    Vectors,
    chunks,
    confidence,
    index_cache,
    known_words,
    open_docs,
    pooled,
    preload_model,
    query_vector,
)

STRATEGIES = ("bm25", "fuzzy", "substring")  # from plain to most rescued
# The blend of word and meaning scores, chosen on the DEV sets (bench/eval_semantic.py).
LEXICAL_WEIGHT, EMBEDDING_WEIGHT = 0.8, 0.2
RERANK_POOL = 30  # lexical candidates each manifest re-scores by meaning


def _blended(
    ranked: Ranked,
    vectors: Vectors,
    vector: np.ndarray,
    keep: int,
    rescue: int,
    weights: tuple[float, float],
    explain: bool,
) -> list[tuple[float, int, dict[str, Any] | None, int]]:
    """One manifest's candidates re-scored by meaning, the `keep` best first, as (score, page,
    explain, the heading closest in meaning where closer than the title, else -1); with
    `rescue`, that many pages found by meaning alone (lexical 0: words found nothing)."""
    docs = list(ranked.docs)
    lexical = list(ranked.scores)
    details: list[dict[str, Any] | None] = list(ranked.explain or [None] * len(docs))
    if rescue:
        rescued = vectors.nearest(vector, rescue, set(docs))
        docs += rescued
        lexical += [0.0] * len(rescued)
        details += [{"terms": [], "rescued": "by meaning"} if explain else None] * len(rescued)
    embedding, headings = vectors.score(vector, docs)
    lexical_weight, embedding_weight = weights
    total = lexical_weight + embedding_weight
    blend = [
        (lexical_weight * lex + embedding_weight * emb) / total
        for lex, emb in zip(lexical, embedding, strict=True)
    ]
    if not vectors.reranks:  # titles only: words alone score what they found
        blend[: len(ranked.docs)] = lexical[: len(ranked.docs)]
        headings = [-1] * len(docs)
    scored = sorted((-round(score, 4), at) for at, score in enumerate(blend))
    best = []
    for negative, at in scored[:keep]:
        detail = details[at]
        if explain and detail is not None:
            detail = {
                **detail,
                "lexical": lexical[at],
                "embedding": round(embedding[at], 4),
                "weights": {"lexical": lexical_weight, "embedding": embedding_weight},
            }
        best.append((-negative, docs[at], detail, headings[at]))
    return best


class _Candidate(NamedTuple):
    """A page one manifest found, before the merge picks what is shown."""

    score: float
    rank: int  # in its manifest's ranking
    order: int  # its manifest's place among the selected
    docs: Docs
    doc: int
    detail: dict[str, Any] | None
    meant: int  # the heading closest in meaning (where meaning re-ranked), else -1

    def merge_key(self) -> tuple[float, int, int]:
        return -self.score, self.rank, self.order


class _Place(NamedTuple):
    """What a hit names inside its page: a symbol (with its kind), else a heading; and the
    anchor `get_page(url, section=...)` opens."""

    heading: str | None = None
    anchor: str | None = None
    symbol: str | None = None
    kind: str | None = None


def _places(shown: list[_Candidate], plans: list[Plan]) -> list[_Place]:
    """The place each shown hit names, found for the shown hits only, in this order: the
    symbol whose name answers what the title does not, the heading that does, the heading
    closest in meaning."""
    places = [_Place()] * len(shown)
    by_library: dict[int, list[int]] = {}
    for at, hit in enumerate(shown):
        by_library.setdefault(hit.order, []).append(at)
    for order, ats in by_library.items():
        docs = shown[ats[0]].docs
        pages = [shown[at].doc for at in ats]
        symbols = docs.index.best_symbols(pages, plans[order])
        headings = docs.index.best_headings(pages, plans[order])
        for at, symbol, heading in zip(ats, symbols, headings, strict=True):
            if symbol >= 0:
                found = docs.symbol(symbol)
                places[at] = _Place(None, found.anchor, found.name, found.kind)
                continue
            heading = heading if heading >= 0 else shown[at].meant
            if heading >= 0:
                places[at] = _Place(*docs.place(shown[at].doc, heading))
    return places


def closest(word: str, choices: Iterable[str], cutoff: float = 60.0, limit: int = 1) -> list[str]:
    """The choices most like `word`, for "did you mean" hints."""
    found = process.extract(
        word, list(choices), scorer=fuzz.WRatio, score_cutoff=cutoff, limit=limit
    )
    return [choice for choice, _, _ in found]


def did_you_mean(word: str, choices: Iterable[str]) -> str:
    match = closest(word, choices)
    return f" (did you mean {match[0]!r}?)" if match else ""


def closest_name(name: str, names: Iterable[str]) -> str | None:
    """The loaded name `name` was probably meant as: a near spelling ('raect' -> 'react') or
    one starting the other ('react-docs' -> 'react'). WRatio's partial matching would offer
    'kubernetes' for 'vue' (the 'ue'); a wrong name is worse than none."""
    wanted = name.lower()
    best, best_score = None, 0.0
    for choice in names:
        lowered = choice.lower()
        score = fuzz.ratio(wanted, lowered)
        prefix = lowered.startswith(wanted) or wanted.startswith(lowered)
        if prefix and min(len(wanted), len(lowered)) >= 3:
            score = max(score, 75.0)
        if score >= 70.0 and score > best_score:
            best, best_score = choice, score
    return best


def index_state(manifest: Path, index_dir: Path) -> str:
    """Whether `Library.load(..., index_dir)` would map this manifest's index as it is
    ("fresh"), re-index a changed manifest ("stale"), or index it the first time ("missing").
    Looks only: builds nothing."""
    indexes = index_cache(Path(index_dir))
    known = indexes.known_hash(manifest)
    if known and indexes.index_path(known).exists():
        return "fresh"
    return "stale" if indexes.recorded_hash(manifest) else "missing"


class SearchHit(NamedTuple):
    docs: str
    url: str
    title: str
    section: str
    score: float
    explain: dict[str, Any] | None = None
    heading: str | None = None  # the section that answers (see `Docs.place`)
    anchor: str | None = None  # the heading's or symbol's id on the page
    confidence: str = "low"
    symbol: str | None = None  # the API name that answers (then no heading is named)
    kind: str | None = None  # the symbol's kind


@dataclass
class Found:
    """A search's results over the selected manifests."""

    hits: list[SearchHit]
    also_matched: dict[str, list[str]]  # a typed word the index lacks -> known words added
    strategy: str  # "bm25", "fuzzy" or "substring": the most rescue any result needed
    pages_searched: int


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
        cache = index_cache(Path(index_dir))
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
            match = closest_name(name, self._docs)
            hint = f" (did you mean {match!r}?)" if match else f"; loaded: {', '.join(self._docs)}"
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
        first queries are as fast as the others; the embedding model loads beside them."""
        preload_model()
        for docs in self.all():
            docs.warm(read_files)

    def search(
        self,
        query: str,
        limit: int,
        name: str | None = None,
        explain: bool = False,
        lexical_weight: float = LEXICAL_WEIGHT,
        embedding_weight: float = EMBEDDING_WEIGHT,
    ) -> Found:
        """Best pages first across the selected manifests (ties: rank, then manifest order).

        A word one manifest knows is not a typo, so no other manifest corrects it. With an
        `embedding_weight` (and the model), each manifest's best `RERANK_POOL` lexical
        candidates are re-scored `(lexical_weight x lexical + embedding_weight x embedding) /
        (lexical_weight + embedding_weight)`, both parts on 0..1, so scores stay comparable
        and `confidence` and thresholds keep their meaning; when words find fewer pages than
        asked, the titles closest in meaning fill the rest."""
        selected = self.select(name)
        known = (
            known_words(query, [d.index for d in selected]) if len(selected) > 1 else frozenset()
        )
        merged: list[_Candidate] = []
        also_matched: dict[str, list[str]] = {}
        strategy = "bm25"
        plans = [docs.index.plan(query, trusted=known) for docs in selected]
        if len(selected) > 1:
            plans = pooled(plans, [docs.index for docs in selected])
        reranked = embedding_weight > 0 and any(d.index.vectors for d in selected)
        vector = query_vector(query) if reranked else None  # none to compute without vectors
        runs = []
        for docs, plan in zip(selected, plans, strict=True):
            vectors = docs.index.vectors if vector is not None else None
            pool = limit + 1 if vectors is None else max(limit + 1, RERANK_POOL)
            runs.append((vectors, docs.index.run(plan, pool, explain)))  # +1: the runner-up
        # No word found anything anywhere: the titles closest in meaning stand in.
        rescue = not any(ranked.docs for _, ranked in runs)
        for order, (docs, plan, (vectors, ranked)) in enumerate(
            zip(selected, plans, runs, strict=True)
        ):
            if ranked.docs:
                if STRATEGIES.index(plan.strategy) > STRATEGIES.index(strategy):
                    strategy = plan.strategy
                for word, known in plan.also_matched.items():
                    added = also_matched.setdefault(word, [])
                    added.extend(k for k in known if k not in added)
            if vectors is None:
                details = ranked.explain or [None] * len(ranked.docs)
                for rank, doc in enumerate(ranked.docs):
                    merged.append(
                        _Candidate(ranked.scores[rank], rank, order, docs, doc, details[rank], -1)
                    )
                continue
            assert vector is not None
            weights = (lexical_weight, embedding_weight)
            found = (limit + 1, limit if rescue else 0)  # +1: the runner-up
            best = _blended(ranked, vectors, vector, *found, weights, explain)
            merged.extend(
                _Candidate(score, rank, order, docs, doc, detail, meant)
                for rank, (score, doc, detail, meant) in enumerate(best)
            )
        merged.sort(key=_Candidate.merge_key)
        shown = merged[:limit]
        hits = []
        for at, (hit, place) in enumerate(zip(shown, _places(shown, plans), strict=True)):
            runner_up = merged[at + 1].score if at + 1 < len(merged) else 0.0
            margin = hit.score - runner_up  # a hit close behind another is one of equals too
            if at:
                margin = min(margin, merged[at - 1].score - hit.score)
            hits.append(
                SearchHit(
                    hit.docs.name,
                    *hit.docs.pages.row(hit.doc),
                    hit.score,
                    hit.detail,
                    place.heading,
                    place.anchor,
                    confidence(hit.score, margin),
                    place.symbol,
                    place.kind,
                )
            )
        pages_searched = sum(len(d.pages) for d in selected)
        return Found(hits, also_matched, strategy, pages_searched)

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
