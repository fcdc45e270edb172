"""Versions kept as written, compared by release numbers, matched by the issue's one rule."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from pinax.errors import InvalidArgs
from pinax.versions import Version, highest, identity, matches, refusal, select, split_identity


@pytest.mark.parametrize(
    ("text", "release", "label"),
    [
        ("5.2", (5, 2), False),
        ("3.11", (3, 11), False),
        ("v15.1.8", (15, 1, 8), False),
        ("1.20", (1, 20), False),
        ("0_13_1", (0, 13, 1), False),
        ("stable", (), True),
        ("latest", (), True),
        ("dev", (), True),
        ("5.0rc1", (5, 0), False),
        ("1.0.0-beta.1", (1, 0, 0), False),
        ("2026.6", (2026, 6), False),
    ],
)
def test_a_version_keeps_its_text_and_reads_its_release(text, release, label) -> None:
    version = Version(text)
    assert version.text == text
    assert str(version) == text
    assert version.release == release
    assert version.is_label is label


@pytest.mark.parametrize(
    ("one", "other"),
    [
        ("5.2", "5.2.0"),
        ("v15.1.8", "15.1.8"),
        ("0_13_1", "0.13.1"),
        ("5", "5.0.0"),
        ("Stable", "stable"),
    ],
)
def test_equal_by_release_numbers(one: str, other: str) -> None:
    assert Version(one) == Version(other)
    assert hash(Version(one)) == hash(Version(other))


@pytest.mark.parametrize(
    ("one", "other"),
    [("1.20", "1.2"), ("5.2", "5.2.1"), ("stable", "latest"), ("5.2", "stable"), ("1.0rc1", "1.0")],
)
def test_not_equal(one: str, other: str) -> None:
    assert Version(one) != Version(other)


def test_order_is_by_numbers_not_text() -> None:
    texts = ["1.20", "1.2", "1.10", "1.9.9", "v1.3", "1.2.0.1", "1.0rc1", "1.0", "1.0.post1"]
    ordered = [v.text for v in sorted(map(Version, texts))]
    assert ordered == [
        "1.0rc1",
        "1.0",
        "1.0.post1",
        "1.2",
        "1.2.0.1",
        "v1.3",
        "1.9.9",
        "1.10",
        "1.20",
    ]


@pytest.mark.parametrize("text", ["", "   ", "5.2 beta", "a/b", "x" * 101, "v", "../etc", "5;2"])
def test_not_a_version_is_refused_with_its_text(text: str) -> None:
    with pytest.raises(InvalidArgs, match="not a version"):
        Version(text)


def test_a_non_string_is_refused() -> None:
    with pytest.raises(InvalidArgs):
        Version(5.2)  # type: ignore[arg-type]


# The issue's matching table: (asked, loaded, answer).
TABLE = [
    ("5.2", ["4.2", "5.2"], "5.2"),
    ("5.2", ["4.2", "5.2.19"], "5.2.19"),  # 5.2 matches 5.2.19
    ("5.2.4", ["4.2", "5.2"], "5.2"),  # 5.2.4 asked matches docs 5.2
    ("5", ["4.2", "5.2"], "5.2"),  # no 5 loaded, exactly one 5.x
    ("5", ["5.1", "5.2"], None),  # two 5.x: refused, not guessed
    ("5", ["5", "5.2"], "5"),  # a 5 loaded: that one
    ("3.2", ["4.2", "5.2"], None),  # absent: refused, never substituted
    ("4", ["4.2", "5.2"], "4.2"),
    ("1.2", ["1.20"], None),  # 1.2 is not 1.20
    ("1.20", ["1.2"], None),
    ("v15.1.8", ["15.1"], "15.1"),
    ("15.1.8", ["v15.1.8", "15.1"], "v15.1.8"),
    ("0.13.1", ["0_13_1"], "0_13_1"),
    ("5.2.0", ["5.2"], "5.2"),
    ("5.2", ["5.2.0"], "5.2.0"),
    ("5.2", ["5.2.18", "5.2.19"], None),  # two 5.2.x: refused
    ("5.2", ["5", "5.2.19"], "5.2.19"),  # the one sharing the most numbers
    ("5.2.4", ["5", "5.2"], "5.2"),
    ("5.2.0", ["5.2.19"], None),  # neither is a prefix of the other
    ("stable", ["stable", "5.2"], "stable"),
    ("stable", ["5.2", "latest"], None),  # labels match only themselves
    ("5.2", ["stable", "latest", "dev"], None),
    ("dev", ["5.2.dev0"], None),
    ("3.11", ["3.10", "3.11", "3.12"], "3.11"),
    ("3.11.7", ["3.10", "3.11", "3.12"], "3.11"),
    ("3", ["3.10", "3.11"], None),
    ("5.2", [], None),
]


@pytest.mark.parametrize(("asked", "loaded", "answer"), TABLE)
def test_the_issues_matching_table(asked: str, loaded: list[str], answer: str | None) -> None:
    found = select(asked, loaded)
    if answer is None:
        assert found is None
    else:
        assert found is not None and found.text == answer  # the loaded one, as written


def test_select_returns_the_loaded_object() -> None:
    loaded = [Version("4.2"), Version("5.2.19")]
    assert select(Version("5.2"), loaded) is loaded[1]


def test_matches_is_symmetric_in_the_prefix_rule() -> None:
    assert matches("5.2", "5.2.19") and matches("5.2.19", "5.2")
    assert not matches("5.2", "5.3") and not matches("stable", "5.2")


def test_highest() -> None:
    assert highest(["4.2", "5.2", "5.10", "5.9"]).text == "5.10"
    assert highest(["4.2", "stable"]).text == "4.2"  # numbers above labels
    assert highest(["latest", "stable", "dev"]).text == "stable"
    assert highest(["dev", "main"]).text == "main"
    assert highest([]) is None


# Property tests: select never substitutes ------------------------------------------------

numbers = st.lists(st.integers(0, 30), min_size=1, max_size=4)
numbered = numbers.map(lambda parts: ".".join(map(str, parts)))
versions = st.one_of(
    numbered,
    numbered.map(lambda text: "v" + text),
    st.sampled_from(["stable", "latest", "dev", "main"]),
)


@given(versions, st.lists(versions, max_size=8))
def test_select_never_returns_a_version_that_does_not_match(asked: str, loaded: list[str]) -> None:
    found = select(asked, loaded)
    if found is not None:
        assert matches(asked, found)
        assert found.text in loaded


@given(versions, st.lists(versions, max_size=8))
def test_select_finds_an_exact_copy_when_one_is_loaded(asked: str, loaded: list[str]) -> None:
    found = select(asked, [*loaded, asked])
    assert found is not None and found == Version(asked)


@given(versions, st.lists(versions, max_size=8))
def test_nothing_matching_is_refused(asked: str, loaded: list[str]) -> None:
    if not any(matches(asked, other) for other in loaded):
        assert select(asked, loaded) is None


@given(st.lists(versions, min_size=1, max_size=8))
def test_highest_is_one_of_them_and_no_lower(loaded: list[str]) -> None:
    top = highest(loaded)
    assert top is not None and top.text in loaded
    assert all(not (top < Version(other)) for other in loaded)


@pytest.mark.parametrize(
    ("text", "name", "version"),
    [
        ("django@5.2", "django", "5.2"),
        ("django", "django", None),
        ("next@v16.2.0", "next", "v16.2.0"),
        ("@angular/core@19", "@angular/core", "19"),
        ("@angular/core", "@angular/core", None),
    ],
)
def test_split_identity(text: str, name: str, version: str | None) -> None:
    found_name, found_version = split_identity(text)
    assert found_name == name
    assert (found_version.text if found_version else None) == version
    assert identity(found_name, found_version) == text


@pytest.mark.parametrize("text", ["django@", "django@5 2", "django@a/b"])
def test_split_identity_refuses_a_bad_version(text: str) -> None:
    with pytest.raises(InvalidArgs):
        split_identity(text)


def test_refusal_names_what_is_loaded() -> None:
    assert refusal("django", "3.2", ["5.2", "4.2"]) == "no docs for django 3.2; loaded: 4.2, 5.2"
    assert refusal("django", "3.2", []) == "no docs for django 3.2; loaded: none"


def test_a_pep440_epoch_compares_first_and_matches_only_its_own() -> None:
    assert Version("1!2.0").epoch == 1 and Version("1!2.0").release == (2, 0)
    assert Version("2.0").epoch == 0
    assert Version("1!1.0") > Version("2024.1") > Version("0!2023.9")
    assert Version("0!5.2") == Version("5.2")  # epoch 0 is the default
    assert Version("1!2.0") != Version("2.0")
    assert matches("1!2", "1!2.0") and not matches("2", "1!2.0")
    assert select("1!2.0", ["2.0", "1!2.0", "1!3.0"]).text == "1!2.0"
    assert select("2.0", ["1!2.0"]) is None  # never substituted across epochs
    assert highest(["2024.1", "1!0.1"]).text == "1!0.1"


@pytest.mark.parametrize("text", ["1!", "!2", "1!stable", "1!!2", "x!2"])
def test_an_epoch_without_numbers_is_not_a_version(text: str) -> None:
    with pytest.raises(InvalidArgs):
        Version(text)
