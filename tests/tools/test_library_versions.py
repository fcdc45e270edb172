"""Choosing docs by version in the library: the prefix rule, refusal with the loaded list,
the highest by default (and said), never two versions of one library in one search."""

from __future__ import annotations

import pytest

from pinax.errors import InvalidArgs, NotFound
from pinax.library import Library
from pinax.manifest import Manifest, Page


def _docs(name: str, version: str | None, titles: list[str]) -> Manifest:
    base = f"https://{name}.example.com/{version or 'dev'}"
    pages = tuple(
        Page(url=f"{base}/{t.lower().replace(' ', '-')}/", title=t, section="/") for t in titles
    )
    return Manifest(name=name, url=base + "/", title=name, pages=pages, version=version)


@pytest.fixture(scope="module")
def library() -> Library:
    return Library(
        [
            _docs("django", "4.2", ["Index together option", "Models"]),
            _docs("django", "5.2", ["Generated field", "Models", "Composite primary key"]),
            _docs("react", None, ["Models of state", "Hooks"]),
        ]
    )


@pytest.mark.parametrize(
    ("name", "version", "chosen"),
    [
        ("django@5.2", None, "5.2"),
        ("django", "5.2", "5.2"),
        ("django", "5.2.19", "5.2"),  # asked more precisely than loaded: a prefix
        ("django", "4", "4.2"),  # exactly one 4.x loaded
        ("django@5.2.0", None, "5.2"),
    ],
)
def test_a_loaded_version_is_chosen_by_the_prefix_rule(library, name, version, chosen) -> None:
    found = library.choose(name, version)
    assert [d.identity for d in found.collections] == [f"django@{chosen}"]
    assert found.said == {"version": chosen, "versions": ["4.2", "5.2"]}


@pytest.mark.parametrize("asked", ["3.2", "5.1", "5.3", "6", "stable", "4.1"])
def test_a_version_not_loaded_is_refused_with_the_loaded_list(library, asked) -> None:
    with pytest.raises(NotFound) as caught:
        library.choose("django", asked)
    assert str(caught.value).startswith(f"no docs for django {asked}; loaded: 4.2, 5.2")


def test_an_unversioned_copy_is_no_fallback_for_a_version() -> None:
    library = Library([_docs("react", None, ["Hooks"])])
    with pytest.raises(NotFound, match="no docs for react 18; loaded: none"):
        library.choose("react@18")
    assert library.choose("react").said == {}


def test_no_version_asked_means_the_highest_and_the_answer_says_so(library) -> None:
    found = library.choose("django")
    assert [d.identity for d in found.collections] == ["django@5.2"]
    assert found.said == {"version": "5.2", "versions": ["4.2", "5.2"]}


def test_over_all_docs_each_library_takes_part_at_its_highest_only(library) -> None:
    found = library.choose(None)
    assert [d.identity for d in found.collections] == ["django@5.2", "react"]
    both = {"version": "5.2", "versions": ["4.2", "5.2"]}
    assert found.said == {"highest_only": {"django": both}}
    hits = library.search_in(found.collections, "models", 10).hits
    versions = {(h.docs, h.url.split("/")[3]) for h in hits if h.docs == "django"}
    assert versions == {("django", "5.2")}


def test_two_ways_of_asking_must_agree_and_a_bad_version_is_invalid(library) -> None:
    with pytest.raises(InvalidArgs, match="give one"):
        library.choose("django@4.2", "5.2")
    with pytest.raises(InvalidArgs, match="not a version"):
        library.choose("django", "5 2")
    with pytest.raises(InvalidArgs, match="version needs docs"):
        library.choose(None, "5.2")
    alone = Library([_docs("django", "4.2", ["Models"]), _docs("django", "5.2", ["Models"])])
    assert alone.choose(None, "4.2").said == {"version": "4.2", "versions": ["4.2", "5.2"]}


def test_an_unknown_library_still_gets_did_you_mean(library) -> None:
    with pytest.raises(NotFound, match="did you mean 'django'"):
        library.choose("djang@5.2")
