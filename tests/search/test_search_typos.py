"""Typo and partial-word rescue beside what was typed: edit-distance rules, prefixes,
substrings, `also_matched`, and the words never rescued (short, digits, identifier parts)."""

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
    assert answer["also_matched"] == {query.lower(): [meant]}
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
    assert meant not in answer.get("also_matched", {}).get(query.lower(), [])
    assert all(r["title"].lower() != meant for r in answer["results"])


def test_a_known_word_is_never_corrected(tools: Tools) -> None:
    for query in ("model fields", "models", "forms"):
        answer = tools.search_pages(query)
        assert "also_matched" not in answer and answer["strategy"] == "bm25", query
    assert tools.search_pages("model fields")["results"][0]["title"] == "Model fields"


def test_partial_words_are_completed(tools: Tools) -> None:
    answer = tools.search_pages("useEffe", limit=3)
    assert answer["results"][0]["title"] == "useEffect"
    assert answer["strategy"] == "fuzzy"
    assert answer["also_matched"] == {"useeffe": ["useeffect", "useeffectevent"]}
    assert tools.search_pages("Middlew")["results"][0]["title"] == "Middleware"


def test_substring_fallback_when_nothing_else_matches(tools: Tools) -> None:
    answer = tools.search_pages("califragil")
    assert answer["results"][0]["title"] == "Supercalifragilistic"
    assert answer["strategy"] == "substring"


def test_nothing_close_finds_nothing(tools: Tools) -> None:
    answer = tools.search_pages("qqqqqqqq")
    assert answer["results"] == [] and "also_matched" not in answer


def test_a_word_one_manifest_knows_is_not_a_typo_in_another() -> None:
    both = Tools(Library([manifest(["Forms"], "a"), manifest(["Frames"], "b")]))
    answer = both.search_pages("frames")
    assert "also_matched" not in answer
    assert [r["title"] for r in answer["results"]] == ["Frames"]
    answer = both.search_pages("fomrs")  # a typo for both: corrected where it is close
    assert answer["also_matched"] == {"fomrs": ["forms"]}
    assert answer["results"][0]["docs"] == "a"


def test_real_typo_queries() -> None:
    folder = shared_path("corpora", "manifests")
    tools = Tools(Library.load([folder / "react.json", folder / "mdn.json"]))
    answer = tools.search_pages("intersectoin observer", docs="mdn")
    assert answer["also_matched"] == {"intersectoin": ["intersection"]}
    assert "Intersection" in answer["results"][0]["title"]
    answer = tools.search_pages("useStaet", docs="react")
    assert answer["results"][0]["url"] == "https://react.dev/reference/react/useState"
    assert answer["also_matched"] == {"usestaet": ["usestate"]}


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
    assert found.also_matched == {"filtr": ["filter"]}
    assert found.hits and "Filters" in found.hits[0].title


AS_TYPED = [
    "FileNotFoundError",
    "re.sub",
    "str",
    "iso",
    "non",
    "os.environ",
    "useEffect",
    "server.proxy",
    "__init__",
    "8601",
    "v2",
    "k8s",
]


@pytest.fixture(scope="module")
def shared_library() -> Library:
    folder = shared_path("corpora", "manifests")
    return Library.load(sorted(folder.glob("*.json")))


@pytest.mark.parametrize("query", AS_TYPED)
def test_names_short_words_and_numbers_are_searched_as_typed(
    shared_library: Library, query: str
) -> None:
    """Nothing is added beside them over the eight shared manifests: no part of an
    identifier is corrected (`FileNotFoundError` is not `FileNotsoundError`), no short word
    completed (`iso` is not `isolating`), no number or word with digits touched."""
    found = shared_library.search(query, 5)
    assert found.also_matched == {}, query
    for docs in shared_library.all():
        plan = docs.index.plan(query)
        assert {t.match for t in plan.terms} <= {"exact", "phrase"}, (query, docs.name)


def test_identifier_parts_are_never_corrected_in_a_small_index() -> None:
    """The issue's case: a page about sound files, and `FileNotFoundError` typed."""
    tools = Tools(
        Library([manifest(["sndhdr: Determine type of sound file", "Built-in Exceptions"])])
    )
    answer = tools.search_pages("FileNotFoundError", explain=True)
    assert "also_matched" not in answer and answer["strategy"] == "bm25"
    hit = answer["results"][0]  # its part `file`, as typed, at a part's weight: a weak hit
    assert hit["confidence"] == "low"
    assert [t["word"] for t in hit["explain"]["terms"]] == ["file"]
    answer = tools.search_pages("re.sub structured")  # `structured`: a word, not a part
    assert "also_matched" not in answer


def test_a_whole_identifier_is_corrected_beside_what_was_typed(shared_library: Library) -> None:
    found = shared_library.search("useEfect", 3)
    assert found.also_matched == {"useefect": ["useeffect"]}
    assert found.hits[0].url == "https://react.dev/reference/react/useEffect"
    plan = shared_library.get("react").index.plan("useEfect")
    assert all(t.match != "fuzzy" or t.word == "useefect" for t in plan.terms)


def test_an_unknown_word_counts_as_unknown(tools: Tools) -> None:
    """A correction is added beside the typed word at a lower weight: the page it finds
    scores below the page found by the word itself."""
    typed = tools.search_pages("Fomrs")["results"][0]
    exact = tools.search_pages("Forms")["results"][0]
    assert typed["url"] == exact["url"] and typed["score"] < exact["score"]
