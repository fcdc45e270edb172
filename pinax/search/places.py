"""What a shown hit names inside its page (a symbol, else the section whose text matched, else
a heading), and the hits as a search returns them (`SearchHit`), with snippet and confidence."""

from __future__ import annotations

from typing import Any, NamedTuple

from pinax.search.fusion import Candidate
from pinax.search.index import Plan, confidence


class SearchHit(NamedTuple):
    """One result: a page of a manifest, its 0..1 score and the place inside it that answers."""

    docs: str
    url: str
    title: str
    section: str
    score: float
    explain: dict[str, Any] | None = None
    heading: str | None = None  # the section that answers (see `Collection.place`)
    anchor: str | None = None  # the heading's or symbol's id on the page
    confidence: str = "low"
    symbol: str | None = None  # the API name that answers (then no heading is named)
    kind: str | None = None  # the symbol's kind
    snippet: str | None = None  # of the section whose text matched (content)
    indexed_at: str | None = None  # when that text was read, where known


class Place(NamedTuple):
    """What a hit names inside its page: a symbol (with its kind), else a heading; and the
    anchor `get_page(url, section=...)` opens."""

    heading: str | None = None
    anchor: str | None = None
    symbol: str | None = None
    kind: str | None = None


def places(shown: list[Candidate], plans: list[Plan]) -> list[Place]:
    """The place each shown hit names, found for the shown hits only, in this order: the
    symbol whose name answers what the title does not, the section whose text matched
    (none for the text before the first heading), the heading that answers, the heading
    closest in meaning."""
    found_places = [Place()] * len(shown)
    by_library: dict[int, list[int]] = {}
    for at, hit in enumerate(shown):
        by_library.setdefault(hit.order, []).append(at)
    for order, ats in by_library.items():
        collection = shown[ats[0]].collection
        symbols = collection.index.best_symbols([shown[at].doc for at in ats], plans[order])
        rest = []  # the hits neither a symbol nor a section found by its text names
        for at, symbol in zip(ats, symbols, strict=True):
            hit = shown[at]
            if symbol >= 0:
                found = collection.symbol(symbol)
                found_places[at] = Place(None, found.anchor, found.name, found.kind)
            elif hit.passage >= 0:
                found_places[at] = Place(*passage_place(hit))
            else:
                rest.append(at)
        headings = collection.index.best_headings([shown[at].doc for at in rest], plans[order])
        for at, heading in zip(rest, headings, strict=True):
            hit = shown[at]
            heading = heading if heading >= 0 else hit.meant
            if heading >= 0:
                found_places[at] = Place(*collection.place(hit.doc, heading))
    return found_places


def passage_place(hit: Candidate) -> tuple[str | None, str | None]:
    """Where a section found by its text is: its outline heading, or (when the page's text
    did not match its outline) its own heading without an anchor; none for the lead."""
    assert hit.collection.content is not None
    heading, own = hit.collection.content.heading(hit.passage)
    if heading >= 0:
        return hit.collection.place(hit.doc, heading)
    return own, None


def search_hits(
    merged: list[Candidate], limit: int, plans: list[Plan], query: str
) -> list[SearchHit]:
    """The first `limit` candidates as results, each with the place it names, its snippet
    (found by content) and its confidence: a hit close behind or ahead of another is one of
    equals (the runner-up, past the limit, counts too)."""
    shown = merged[:limit]
    scores = [hit.score for hit in merged[: limit + 1]]
    scores.append(0.0)  # nothing after the last
    hits = []
    for at, (hit, place) in enumerate(zip(shown, places(shown, plans), strict=True)):
        score = scores[at]
        margin = score - scores[at + 1]
        if at:
            margin = min(margin, scores[at - 1] - score)
        snippet = indexed_at = None
        if hit.passage >= 0:
            content = hit.collection.content
            assert content is not None
            snippet = content.snippet(hit.passage, query) or None  # none: no text
            indexed_at = content.fetched_at(hit.passage)
        url, title, section = hit.collection.pages.row(hit.doc)
        hits.append(
            SearchHit(
                hit.collection.name,
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
