"""Declared ranges: npm's as node-semver reads them, PEP 440's as `packaging` reads them, and a
range selecting the highest loaded docs version inside it."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st
from packaging.specifiers import SpecifierSet

from pinax.versions import Version, parse_range

FIXTURES = Path(__file__).parent / "fixtures"
ORACLE = json.loads((FIXTURES / "semver_oracle.json").read_text())


@pytest.mark.parametrize("text", sorted(ORACLE["ranges"]))
def test_npm_ranges_agree_with_node_semver(text: str) -> None:
    """Every range of the table, on every version, as node-semver itself answered."""
    found = parse_range("npm", text)
    assert found is not None, text
    mine = "".join("1" if found.contains(v) else "0" for v in ORACLE["versions"])
    assert mine == ORACLE["ranges"][text]


def test_the_oracle_covers_the_grammar() -> None:
    assert ORACLE["semver"] == "7.6.3"
    texts = " ".join(ORACLE["ranges"])
    for piece in ("^", "~", ">=", "<=", "||", " - ", "x", "*", "-beta", "+build"):
        assert piece in texts


@pytest.mark.parametrize(
    "text",
    [
        "latest",
        "next",
        "workspace:*",
        "file:../lib",
        "npm:react@18",
        "git+https://x/y.git",
        "github:user/repo",
        "https://example.com/x.tgz",
        "1.2.3.4",
        ">=a",
        "^",
        "~>",
        "1 -",
        "x" * 2000,
    ],
)
def test_what_npm_does_not_read_as_a_range_is_none(text: str) -> None:
    assert parse_range("npm", text) is None


@pytest.mark.parametrize(
    ("spec", "inside", "outside"),
    [
        (">=4.2,<5", ["4.2.0", "4.2.30", "4.9"], ["5.0", "4.1.9", "5.2"]),
        ("~=4.2.0", ["4.2.0", "4.2.30"], ["4.3.0", "4.1"]),
        ("~=4.2", ["4.2", "4.9"], ["5.0", "4.1"]),
        ("==5.2.*", ["5.2.0", "5.2.19"], ["5.3", "5.1.9"]),
        ("==5.2.19", ["5.2.19"], ["5.2.18", "5.2.20"]),
        ("<3", ["2.9.9", "0.1"], ["3.0", "3.0.1"]),
        ("<=3", ["3.0.0"], ["3.0.1"]),
        (">3", ["3.0.1"], ["3.0.0"]),
        ("", ["0.1", "99"], []),
        (">=1!1.0", ["1!1.0", "1!2.5", "2!0.1"], ["2024.1", "1!0.9", "99.0"]),
        ("==1!2.0", ["1!2.0", "1!2.0.0"], ["2.0", "1!2.1"]),
        (">=2024.1", ["2024.6", "1!0.1"], ["2023.9"]),  # the epoch compares first
        ("<1!0", ["2024.1", "0.1"], ["1!0.1"]),
    ],
)
def test_pep440_ranges(spec: str, inside: list[str], outside: list[str]) -> None:
    found = parse_range("pypi", spec)
    assert found is not None
    assert [v for v in inside if found.contains(v)] == inside
    assert [v for v in outside if found.contains(v)] == []


@pytest.mark.parametrize(
    "text", ["~=4", "=>4", "django>=4", ">=4,<", "latest", "===foo", "x" * 2000]
)
def test_what_pep440_does_not_read_is_none(text: str) -> None:
    assert parse_range("pypi", text) is None


def test_an_unknown_ecosystem_has_no_ranges() -> None:
    assert parse_range("cargo", "^1.2") is None


releases = st.tuples(
    st.sampled_from(["", "", "1!", "2!"]),
    st.lists(st.integers(0, 12), min_size=3, max_size=3).map(lambda p: ".".join(map(str, p))),
).map("".join)  # some with a PEP 440 epoch
operators = st.sampled_from(["==", ">=", "<=", ">", "<", "~=", "!="])
specs = st.lists(st.tuples(operators, releases), min_size=1, max_size=3).map(
    lambda pairs: ",".join(op + v for op, v in pairs)
)


@given(specs, releases)
def test_pep440_contains_agrees_with_packaging_on_releases(spec: str, release: str) -> None:
    """On releases of three numbers (what lockfiles pin), the interval reading says what
    `packaging` says, except that `!=` rules nothing out (it excludes a bad release, not the
    docs of its series)."""
    found = parse_range("pypi", spec)
    assert found is not None
    kept = ",".join(part for part in spec.split(",") if not part.startswith("!="))
    assert found.contains(release) == SpecifierSet(kept).contains(release)


# A range selects the highest loaded version inside it, never one outside ---------------------


@pytest.mark.parametrize(
    ("ecosystem", "spec", "loaded", "answer"),
    [
        ("pypi", ">=4.2,<5", ["3.2", "4.2", "5.2"], "4.2"),
        ("pypi", ">=4.2", ["3.2", "4.2", "5.2"], "5.2"),
        ("pypi", ">=4.2.5,<4.3", ["4.2", "5.2"], "4.2"),  # docs of 4.2 document 4.2.5
        ("pypi", "~=3.2.0", ["4.2", "5.2"], None),
        ("npm", "^16.1.0", ["15.0", "16.2.0", "17.0.0"], "16.2.0"),
        ("npm", "^16.1.0", ["16"], "16"),  # docs of 16 document 16.1.x
        ("npm", "~15.1.8", ["v15.1.8", "15.2"], "v15.1.8"),
        ("npm", ">=2 <3", ["1.9", "3.0", "stable"], None),
        ("npm", "*", ["1.0", "2.0", "stable"], "2.0"),  # labels are inside no range
    ],
)
def test_a_range_selects_the_highest_loaded_inside(ecosystem, spec, loaded, answer) -> None:
    found = parse_range(ecosystem, spec).select(loaded)
    assert (found.text if found else None) == answer


docs_versions = st.lists(st.integers(0, 6), min_size=1, max_size=3).map(
    lambda parts: ".".join(map(str, parts))
)
npm_ranges = st.sampled_from(sorted(ORACLE["ranges"]))


@given(npm_ranges, st.lists(docs_versions, max_size=8))
def test_a_range_never_selects_a_version_outside_it(spec: str, loaded: list[str]) -> None:
    found = parse_range("npm", spec)
    chosen = found.select(loaded)
    if chosen is not None:
        assert found.contains(chosen) and chosen.text in loaded
        assert all(not (chosen < Version(v)) for v in loaded if found.contains(v))
    else:
        assert not any(found.contains(v) for v in loaded)
