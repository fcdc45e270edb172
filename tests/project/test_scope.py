"""The default scope with a project: its libraries at its versions, general docs, and what is
missing or unversioned said, never a version substituted."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from pinax.errors import InvalidArgs
from pinax.project import Dependency, Loaded, read_project, scope_for
from pinax.versions import Version, matches, parse_package, parse_range, runtime

FIXTURES = Path(__file__).parent / "fixtures"
DEV_EIGHT = [  # the eight DEV manifests, drf's saying which package it documents
    Loaded("django", "4.2", None),
    Loaded("django", "5.2", None),
    Loaded("drf", None, ["pypi:djangorestframework"]),
    Loaded("fastapi", None, None),
    Loaded("react", None, None),
    Loaded("kubernetes", None, []),
    Loaded("mdn", None, []),
    Loaded("python", "3.12", None),
]


def dep(package: str, version: str | None = None, spec: str | None = None) -> Dependency:
    found = parse_package(package)
    grammar = "npm" if found.ecosystem == "npm" else "pypi"
    wanted = parse_range(grammar, spec) if spec else None
    return Dependency(found, Version(version) if version else None, wanted, "test", "locked")


def test_a_django_and_drf_project() -> None:
    scope = scope_for(
        [dep("pypi:django", "4.2.30"), dep("pypi:djangorestframework", "3.15.2")], DEV_EIGHT
    )
    assert scope.docs == [("django", "4.2"), ("drf", None), ("kubernetes", None), ("mdn", None)]
    assert scope.to_dict() == {
        "project": ["django@4.2", "drf"],
        "general": ["kubernetes", "mdn"],
        "missing": [],
        "unversioned": ["drf"],
    }


def test_a_version_not_loaded_is_missing_never_replaced() -> None:
    scope = scope_for([dep("pypi:django", "3.2.25")], DEV_EIGHT)
    assert ("django", "4.2") not in scope.docs and ("django", "5.2") not in scope.docs
    assert scope.missing == [{"docs": "django", "version": "3.2.25", "loaded": ["4.2", "5.2"]}]
    assert scope.project == []


def test_an_unversioned_copy_beside_versioned_ones_is_no_fallback() -> None:
    loaded = [*DEV_EIGHT, Loaded("django", None, None)]
    scope = scope_for([dep("pypi:django", "3.2")], loaded)
    assert [d for d in scope.docs if d[0] == "django"] == []
    assert scope.missing[0]["loaded"] == ["4.2", "5.2"]
    assert scope.unversioned == []


def test_a_range_takes_the_highest_loaded_inside_it() -> None:
    assert scope_for([dep("pypi:django", spec=">=4.2")], DEV_EIGHT).project == ["django@5.2"]
    assert scope_for([dep("pypi:django", spec="<5")], DEV_EIGHT).project == ["django@4.2"]
    missing = scope_for([dep("pypi:django", spec="<4")], DEV_EIGHT).missing
    assert missing == [{"docs": "django", "version": "<4", "loaded": ["4.2", "5.2"]}]


def test_a_dependency_on_any_version_takes_the_highest() -> None:
    assert scope_for([dep("pypi:django")], DEV_EIGHT).project == ["django@5.2"]


def test_the_python_version_selects_cpythons_docs() -> None:
    python = Dependency(runtime("python"), Version("3.12.8"), None, ".python-version", "pinned")
    assert scope_for([python], DEV_EIGHT).project == ["python@3.12"]
    old = Dependency(runtime("python"), Version("3.11.7"), None, ".python-version", "pinned")
    assert scope_for([old], DEV_EIGHT).missing == [
        {"docs": "python", "version": "3.11.7", "loaded": ["3.12"]}
    ]


def test_general_docs_are_in_even_without_dependencies() -> None:
    scope = scope_for([], DEV_EIGHT)
    assert scope.docs == [("kubernetes", None), ("mdn", None)]
    assert scope.project == scope.missing == scope.unversioned == []


def test_dependencies_without_docs_are_listed_for_doctor() -> None:
    scope = scope_for([dep("pypi:sqlparse", "0.6.1"), dep("npm:react", "19.0.0")], DEV_EIGHT)
    assert scope.undocumented == ["pypi:sqlparse"]
    assert scope.project == ["react"] and scope.unversioned == ["react"]


def test_next_shipped_docs_at_the_installed_version() -> None:
    loaded = [Loaded("next", "16.2.0", ["npm:next"]), Loaded("next", "15.5", ["npm:next"])]
    assert scope_for([dep("npm:next", "16.2.0")], loaded).project == ["next@16.2.0"]
    assert scope_for([dep("npm:next", spec="^15.0.0")], loaded).project == ["next@15.5"]


def test_docs_of_another_name_and_ecosystem_are_not_taken() -> None:
    scope = scope_for([dep("npm:django", "1.0.0")], [Loaded("django", "5.2", ["pypi:django"])])
    assert scope.project == [] and scope.undocumented == ["npm:django"]


def test_each_identity_once() -> None:
    loaded = [Loaded("web", "2.0", ["pypi:flask", "pypi:werkzeug"])]
    scope = scope_for([dep("pypi:flask", "2.0.3"), dep("pypi:werkzeug", "2.0.1")], loaded)
    assert scope.docs == [("web", "2.0")]


def test_a_bad_package_list_is_refused() -> None:
    with pytest.raises(InvalidArgs):
        scope_for([], [Loaded("x", None, ["django"])])


@pytest.mark.parametrize(
    ("folder", "django"),
    [
        ("uv", "django@4.2"),
        ("poetry", "django@5.2"),
        ("pipenv", "django@4.2"),
        ("pylock", "django@5.2"),
        ("requirements", "django@4.2"),
    ],
)
def test_each_lockfile_scopes_its_django(folder: str, django: str) -> None:
    project = read_project(FIXTURES / folder)
    scope = scope_for(project.dependencies.values(), DEV_EIGHT)
    assert [i for i in scope.project if i.startswith("django")] == [django]


versions = st.lists(st.integers(0, 6), min_size=1, max_size=3).map(lambda p: ".".join(map(str, p)))


@given(versions, st.lists(versions, min_size=1, max_size=6))
def test_the_scope_never_holds_a_version_the_project_does_not_use(
    wanted: str, loaded: list[str]
) -> None:
    scope = scope_for([dep("pypi:django", wanted)], [Loaded("django", v, None) for v in loaded])
    for _, version in scope.docs:
        assert version is not None and matches(wanted, version)
    assert bool(scope.docs) != bool(scope.missing)  # served, or said to be missing


def test_doctor_lines_for_a_real_lockfile(tmp_path: Path) -> None:
    from pinax.project import doctor_lines

    project = read_project(FIXTURES / "uv")
    loaded = [
        *DEV_EIGHT,
        Loaded("python", "3.10", None),
        Loaded("pytest", "7.4", None),
    ]
    scope = scope_for(project.dependencies.values(), loaded)
    assert scope.served["pypi:django"] == ["django@4.2"]
    assert doctor_lines(project, scope) == [
        f"project {FIXTURES / 'uv'}: 13 dependencies (1 declared, 12 locked)",
        "  pypi:django 4.2.30 (uv.lock, locked) -> django@4.2",
        "  pypi:djangorestframework 3.15.2 (uv.lock, locked) -> drf (unversioned)",
        "  pypi:pytest 9.2.0 (uv.lock, locked) -> pytest 9.2.0 missing (loaded: 7.4)",
        "  runtime:python >=3.11 (pyproject.toml, declared) -> python@3.12",
        "  docs of no package, always searched: kubernetes, mdn",
        "  no docs loaded for 9: pypi:asgiref, pypi:colorama, pypi:iniconfig, pypi:packaging,"
        " pypi:pluggy, pypi:pygments, pypi:pyyaml, pypi:sqlparse, pypi:tzdata",
    ]


def test_doctor_lines_name_shipped_docs_warnings_and_cut_long_lists(tmp_path: Path) -> None:
    from pinax.project import doctor_lines

    folder = tmp_path / "node_modules" / "next"
    (folder / "dist" / "docs").mkdir(parents=True)
    (folder / "package.json").write_text('{"name": "next", "version": "16.2.0"}')
    deps = {f'"p{i}": "1.0.0"' for i in range(30)}
    (tmp_path / "package.json").write_text('{"dependencies": {' + ", ".join(sorted(deps)) + "}}")
    (tmp_path / "uv.lock").write_text("package = [")
    project = read_project(tmp_path)
    scope = scope_for(project.dependencies.values(), [Loaded("next", "16.2.0", ["npm:next"])])
    lines = doctor_lines(project, scope)
    assert "  npm:next 16.2.0 (node_modules/next/package.json, installed) -> next@16.2.0" in lines
    assert "  npm:next 16.2.0 ships its docs: node_modules/next/dist/docs" in lines
    assert any(
        line.startswith("  no docs loaded for 30: ") and line.endswith(" and 10 more")
        for line in lines
    )
    assert lines[-1].startswith("  warning: ") and "uv.lock" in lines[-1]
