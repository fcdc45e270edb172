"""Search over several manifests at once: one reference for every page's 0..1 score, and a
library whose best pages answer alike does not fill the top ahead of one that singles a page out."""

from __future__ import annotations

import math

import pytest

from pinax.library import Library
from pinax.manifest import Manifest, Page, load
from pinax.search import RANKING
from pinax.search.index import pooled
from tests.conftest import shared_path


def _manifest(name: str, titles: list[str]) -> Manifest:
    site = f"https://{name}.example"
    pages = tuple(Page(f"{site}/{i}", title, "/") for i, title in enumerate(titles))
    return Manifest(name, site, name.title(), pages)


def test_a_word_one_manifest_lacks_counts_by_its_pooled_frequency() -> None:
    """ "guidelines" is in one manifest only: pooled, both measure their pages against the
    same reference, so a page covering the same words scores the same in either (their
    titles are alike in length, so length normalisation treats them alike too)."""
    library = Library(
        [
            _manifest("big", ["Contribution guidelines", "Guidelines", "Contribution"]),
            _manifest("small", ["Contribution", "Release notes", "Changelog"]),
        ]
    )
    indexes = [docs.index for docs in library.all()]
    plans = pooled([index.plan("contribution guidelines") for index in indexes], indexes)
    assert plans[0].reference == plans[1].reference
    big, small = (index.run(plan, 10) for index, plan in zip(indexes, plans, strict=True))
    alone = {doc: score for doc, score in zip(big.pages, big.scores, strict=True)}
    assert alone[2] == dict(zip(small.pages, small.scores, strict=True))[0]  # "Contribution"


def _alike_and_alone() -> Library:
    """ "many" has eight pages that answer "setup guide" alike; "one" a single page that
    answers it a little less well (a longer title) and stands alone there."""
    many = _manifest("many", ["Setup guide"] * 8 + ["Release notes"])
    one = _manifest("one", ["Setup guide for clusters", "Release notes", "Changelog"])
    return Library([many, one])


def test_a_library_of_alike_pages_does_not_fill_the_top() -> None:
    library = _alike_and_alone()
    alone = Library([library.get("many")]).search("setup guide", 3).hits
    assert len({hit.score for hit in alone}) == 1  # eight alike, as searched alone
    hits = library.search("setup guide", 3).hits
    assert "one" in {hit.docs for hit in hits}
    scores = [hit.score for hit in hits]
    assert scores == sorted(scores, reverse=True) and all(0 < s <= 1 for s in scores)
    # Without the discount the eight alike pages would take all three places.
    undiscounted = {
        hit.docs: hit.score + (hit.explain or {})["alike_discount"]
        for hit in library.search("setup guide", 3, explain=True).hits
    }
    assert undiscounted["many"] > undiscounted["one"]


def test_the_discount_is_how_many_answer_alike() -> None:
    """alike_spread x ln(8) for eight alike pages; nothing for a page that stands alone."""
    hits = _alike_and_alone().search("setup guide", 10, explain=True).hits
    discount = {hit.docs: (hit.explain or {})["alike_discount"] for hit in hits}
    assert discount["many"] == pytest.approx(RANKING.alike_spread * math.log(8), abs=1e-3)
    assert discount["one"] == pytest.approx(0.0, abs=1e-3)


def test_a_fanned_out_top_hit_does_not_depend_on_the_limit() -> None:
    library = _alike_and_alone()
    for query in ("setup guide", "release notes", "changelog"):
        first = library.search(query, 1).hits[0]
        assert first == library.search(query, 10).hits[0]


def test_one_manifest_is_searched_as_before() -> None:
    """The discount is the fan-out's: a manifest searched alone keeps its scores."""
    (docs,) = Library([_manifest("many", ["Setup guide"] * 8)]).all()
    plan = docs.index.plan("setup guide")
    ranked = docs.index.run(plan, 8)
    hits = Library([_manifest("many", ["Setup guide"] * 8)]).search("setup guide", 8).hits
    assert [hit.score for hit in hits] == ranked.scores


def test_a_library_named_in_the_query_ranks_its_pages_as_alone() -> None:
    """ "django" is on most of django's pages and on none of the other's: it says which
    library is meant. Pooled, it would outweigh "settings" there and put the release notes
    first; named, it weighs in django what it weighs in django alone."""
    django = _manifest(
        "django",
        ["Settings", "Django 1.8 release notes", "Django 1.9 release notes", "Django admin"],
    )
    other = _manifest("other", ["Settings", "Setup guide", "Changelog"])
    library = Library([django, other])
    alone = Library([django]).search("django settings", 4).hits
    assert alone[0].title == "Settings"
    hits = library.search("django settings", 5).hits
    assert [h.url for h in hits if h.docs == "django"] == [h.url for h in alone]
    assert hits[0].docs == "django"  # above the other library's "Settings": it lacks "django"
    indexes = [docs.index for docs in library.all()]
    plans = [index.plan("django settings") for index in indexes]
    unnamed, named = pooled(plans, indexes), pooled(plans, indexes, ["django", "other"])
    assert named[0].reference < unnamed[0].reference  # "django" weighs less in django...
    assert named[1].reference == unnamed[1].reference  # ...and the same where it is absent


@pytest.mark.parametrize("query", ["django models", "django template system"])
def test_the_eight_shared_manifests_answer_a_query_naming_django_as_django_alone_first(
    query: str,
) -> None:
    names = ["react", "fastapi", "kubernetes", "mdn", "django", "drf", "adk", "textual"]
    manifests = [load(shared_path("corpora", "manifests", f"{n}.json")) for n in names]
    django = manifests[names.index("django")]
    alone = [hit.url for hit in Library([django]).search(query, 5, embedding_weight=0).hits]
    together = Library(manifests).search(query, 5, embedding_weight=0).hits
    assert together[0].url == alone[0]  # (before: MDN's Django tutorial, or adk's "Models")
    found = [hit.url for hit in together if hit.docs == "django"]
    assert len(found) >= 2 and found == alone[: len(found)]  # in django's own order
