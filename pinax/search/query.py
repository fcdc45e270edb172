"""A query from end to end over the selected manifests: plan, pool, run, fuse, discount, place.

`search_many` is the one entry point: it plans the query in each manifest's index, pools the
document frequencies across them when fanned out (so scores compare), runs each index, fuses
words with meaning and content (`pinax.search.fusion`), discounts libraries whose best pages
answer alike, and names each shown hit's place (`pinax.search.places`). The rules it follows
are one `Ranking` (`pinax.search.ranking`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from pinax.search.collection import Collection
from pinax.search.content import ContentHit, query_terms
from pinax.search.fusion import (
    Candidate,
    alike_discount,
    blended,
    content_shares,
    corrections,
    discounted,
    fused,
    with_members,
)
from pinax.search.index import known_words, pooled, text_words
from pinax.search.members import member_query
from pinax.search.places import SearchHit, search_hits
from pinax.search.ranking import RANKING, Ranking
from pinax.search.semantic import query_meaning
from pinax.search.surface import ambiguous_words, surface_first
from pinax.search.tokens import STOP_WORDS, chunks, words

STRATEGIES = ("bm25", "fuzzy", "substring")  # from plain to most rescued


@dataclass
class SearchResults:
    """A search's results over the selected manifests."""

    hits: list[SearchHit]
    also_matched: dict[str, list[str]]  # a typed word the index lacks -> known words added
    strategy: str  # "bm25", "fuzzy" or "substring": the most rescue any result needed
    pages_searched: int


def search_many(
    selected: Sequence[Collection],
    query: str,
    limit: int,
    ranking: Ranking = RANKING,
    explain: bool = False,
) -> SearchResults:
    """Best pages first across the `selected` manifests (ties: rank, then manifest order).

    A word one manifest knows is not a typo, so no other manifest corrects it. With an
    `embedding_weight` (and the model), each manifest's best `rerank_pool` lexical
    candidates are re-scored `(lexical_weight x lexical + embedding_weight x embedding) /
    (lexical_weight + embedding_weight)`, both parts on 0..1, so scores stay comparable and
    `confidence` and thresholds keep their meaning; when words find fewer pages than asked,
    the titles closest in meaning fill the rest. With a `content_weight`, a manifest with
    content fuses that score with its pages' best sections by what they say (`fused`), on
    0..1 as well. Fanned out, each manifest's scores then lose its `alike_discount` (none
    when one of its pages stands out), still on 0..1."""
    selected = list(selected)
    fanned = len(selected) > 1
    known = known_words(query, [d.index for d in selected]) if fanned else frozenset()
    text_known = text_words(query, [d.content for d in selected if d.content is not None])
    known |= text_known
    # Each manifest's best, one more than asked (the runner-up sets confidence); fanned
    # out, at least the alike_depth that set its discount, whatever the limit.
    depth = ranking.alike_depth
    wanted = max(limit + 1, depth) if fanned else limit + 1
    merged: list[Candidate] = []
    also_matched: dict[str, list[str]] = {}
    strategy = "bm25"
    plans = [collection.index.plan(query, trusted=known) for collection in selected]
    if fanned:
        plans = pooled(plans, [d.index for d in selected], [d.name for d in selected])
    lexical_weight, embedding_weight = ranking.lexical_weight, ranking.embedding_weight
    content_weight = ranking.content_weight
    reranked = embedding_weight > 0 and any(d.index.vectors for d in selected)
    # none to compute without vectors; of the query as words understood it (typos corrected)
    meaning = query_meaning(query, corrections(plans)) if reranked else None
    runs = []
    # Fanned out: where each manifest's candidates start, and its discount.
    starts: list[int] = []
    discounts: list[float] = []
    said: list[list[ContentHit] | None] = []
    with_content = content_weight > 0 and any(d.content is not None for d in selected)
    # a word only page text knows: the text answers (titles know none of `text_only`)
    text_only = with_content and any(
        not any(d.index.knows(w) for d in selected) for w in text_known if w not in STOP_WORDS
    )
    shares: tuple[float, float] = (1.0, 0.0)  # (titles', content's)
    asked: tuple[frozenset[str], float] = (frozenset(), ranking.exact_heading_boost)
    if with_content:
        shares = content_shares(len(query_terms(query)), ranking, text_only)
        # a heading that is the whole question (three words typed or more: "What is Vue?")
        if len(words(query)) >= ranking.heading_question_words:
            asked = (frozenset(query_terms(query)), ranking.exact_heading_boost)
    content_share = shares[1]
    shape = member_query(query)  # `str methods`: an owner and a kind of member
    for collection, plan in zip(selected, plans, strict=True):
        vectors = collection.index.vectors if meaning is not None else None
        content = collection.content if content_share > 0 else None
        # What is wanted, or a pool to re-rank or fuse.
        pool = wanted if vectors is None and content is None else max(wanted, ranking.rerank_pool)
        # Meaning re-ranks only pages with headings: elsewhere words alone rank (but for a
        # rescue or an explanation), as deep as wanted, the title boost as deep as the pool.
        alone = vectors is None or not (vectors.reranks or explain)
        shown = wanted if alone and content is None else pool
        runs.append((vectors, alone, collection.index.run(plan, shown, explain, pool)))
        # (a short query, where content counts for less, reads less of it)
        reach = content_share / content_weight if content is not None else 0.0
        said.append(
            content.search(query, ranking.content_pool, reach) if content is not None else None
        )
    # No word found anything anywhere: the titles closest in meaning stand in.
    rescue = meaning is not None and not any(r.pages for _, _, r in runs) and not any(said)
    for order, (collection, plan, (vectors, alone, ranked), passages) in enumerate(
        zip(selected, plans, runs, said, strict=True)
    ):
        start = len(merged)
        if ranked.pages:
            if STRATEGIES.index(plan.strategy) > STRATEGIES.index(strategy):
                strategy = plan.strategy
            for word, matched in plan.also_matched.items():
                added = also_matched.setdefault(word, [])
                added.extend(k for k in matched if k not in added)
        # Fanned out, the library's best scores (`alike`) set its discount, and only what
        # can be shown (all, to fuse with content) becomes a candidate.
        take = limit + 1 if fanned and passages is None else None
        alike: Sequence[float] = ()
        if vectors is None or (alone and not rescue):
            details = ranked.explain or [None] * len(ranked.pages)
            for rank, doc in enumerate(ranked.pages if take is None else ranked.pages[:take]):
                merged.append(
                    Candidate(ranked.scores[rank], rank, order, collection, doc, details[rank], -1)
                )
            alike = ranked.scores
        else:
            assert meaning is not None
            weights = (lexical_weight, embedding_weight)
            keep = ranking.rerank_pool if passages is not None else wanted
            found = (keep, limit if rescue else 0)
            best = blended(ranked, vectors, meaning, *found, weights, explain)
            merged.extend(
                Candidate(score, rank, order, collection, doc, detail, meant)
                for rank, (score, doc, detail, meant) in enumerate(
                    best if take is None else best[:take]
                )
            )
            alike = [entry[0] for entry in best[:depth]] if fanned else ()
        if passages is not None:
            mine = merged[start:]
            merged[start:] = fused(
                mine, passages, collection, order, shares, wanted, explain, asked
            )
            alike = [hit.score for hit in merged[start : start + depth]] if fanned else ()
        typed = ambiguous_words(collection.index.vocabulary, query) if merged[start:] else ()
        if typed:
            share, look = ranking.stem_only_share, ranking.rerank_pool
            merged[start:] = surface_first(merged[start:], collection, typed, share, look)
            alike = [hit.score for hit in merged[start : start + depth]] if fanned else ()
        if shape is not None and collection.pages.symbol_start[-1]:
            merged[start:] = with_members(
                merged[start:], collection, order, shape, ranking, explain
            )
            alike = [hit.score for hit in merged[start : start + depth]] if fanned else ()
        if fanned:
            starts.append(start)
            discounts.append(alike_discount(alike, ranking))
    if fanned:  # (one manifest's candidates come ranked)
        merged = discounted(merged, starts, discounts, limit + 1, explain)
    return SearchResults(
        search_hits(merged, limit, plans, query),
        also_matched,
        strategy,
        sum(len(d.pages) for d in selected),
    )


def near_urls(selected: Sequence[Collection], url: str) -> set[str]:
    """Known URLs a mistyped one may have meant: its neighbours in each manifest's sorted
    URLs, and the pages a search for its path's words finds."""
    candidates: set[str] = set()
    words = " ".join(chunks(url.partition("://")[2].partition("/")[2]))  # no parsing: any text
    for collection in selected:
        candidates.update(collection.pages.near(url, 10))
        if words:
            found = collection.index.run(collection.index.plan(words), 20)
            candidates.update(collection.pages.url(doc) for doc in found.pages)
    return candidates
