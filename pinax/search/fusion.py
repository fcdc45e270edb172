"""Fusion: one manifest's scores by words, meaning and content made one score on 0..1, and the
fanned-out libraries merged with their alike discount (the rules: `pinax.search.ranking`).

A `Candidate` is a page one manifest found, before the merge picks what is shown.
"""

from __future__ import annotations

import heapq
import math
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, NamedTuple

from pinax.search.content import ContentHit, query_terms
from pinax.search.index import Plan, Ranked
from pinax.search.members import member_pages
from pinax.search.ranking import Ranking
from pinax.search.semantic import QueryMeaning, Vectors
from pinax.search.tokens import holds_marks, stem_mark

if TYPE_CHECKING:
    from pinax.search.collection import Collection


class Candidate(NamedTuple):
    """A page one manifest found, before the merge picks what is shown."""

    score: float
    rank: int  # in its manifest's ranking
    order: int  # its manifest's place among the selected
    collection: Collection
    doc: int
    detail: dict[str, Any] | None
    meant: int  # the heading closest in meaning (where meaning re-ranked), else -1
    passage: int = -1  # the section of the page's text that matched (content), else -1


def blended(
    ranked: Ranked,
    vectors: Vectors,
    meaning: QueryMeaning,
    keep: int,
    rescue: int,
    weights: tuple[float, float],
    explain: bool,
) -> list[tuple[float, int, dict[str, Any] | None, int]]:
    """One manifest's candidates re-scored by meaning, the `keep` best first, as (score, page,
    explain, the heading closest in meaning where closer than the title, else -1); with
    `rescue`, that many pages found by meaning alone (lexical 0: words found nothing)."""
    pages = list(ranked.pages)
    lexical = list(ranked.scores)
    details: list[dict[str, Any] | None] = list(ranked.explain or [None] * len(pages))
    if rescue:
        rescued = vectors.nearest(meaning.vector, rescue, set(pages))
        pages += rescued
        lexical += [0.0] * len(rescued)
        details += [{"terms": [], "rescued": "by meaning"} if explain else None] * len(rescued)
    if vectors.reranks or explain or len(pages) > len(ranked.pages):
        embedding, headings = vectors.score(meaning.vector, pages)
    else:  # titles only, nothing rescued, nothing explained: meaning has no say
        embedding, headings = [0.0] * len(pages), [-1] * len(pages)
    lexical_weight, embedding_weight = weights
    total = lexical_weight + embedding_weight
    blend = [
        (lexical_weight * lex + embedding_weight * emb) / total
        for lex, emb in zip(lexical, embedding, strict=True)
    ]
    if not vectors.reranks:  # titles only: words alone score what they found
        blend[: len(ranked.pages)] = lexical[: len(ranked.pages)]
        headings = [-1] * len(pages)
    rounded = [round(score, 4) for score in blend]
    best = []
    for at in sorted(range(len(blend)), key=rounded.__getitem__, reverse=True)[:keep]:
        detail = details[at]
        if explain and detail is not None:
            detail = {
                **detail,
                "lexical": lexical[at],
                "embedding": round(embedding[at], 4),
                "weights": {"lexical": lexical_weight, "embedding": embedding_weight},
            }
        best.append((rounded[at], pages[at], detail, headings[at]))
    return best


def corrections(plans: list[Plan]) -> dict[str, str]:
    """Each typed word the indexes lack -> the known word search corrected it to (by edit
    distance; completions and words containing it are not what was meant)."""
    return {
        term.word: term.matched_word
        for plan in plans
        for term in plan.terms
        if term.match == "fuzzy" and term.matched_word
    }


def alike_discount(scores: Sequence[float], ranking: Ranking) -> float:
    """What a library's scores lose in a fan-out for having several pages that answer as
    well as its best (`scores`, its own, best first): `alike_spread x ln(m)`, where m, the
    sum over its `alike_depth` best of `exp((score - best) / alike_spread)`, is 1 when one
    page stands out and 10 when ten tie (pages `alike_reach` or more below the best add
    nothing). A page that is one of m alike is about 1/m as likely the one meant as a page
    its library singles out; the library's own order stays."""
    spread, reach = ranking.alike_spread, ranking.alike_reach
    if len(scores) < 2 or scores[1] < scores[0] - reach:
        return 0.0  # one page stands out (most libraries, most queries: nothing to add up)
    best, alike = scores[0], 0.0
    for score in scores[: ranking.alike_depth]:
        if score < best - reach:
            break  # best first: the rest count for less than 1/500 each
        alike += math.exp((score - best) / spread)
    return spread * math.log(alike)


def discounted(
    merged: list[Candidate],
    starts: list[int],
    discounts: list[float],
    keep: int,
    explain: bool,
) -> list[Candidate]:
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
    best: list[Candidate] = []
    while heads and len(best) < keep:
        key, rank, order = heads[0]
        at = starts[order] + rank
        best.append(Candidate._make((round(max(0.0, -key), 4), *merged[at][1:])))
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


def content_shares(size: int, ranking: Ranking, text_only: bool = False) -> tuple[float, float]:
    """(titles', content's) weights for a query of `size` words (stop words aside): a few
    words name a page (its title or a heading), a question describes what a page says, so
    content counts in full from `question_words` words and falls to `short_share` of it at
    `name_words`; in full too where a word is known only to page text (`text_only`)."""
    share = ranking.content_share(size, text_only=text_only)
    return 1.0 - share, share


def heading_is(collection: Collection, passage: ContentHit, stems: frozenset[str]) -> bool:
    """Whether the content stems of the heading of a page's best section (none for the lead)
    are exactly `stems` (a heading without each stem's `stem_mark` is not analysed)."""
    assert collection.content is not None
    number, own = collection.content.heading(passage.section)
    text = collection.pages.heading(number).title if number >= 0 else own
    if not text or not holds_marks(text, map(stem_mark, stems)):
        return False
    return frozenset(query_terms(text)) == stems


def fused(
    found: list[Candidate],
    passages: list[ContentHit],
    collection: Collection,
    order: int,
    weights: tuple[float, float],
    keep: int,
    explain: bool,
    asked: tuple[frozenset[str], float] = (frozenset(), 1.0),
) -> list[Candidate]:
    """One manifest's pages by titles and headings (`found`, scored on 0..1) fused with its
    pages by what they say (`passages`): `max(found, (title_weight x found + content_weight
    x content) / (title_weight + content_weight))`, a page missing from one side scoring 0
    there (the weights add up to 1); the `keep` best first, ranked anew. A page whose best
    section's heading has exactly the query's stems (`asked`: them and the boost) keeps
    1/boost of its distance to 1."""
    title_weight, content_weight = weights
    total = title_weight + content_weight
    by_doc = {hit.doc: hit for hit in found}
    said = {hit.doc: hit for hit in passages}
    stems, boost = asked
    scored = []
    for doc in dict.fromkeys([*by_doc, *said]):
        hit, passage = by_doc.get(doc), said.get(doc)
        lexical = hit.score if hit is not None else 0.0
        content = passage.score if passage is not None else 0.0
        score = max(lexical, (title_weight * lexical + content_weight * content) / total)
        if stems and passage is not None and heading_is(collection, passage, stems):
            score = 1.0 - (1.0 - score) / boost
        score = round(score, 4)
        scored.append((-score, hit.rank if hit is not None else keep, doc, lexical, content))
    scored.sort()
    result = []
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
        result.append(Candidate(-negative, rank, order, collection, doc, detail, meant, section))
    return result


def with_members(
    found: list[Candidate],
    collection: Collection,
    order: int,
    asked: tuple[str, tuple[int, ...]],
    ranking: Ranking,
    explain: bool,
) -> list[Candidate]:
    """One manifest's candidates (best first) with the pages that document the owner's
    members of the kind `asked` (`members.member_query`): a page with the most of them
    scores at least `member_score`, one with fewer that times the square root of its share
    (two at least); ranked anew."""
    counted = member_pages(collection.pages, *asked)
    if not counted or counted[0][1] < 2:
        return found
    most = counted[0][1]
    floor = {doc: ranking.member_score * (n / most) ** 0.5 for doc, n in counted[:10] if n >= 2}
    by_doc = {hit.doc: hit for hit in found}
    for doc, score in floor.items():
        hit = by_doc.get(doc)
        if hit is None:
            detail = {"terms": [], "members": asked[0]} if explain else None
            by_doc[doc] = Candidate(round(score, 4), len(found), order, collection, doc, detail, -1)
        elif hit.score < score:
            by_doc[doc] = hit._replace(score=round(score, 4))
    ranked = sorted(by_doc.values(), key=lambda hit: (-hit.score, hit.rank))
    return [hit._replace(rank=rank) for rank, hit in enumerate(ranked)]
