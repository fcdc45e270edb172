"""The loaded manifests by name: fan-out search, sections, and "did you mean" for every miss.

Each manifest is a `Docs`: its pages as a `PageTable` (arrays) and its `SearchIndex`. Loaded
with an index folder (`Library.load(paths, index_dir)`, as the CLI does), both come from the
on-disk store, memory-mapped, built once per manifest content; loaded without one (or from
`Manifest` objects), the table is built at once and the index on first use, or by `warm()` in
the background, so a server can answer `initialize` before every index exists.
"""

from __future__ import annotations

import heapq
import math
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, NamedTuple
from urllib.parse import urlsplit

import numpy as np
from rapidfuzz import fuzz, process  # imported here, once: see vocabulary._osa_distance

from pinax import content as content_io
from pinax import manifest as manifest_io
from pinax.content import PageText
from pinax.errors import ManifestError, NotFound
from pinax.manifest import Manifest, Page
from pinax.search import (
    ContentHit,
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
    query_terms,
    query_vector,
)

STRATEGIES = ("bm25", "fuzzy", "substring")  # from plain to most rescued
# The blend of word and meaning scores: chosen on the even rows of the DEV sets, checked on
# the odd rows and the typo sets (bench/tune_semantic.py).
LEXICAL_WEIGHT, EMBEDDING_WEIGHT = 0.65, 0.35
# The share of a score that what the pages say gives, where a manifest has content
# (bench/eval_content.py); titles, headings and meaning give the rest.
CONTENT_WEIGHT = 0.6
RERANK_POOL = 30  # lexical candidates each manifest re-scores by meaning
CONTENT_POOL = 30  # pages each manifest's content ranking offers the fusion
NAME_WORDS, QUESTION_WORDS = 2, 7  # query words (stop words aside): see _content_share
# Fanned out, a library whose best pages answer about equally well is one the query does not
# single out (see _alike_discount): its best ALIKE_DEPTH pages are looked at, and a page
# ALIKE_SPREAD below its best counts as 1/e of one alike. Chosen on the even rows of the DEV
# sets with all eight manifests together, checked on the odd rows (bench/eval_sections.py).
ALIKE_DEPTH, ALIKE_SPREAD = 10, 0.08
ALIKE_REACH = 0.5  # a page further below its library's best counts for nothing (< e^-6)


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


def _corrections(plans: list[Plan]) -> dict[str, str]:
    """Each typed word the indexes lack -> the known word search corrected it to (by edit
    distance; completions and words containing it are not what was meant)."""
    return {
        term.word: term.matched_word
        for plan in plans
        for term in plan.terms
        if term.match == "fuzzy" and term.matched_word
    }


class _Candidate(NamedTuple):
    """A page one manifest found, before the merge picks what is shown."""

    score: float
    rank: int  # in its manifest's ranking
    order: int  # its manifest's place among the selected
    docs: Docs
    doc: int
    detail: dict[str, Any] | None
    meant: int  # the heading closest in meaning (where meaning re-ranked), else -1
    passage: int = -1  # the section of the page's text that matched (content), else -1


def _alike_discount(scores: Sequence[float]) -> float:
    """What a library's scores lose in a fan-out for having several pages that answer as
    well as its best (`scores`, its own, best first): `ALIKE_SPREAD x ln(m)`, where m, the
    sum over its `ALIKE_DEPTH` best of `exp((score - best) / ALIKE_SPREAD)`, is 1 when one
    page stands out and 10 when ten tie (pages `ALIKE_REACH` or more below the best add
    nothing). A page that is one of m alike is about 1/m as likely the one meant as a page
    its library singles out; the library's own order stays."""
    if len(scores) < 2 or scores[1] < scores[0] - ALIKE_REACH:
        return 0.0  # one page stands out (most libraries, most queries: nothing to add up)
    best, alike = scores[0], 0.0
    for score in scores[:ALIKE_DEPTH]:
        if score < best - ALIKE_REACH:
            break  # best first: the rest count for less than 1/500 each
        alike += math.exp((score - best) / ALIKE_SPREAD)
    return ALIKE_SPREAD * math.log(alike)


def _discounted(
    merged: list[_Candidate],
    starts: list[int],
    discounts: list[float],
    keep: int,
    explain: bool,
) -> list[_Candidate]:
    """The fanned-out candidates (each library's run, from `starts`, best first) best first
    by their score less their library's discount (ties: rank, then manifest order), the
    first `keep` with that score (rounded, never below 0); `explain` shows the discount. A
    library's discount is one number, so its run stays in order: the runs are merged, as
    far as `keep`, not sorted whole."""
    ends = [*starts[1:], len(merged)]
    heads = [
        (discounts[order] - merged[start].score, 0, order)
        for order, start in enumerate(starts)
        if start < ends[order]
    ]
    heapq.heapify(heads)
    best: list[_Candidate] = []
    while heads and len(best) < keep:
        key, rank, order = heads[0]
        at = starts[order] + rank
        best.append(_Candidate._make((round(max(0.0, -key), 4), *merged[at][1:])))
        if at + 1 < ends[order]:
            following = (discounts[order] - merged[at + 1].score, rank + 1, order)
            heapq.heapreplace(heads, following)
        else:
            heapq.heappop(heads)
    if explain:
        best = [
            hit._replace(detail={**hit.detail, "alike_discount": round(discounts[hit.order], 4)})
            if hit.detail is not None
            else hit
            for hit in best
        ]
    return best


def _content_share(query: str, weight: float) -> tuple[float, float]:
    """(titles', content's) weights for a query: a few words name a page (its title or a
    heading), a question describes what a page says, so content counts in full from
    `QUESTION_WORDS` words and falls to nothing at `NAME_WORDS`."""
    size = len(query_terms(query))
    share = weight * min(1.0, max(0.0, (size - NAME_WORDS) / (QUESTION_WORDS - NAME_WORDS)))
    return 1.0 - share, share


def _fused(
    found: list[_Candidate],
    passages: list[ContentHit],
    docs: Docs,
    order: int,
    weights: tuple[float, float],
    keep: int,
    explain: bool,
) -> list[_Candidate]:
    """One manifest's pages by titles and headings (`found`, scored on 0..1) fused with its
    pages by what they say (`passages`): `(title_weight x found + content_weight x
    content) / (title_weight + content_weight)`, a page missing from one side scoring 0
    there (the weights add up to 1); the `keep` best first, ranked anew."""
    title_weight, content_weight = weights
    total = title_weight + content_weight
    by_doc = {hit.doc: hit for hit in found}
    said = {hit.doc: hit for hit in passages}
    scored = []
    for doc in dict.fromkeys([*by_doc, *said]):
        hit, passage = by_doc.get(doc), said.get(doc)
        lexical = hit.score if hit is not None else 0.0
        content = passage.score if passage is not None else 0.0
        score = round(max(lexical, (title_weight * lexical + content_weight * content) / total), 4)
        scored.append((-score, hit.rank if hit is not None else keep, doc, lexical, content))
    scored.sort()
    fused = []
    for rank, (negative, _, doc, lexical, content) in enumerate(scored[:keep]):
        hit, passage = by_doc.get(doc), said.get(doc)
        detail = hit.detail if hit is not None else None
        if explain:
            detail = {
                **(detail or {"terms": []}),
                "titles_and_headings": lexical,
                "content": content,
                "weights": {**(detail or {}).get("weights", {}), "content": content_weight},
            }
        meant = hit.meant if hit is not None else -1
        section = passage.section if passage is not None and content > 0 else -1
        fused.append(_Candidate(-negative, rank, order, docs, doc, detail, meant, section))
    return fused


class _Place(NamedTuple):
    """What a hit names inside its page: a symbol (with its kind), else a heading; and the
    anchor `get_page(url, section=...)` opens."""

    heading: str | None = None
    anchor: str | None = None
    symbol: str | None = None
    kind: str | None = None


def _places(shown: list[_Candidate], plans: list[Plan]) -> list[_Place]:
    """The place each shown hit names, found for the shown hits only, in this order: the
    symbol whose name answers what the title does not, the section whose text matched
    (none for the text before the first heading), the heading that answers, the heading
    closest in meaning."""
    places = [_Place()] * len(shown)
    by_library: dict[int, list[int]] = {}
    for at, hit in enumerate(shown):
        by_library.setdefault(hit.order, []).append(at)
    for order, ats in by_library.items():
        docs = shown[ats[0]].docs
        symbols = docs.index.best_symbols([shown[at].doc for at in ats], plans[order])
        rest = []  # the hits neither a symbol nor a section found by its text names
        for at, symbol in zip(ats, symbols, strict=True):
            hit = shown[at]
            if symbol >= 0:
                found = docs.symbol(symbol)
                places[at] = _Place(None, found.anchor, found.name, found.kind)
            elif hit.passage >= 0:
                places[at] = _Place(*_passage_place(hit))
            else:
                rest.append(at)
        headings = docs.index.best_headings([shown[at].doc for at in rest], plans[order])
        for at, heading in zip(rest, headings, strict=True):
            hit = shown[at]
            heading = heading if heading >= 0 else hit.meant
            if heading >= 0:
                places[at] = _Place(*docs.place(hit.doc, heading))
    return places


def _hits(merged: list[_Candidate], limit: int, plans: list[Plan], query: str) -> list[SearchHit]:
    """The first `limit` candidates as results, each with the place it names, its snippet
    (found by content) and its confidence: a hit close behind or ahead of another is one of
    equals (the runner-up, past the limit, counts too)."""
    shown = merged[:limit]
    scores = [hit.score for hit in merged[: limit + 1]]
    scores.append(0.0)  # nothing after the last
    hits = []
    for at, (hit, place) in enumerate(zip(shown, _places(shown, plans), strict=True)):
        score = scores[at]
        margin = score - scores[at + 1]
        if at:
            margin = min(margin, scores[at - 1] - score)
        snippet = indexed_at = None
        if hit.passage >= 0:
            content = hit.docs.content
            assert content is not None
            snippet = content.snippet(hit.passage, query) or None  # none: no text
            indexed_at = content.fetched_at(hit.passage)
        url, title, section = hit.docs.pages.row(hit.doc)
        hits.append(
            SearchHit(
                hit.docs.name,
                url,
                title,
                section,
                score,
                hit.detail,
                place.heading,
                place.anchor,
                confidence(score, margin),
                place.symbol,
                place.kind,
                snippet,
                indexed_at,
            )
        )
    return hits


def _passage_place(hit: _Candidate) -> tuple[str | None, str | None]:
    """Where a section found by its text is: its outline heading, or (when the page's text
    did not match its outline) its own heading without an anchor; none for the lead."""
    assert hit.docs.content is not None
    heading, own = hit.docs.content.heading(hit.passage)
    if heading >= 0:
        return hit.docs.place(hit.doc, heading)
    return own, None


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
    snippet: str | None = None  # of the section whose text matched (content)
    indexed_at: str | None = None  # when that text was read, where known


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
            library = cls(docs=[open_docs(p, cache) for p in paths])
        library._content_dir = None if index_dir is None else Path(index_dir) / "content"
        contents = dict(contents or {})
        for path, docs in zip(paths, library.all(), strict=True):
            given = contents.pop(docs.name, None)
            try:
                found = given or content_io.companion(path, docs.declared_content)
            except ManifestError as exc:
                docs.content_note = f"served without content: {exc}"
                continue
            if given is not None or found.exists():
                docs.content_path = found
        if contents:
            name = next(iter(contents))
            hint = did_you_mean(name, library.names)
            raise NotFound(f"--content names {name!r}, which is not a loaded manifest{hint}")
        return library

    def with_manifests(
        self,
        manifests: Sequence[Manifest],
        texts: Mapping[str, Callable[[], Iterable[PageText]]] | None = None,
    ) -> Library:
        """This library and `manifests` (built in memory, say from a docs folder) in one;
        `texts[name]` reads a manifest's page text, indexed as its content."""
        joined = Library(manifests, docs=self.all())
        joined._content_dir = self._content_dir
        for name, read in (texts or {}).items():
            joined.get(name).content_source = read
        return joined

    def load_contents(self, previous: Library | None = None) -> None:
        """Index every manifest's content file now (kept on disk beside the search indexes
        when loaded with an index folder; an unchanged one `previous`, the library before a
        reload, had is taken over); a bad file costs its manifest the content only."""
        for docs in self.all():
            before = previous._docs.get(docs.name) if previous is not None else None
            docs.load_content(self._content_dir, before)

    def keep_content(self, previous: Library) -> None:
        """Where a manifest's content file no longer loads but the manifest is unchanged,
        serve the content `previous` had (a reload loses nothing to a bad file)."""
        for docs in self.all():
            before = previous._docs.get(docs.name)
            failed = docs.content is None and docs.content_note is not None
            if not failed or before is None or before.content is None:
                continue
            if before.index_file is not None and before.index_file == docs.index_file:
                docs.content = before.content
                docs.content_note = f"{docs.content_note}; serving the content loaded before"

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

    def warm(self, read_files: bool = True, contents: bool = True) -> None:
        """Build every index and its term lookup table, and (`read_files`) read the index
        files into the page cache, now (e.g. in a background thread after start-up), so the
        first queries are as fast as the others; the embedding model loads beside them;
        then (`contents`) the content indexes."""
        preload_model()
        for docs in self.all():
            docs.warm(read_files)
        if contents:
            self.load_contents()

    def search(
        self,
        query: str,
        limit: int,
        name: str | None = None,
        explain: bool = False,
        lexical_weight: float = LEXICAL_WEIGHT,
        embedding_weight: float = EMBEDDING_WEIGHT,
        content_weight: float = CONTENT_WEIGHT,
    ) -> Found:
        """Best pages first across the selected manifests (ties: rank, then manifest order).

        A word one manifest knows is not a typo, so no other manifest corrects it. With an
        `embedding_weight` (and the model), each manifest's best `RERANK_POOL` lexical
        candidates are re-scored `(lexical_weight x lexical + embedding_weight x embedding) /
        (lexical_weight + embedding_weight)`, both parts on 0..1, so scores stay comparable
        and `confidence` and thresholds keep their meaning; when words find fewer pages than
        asked, the titles closest in meaning fill the rest. With a `content_weight`, a
        manifest with content fuses that score with its pages' best sections by what they
        say (`_fused`), on 0..1 as well. Fanned out, each manifest's scores then lose its
        `_alike_discount` (none when one of its pages stands out), still on 0..1."""
        selected = self.select(name)
        fanned = len(selected) > 1
        known = known_words(query, [d.index for d in selected]) if fanned else frozenset()
        # Each manifest's best, one more than asked (the runner-up sets confidence); fanned
        # out, at least the ALIKE_DEPTH that set its discount, whatever the limit.
        wanted = max(limit + 1, ALIKE_DEPTH) if fanned else limit + 1
        merged: list[_Candidate] = []
        also_matched: dict[str, list[str]] = {}
        strategy = "bm25"
        plans = [docs.index.plan(query, trusted=known) for docs in selected]
        if fanned:
            plans = pooled(plans, [d.index for d in selected], [d.name for d in selected])
        reranked = embedding_weight > 0 and any(d.index.vectors for d in selected)
        # none to compute without vectors; of the query as words understood it (typos corrected)
        vector = query_vector(query, _corrections(plans)) if reranked else None
        runs = []
        # Fanned out: where each manifest's candidates start, and its discount.
        starts: list[int] = []
        discounts: list[float] = []
        said: list[list[ContentHit] | None] = []
        with_content = content_weight > 0 and any(d.content is not None for d in selected)
        shares = _content_share(query, content_weight) if with_content else (1.0, 0.0)
        content_share = shares[1]
        for docs, plan in zip(selected, plans, strict=True):
            vectors = docs.index.vectors if vector is not None else None
            content = docs.content if content_share > 0 else None
            # What is wanted, or a pool to re-rank or fuse.
            pool = wanted if vectors is None and content is None else RERANK_POOL
            runs.append((vectors, docs.index.run(plan, max(wanted, pool), explain)))
            # (a short query, where content counts for less, reads less of it)
            reach = content_share / content_weight if content is not None else 0.0
            said.append(content.search(query, CONTENT_POOL, reach) if content is not None else None)
        # No word found anything anywhere: the titles closest in meaning stand in.
        rescue = vector is not None and not any(r.docs for _, r in runs) and not any(said)
        for order, (docs, plan, (vectors, ranked), passages) in enumerate(
            zip(selected, plans, runs, said, strict=True)
        ):
            start = len(merged)
            if ranked.docs:
                if STRATEGIES.index(plan.strategy) > STRATEGIES.index(strategy):
                    strategy = plan.strategy
                for word, matched in plan.also_matched.items():
                    added = also_matched.setdefault(word, [])
                    added.extend(k for k in matched if k not in added)
            # Fanned out, the library's best scores (`alike`) set its discount, and only what
            # can be shown (all, to fuse with content) becomes a candidate.
            take = limit + 1 if fanned and passages is None else None
            alike: Sequence[float] = ()
            if vectors is None:
                details = ranked.explain or [None] * len(ranked.docs)
                for rank, doc in enumerate(ranked.docs if take is None else ranked.docs[:take]):
                    merged.append(
                        _Candidate(ranked.scores[rank], rank, order, docs, doc, details[rank], -1)
                    )
                alike = ranked.scores
            else:
                assert vector is not None
                weights = (lexical_weight, embedding_weight)
                keep = RERANK_POOL if passages is not None else wanted
                found = (keep, limit if rescue else 0)
                best = _blended(ranked, vectors, vector, *found, weights, explain)
                merged.extend(
                    _Candidate(score, rank, order, docs, doc, detail, meant)
                    for rank, (score, doc, detail, meant) in enumerate(
                        best if take is None else best[:take]
                    )
                )
                alike = [entry[0] for entry in best[:ALIKE_DEPTH]] if fanned else ()
            if passages is not None:
                merged[start:] = _fused(
                    merged[start:],
                    passages,
                    docs,
                    order,
                    shares,
                    wanted,
                    explain,
                )
                alike = [hit.score for hit in merged[start : start + ALIKE_DEPTH]] if fanned else ()
            if fanned:
                starts.append(start)
                discounts.append(_alike_discount(alike))
        if fanned:  # (one manifest's candidates come ranked)
            merged = _discounted(merged, starts, discounts, limit + 1, explain)
        return Found(
            _hits(merged, limit, plans, query),
            also_matched,
            strategy,
            sum(len(d.pages) for d in selected),
        )

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
        return [_described(d) for d in self.all()]


def _described(docs: Docs) -> dict[str, Any]:
    """A manifest as list_docs shows it; `content` says whether its text is searched."""
    entry: dict[str, Any] = {
        "name": docs.name,
        "title": docs.title,
        "url": docs.url,
        "pages": len(docs.pages),
    }
    if others := _other_hosts(docs.url, docs.site_roots):
        entry["hosts"] = others
    if docs.content is not None:
        entry["content"] = {"state": "ready", "pages": docs.content.pages}
        if docs.content_note:
            entry["content"]["note"] = docs.content_note
    elif docs.content_note is not None:
        entry["content"] = {"state": "unavailable", "reason": docs.content_note}
    elif docs.content_path is not None:
        entry["content"] = {"state": "indexing"}
    return entry


def _other_hosts(site: str, roots: Iterable[str]) -> list[str]:
    """The hosts of pages that are not the site's own (nor its www. twin): get_page reads
    any page on them, so list_docs shows them."""
    own = (urlsplit(site).hostname or "").removeprefix("www.")
    hosts = {urlsplit(root).hostname or "" for root in roots}
    return sorted(h for h in hosts if h and h.removeprefix("www.") != own)
