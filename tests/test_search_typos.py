"""Typo and partial-word rescue: edit-distance rules, prefixes, substrings, did_you_mean."""

from __future__ import annotations

import pytest
from rapidfuzz.distance import OSA

from pinax.library import Library
from pinax.manifest import Manifest, from_dict
from pinax.search.vocabulary import _one_away, _two_away, deletions
from pinax.tools import Tools
from tests.conftest import shared_path

TITLES = [
    "Authentication",
    "Middleware",
    "Templates",
    "Routing",
    "Forms",
    "Models",
    "Model fields",
    "Caching",
    "Supercalifragilistic",
    "useEffect",
    "useEffectEvent",
]


def manifest(titles: list[str], name: str = "tiny") -> Manifest:
    pages = [
        {"url": f"https://{name}.example.org/{t.lower().replace(' ', '-')}", "title": t}
        for t in titles
    ]
    data = {"pinax_manifest": 1, "name": name, "url": f"https://{name}.example.org", "pages": pages}
    return from_dict(data)


@pytest.fixture(scope="module")
def tools() -> Tools:
    return Tools(Library([manifest(TITLES)]))


@pytest.mark.parametrize(
    ("query", "meant", "edits"),
    [
        ("Fomrs", "forms", 1),  # 5 letters: one edit (a swap)
        ("Routng", "routing", 1),  # a deletion
        ("Cacching", "caching", 1),  # an insertion
        ("Templatez", "templates", 1),  # a substitution
        ("Midlewaer", "middleware", 2),  # 9 letters: two edits
        ("Authentcaton", "authentication", 2),
    ],
)
def test_corrections_within_the_distance_rules(
    tools: Tools, query: str, meant: str, edits: int
) -> None:
    assert OSA.distance(query.lower(), meant) == edits
    answer = tools.search_pages(query, limit=3)
    assert answer["results"][0]["title"].lower() == meant
    assert answer["did_you_mean"] == meant
    assert answer["strategy"] == "fuzzy"


@pytest.mark.parametrize(
    ("query", "meant"),
    [
        ("Frms", "forms"),  # 4 letters: never corrected
        ("Rtouing", "routing"),  # 7 letters, two edits: too many below 9 letters
        ("Atuhenticaitno", "authentication"),  # three edits: too many
    ],
)
def test_corrections_outside_the_rules(tools: Tools, query: str, meant: str) -> None:
    assert OSA.distance(query.lower(), meant) == (
        1 if len(query) < 5 else 2 if len(query) < 9 else 3
    )
    answer = tools.search_pages(query)
    assert answer.get("did_you_mean") != meant
    assert all(r["title"].lower() != meant for r in answer["results"])


def test_a_known_word_is_never_corrected(tools: Tools) -> None:
    for query in ("model fields", "models", "forms"):
        answer = tools.search_pages(query)
        assert "did_you_mean" not in answer and answer["strategy"] == "bm25", query
    assert tools.search_pages("model fields")["results"][0]["title"] == "Model fields"


def test_partial_words_are_completed(tools: Tools) -> None:
    answer = tools.search_pages("useEffe", limit=3)
    assert answer["results"][0]["title"] == "useEffect"
    assert answer["strategy"] == "fuzzy"
    assert answer["did_you_mean"] == "useeffect"
    assert tools.search_pages("Middlew")["results"][0]["title"] == "Middleware"


def test_substring_fallback_when_nothing_else_matches(tools: Tools) -> None:
    answer = tools.search_pages("califragil")
    assert answer["results"][0]["title"] == "Supercalifragilistic"
    assert answer["strategy"] == "substring"


def test_nothing_close_finds_nothing(tools: Tools) -> None:
    answer = tools.search_pages("qqqqqqqq")
    assert answer["results"] == [] and "did_you_mean" not in answer


def test_a_word_one_manifest_knows_is_not_a_typo_in_another() -> None:
    both = Tools(Library([manifest(["Forms"], "a"), manifest(["Frames"], "b")]))
    answer = both.search_pages("frames")
    assert "did_you_mean" not in answer
    assert [r["title"] for r in answer["results"]] == ["Frames"]
    answer = both.search_pages("fomrs")  # a typo for both: corrected where it is close
    assert answer["did_you_mean"] == "forms"
    assert answer["results"][0]["docs"] == "a"


def test_real_typo_queries() -> None:
    folder = shared_path("corpora", "manifests")
    tools = Tools(Library.load([folder / "react.json", folder / "mdn.json"]))
    answer = tools.search_pages("intersectoin observer", docs="mdn")
    assert answer["did_you_mean"] == "intersection observer"
    assert "Intersection" in answer["results"][0]["title"]
    answer = tools.search_pages("useStaet", docs="react")
    assert answer["results"][0]["url"] == "https://react.dev/reference/react/useState"
    assert answer["did_you_mean"] == "usestate"


def test_deletions_are_every_string_that_many_deletions_away() -> None:
    """The lookup's deletions (pairs of places enumerated once) against their definition:
    deletions of deletions. A long query word's second look takes the two-away ones alone."""

    def by_definition(word: str, distance: int) -> set[str]:
        found = frontier = {word}
        for _ in range(distance):
            frontier = {w[:i] + w[i + 1 :] for w in frontier for i in range(len(w))}
            found = found | frontier
        return found

    for word in ["", "a", "ab", "aab", "mississippi", "authentication", "useeffectevent"]:
        for distance in (1, 2):
            assert deletions(word, distance) == by_definition(word, distance), (word, distance)
        two_only = by_definition(word, 2) - by_definition(word, 1)
        assert _two_away(_one_away(word)) == two_only, word
    assert len(deletions("abcd", 2)) == 1 + 4 + 6  # itself, one deletion, pairs of places


def test_a_typo_of_a_singular_finds_the_plural_titles() -> None:
    """Django's titles say `filters`; `filtr` is one edit from `filter`, two from `filters`."""
    folder = shared_path("corpora", "manifests")
    library = Library.load([folder / "django.json"])
    found = library.search("filtr", 3)
    assert found.corrections == {"filtr": "filter"}
    assert found.hits and "Filters" in found.hits[0].title
