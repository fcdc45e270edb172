"""Every lockfile format, read from real files (written by npm 11, pnpm 9, yarn 1 and 4, bun
1.2 and uv, or hand-copied from their documented shapes: poetry.lock, Pipfile.lock, pnpm v5/v6,
package-lock v1), to the exact versions a project pins."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from pinax.project import read_project
from pinax.versions import select

FIXTURES = Path(__file__).parent / "fixtures"
NODE_FIXTURE = {
    "npm:@types/node": "20.19.43",
    "npm:left-pad": "1.3.0",
    "npm:ms": "2.1.3",
    "npm:semver": "7.6.3",
    "npm:undici-types": "6.21.0",
}


def versions(folder: Path, how: str | None = None) -> dict[str, str | None]:
    """Each chosen dependency's package and exact version (or declared range)."""
    project = read_project(folder)
    assert project.warnings == []
    return {
        str(dep.package): dep.version.text if dep.version else (dep.range and dep.range.text)
        for dep in project.dependencies.values()
        if how is None or dep.how == how
    }


@pytest.mark.parametrize(
    ("folder", "source"),
    [
        ("npm", "package-lock.json"),
        ("pnpm", "pnpm-lock.yaml"),
        ("yarn1", "yarn.lock"),
        ("berry", "yarn.lock"),
        ("bun", "bun.lock"),
    ],
)
def test_node_lockfiles_written_by_their_tools(folder: str, source: str) -> None:
    assert versions(FIXTURES / folder, "locked") == NODE_FIXTURE
    project = read_project(FIXTURES / folder)
    assert {d.source for d in project.dependencies.values() if d.how == "locked"} == {source}


def test_berry_leaves_out_the_workspace_itself() -> None:
    project = read_project(FIXTURES / "berry")
    assert "npm:fixture-app" not in {str(r.package) for r in project.records}


def test_package_json_ranges_are_declared() -> None:
    project = read_project(FIXTURES / "npm")
    declared = {str(r.package): r.range.text for r in project.records if r.how == "declared"}
    assert declared == {
        "npm:ms": "2.1.3",
        "npm:left-pad": "^1.3.0",
        "npm:@types/node": "^20.11.0",
        "npm:semver": "~7.6.0",
    }


def test_package_lock_v3_direct_before_nested_and_aliases_by_their_real_name() -> None:
    project = read_project(FIXTURES / "npm-nested")
    assert project.dependencies[_id("npm:react")].version.text == "18.3.1"
    reacts = [
        r.version.text for r in project.records if str(r.package) == "npm:react" and r.version
    ]
    assert reacts == ["18.3.1", "17.0.2", "16.14.0"]  # top level first, the nested one last
    assert "npm:my-lib" not in {str(r.package) for r in project.records}  # a workspace link
    assert "npm:react-17" not in {str(r.package) for r in project.records}


def test_package_lock_v1_top_level_and_no_git_versions() -> None:
    assert versions(FIXTURES / "npm-v1") == {"npm:left-pad": "1.3.0", "npm:ms": "2.1.3"}


def test_pnpm_v6_strips_peer_suffixes() -> None:
    found = versions(FIXTURES / "pnpm6")
    assert found["npm:next"] == "14.2.35"
    assert found["npm:react"] == "18.3.1"
    assert found["npm:typescript"] == "5.4.5"
    assert found["npm:loose-envify"] == "1.4.0"  # indirect, from packages


def test_pnpm_v5_slash_keys() -> None:
    assert versions(FIXTURES / "pnpm5") == {
        "npm:ms": "2.1.3",
        "npm:@types/node": "18.19.3",
        "npm:undici-types": "5.26.5",
    }


def test_yarn_v1_two_versions_the_declared_range_picks() -> None:
    """react 17 (for a dependency) comes first in the file; the project's own ^18.2.0 picks 18."""
    found = versions(FIXTURES / "yarn1-versions")
    assert found["npm:react"] == "18.3.1"
    assert found["npm:legacy-widget"] == "2.1.0"
    assert "npm:react-17" not in found  # an alias names no package of its own
    assert "npm:local" not in found  # a path is no registry package


def test_uv_lock_written_by_uv() -> None:
    found = versions(FIXTURES / "uv")
    assert found["pypi:django"] == "4.2.30"
    assert found["pypi:djangorestframework"] == "3.15.2"
    assert found["pypi:pyyaml"] == "6.0.4"
    assert "pypi:fixture-app" not in found  # the project itself (virtual)
    assert found["runtime:python"] == ">=3.11"


def test_poetry_lock_and_poetry_constraints() -> None:
    project = read_project(FIXTURES / "poetry")
    assert project.dependencies[_id("pypi:django")].version.text == "5.2.19"
    assert project.dependencies[_id("pypi:django")].source == "poetry.lock"
    declared = {str(r.package): r.range for r in project.records if r.how == "declared"}
    assert declared["pypi:django"].text == "~5.2"
    assert declared["pypi:django"].contains("5.2") and not declared["pypi:django"].contains("5.3")
    assert declared["pypi:djangorestframework"].contains("3.18.3")
    python = project.dependencies[_id("runtime:python")]
    assert python.range.text == "^3.12" and python.range.contains("3.13")
    assert not python.range.contains("3.11")


def test_pipfile_lock_default_and_develop() -> None:
    found = versions(FIXTURES / "pipenv")
    assert found["pypi:django"] == "4.2.30"
    assert found["pypi:pytest"] == "8.4.2"
    assert "pypi:localpkg" not in found  # an editable path pins no version


def test_a_pipfile_without_its_lock() -> None:
    project = read_project(FIXTURES / "pipfile")
    assert project.warnings == []
    chosen = {str(d.package): d for d in project.dependencies.values()}
    assert chosen["pypi:django"].version.text == "4.2.30"  # "==" pins the exact version
    assert chosen["pypi:django"].how == "locked"
    assert chosen["pypi:django"].source == "Pipfile"
    drf = chosen["pypi:djangorestframework"]  # "*": any version
    assert (drf.version, drf.range, drf.how) == (None, None, "declared")
    requests = chosen["pypi:requests"]  # a table's version: a range
    assert requests.range.contains("2.32") and not requests.range.contains("3.0")
    assert chosen["pypi:zope-interface"].version.text == "7.2"
    assert chosen["pypi:pytest"].range.contains("8.4") and not chosen["pypi:pytest"].range.contains(
        "9.0"
    )
    assert chosen["pypi:tool-with-epoch"].version.epoch == 1  # PEP 440 `1!2.0`
    assert "pypi:localpkg" not in chosen  # a path names no version
    assert "pypi:black" not in chosen  # nor does a git URL
    assert select(chosen["pypi:django"].version, ["4.2", "5.2"]).text == "4.2"


def test_a_pipfile_beside_its_lock_gives_way_to_it() -> None:
    project = read_project(FIXTURES / "pipenv")
    django = [r for r in project.records if str(r.package) == "pypi:django"]
    assert {r.source for r in django} == {"Pipfile", "Pipfile.lock"}
    assert project.dependencies[_id("pypi:django")].source == "Pipfile.lock"


def test_a_broken_pipfile_is_a_warning_naming_it(tmp_path: Path) -> None:
    (tmp_path / "Pipfile").write_text('[packages]\ndjango = "==4.2\n', encoding="utf-8")
    project = read_project(tmp_path)
    assert project.dependencies == {}
    assert len(project.warnings) == 1 and "Pipfile" in project.warnings[0]


def test_pylock_toml_written_by_uv() -> None:
    found = versions(FIXTURES / "pylock")
    assert found["pypi:django"] == "5.2.19"
    assert found["pypi:tzdata"] == "2026.6"


def test_requirements_pins_are_locked_and_other_specifiers_declared() -> None:
    project = read_project(FIXTURES / "requirements")
    assert project.warnings == []
    chosen = project.dependencies
    assert chosen[_id("pypi:django")].version.text == "4.2.30"
    assert chosen[_id("pypi:django")].how == "locked"
    assert chosen[_id("pypi:pytest")].how == "declared"
    assert chosen[_id("pypi:pytest")].range.contains("9.1") and not chosen[
        _id("pypi:pytest")
    ].range.contains("10.0")
    assert chosen[_id("pypi:ruff")].range.text == "~=0.6"
    assert "pypi:httpx" not in {str(p) for p in chosen}  # a git URL pins no version
    assert "pypi:localpkg" not in {str(p) for p in chosen}


def test_each_python_lockfile_selects_its_django(tmp_path: Path) -> None:
    """The bar's setting: Django 4.2 and 5.2 docs loaded, each lockfile picks its own."""
    from pinax.versions import select

    expected = {
        "uv": "4.2",
        "poetry": "5.2",
        "pipenv": "4.2",
        "pylock": "5.2",
        "requirements": "4.2",
    }
    for folder, docs in expected.items():
        django = read_project(FIXTURES / folder).dependencies[_id("pypi:django")]
        assert select(django.version, ["4.2", "5.2"]).text == docs, folder


def test_the_fixtures_are_read_where_they_lie_and_copied_alike(tmp_path: Path) -> None:
    copy = tmp_path / "app"
    shutil.copytree(FIXTURES / "uv", copy)
    assert versions(copy) == versions(FIXTURES / "uv")


def _id(text: str):
    from pinax.versions import parse_package

    return parse_package(text)


@pytest.mark.parametrize(
    ("folder", "name", "key"),
    [
        ("uv", "uv.lock", "package"),
        ("poetry", "poetry.lock", "package"),
        ("pylock", "pylock.toml", "packages"),
    ],
)
def test_reading_only_the_package_lines_equals_the_whole_parse(folder, name, key) -> None:
    """The fast path keeps every table's name, version and source exactly as tomllib reads
    them from the whole file."""
    import tomllib

    from pinax.project.python import _package_lines

    text = (FIXTURES / folder / name).read_text()
    fields = ("name", "version", "source")
    whole = [{f: p[f] for f in fields if f in p} for p in tomllib.loads(text)[key]]
    fast = _package_lines(text, key)[key]
    assert fast == whole


def test_a_lockfile_with_a_multiline_string_is_parsed_whole(tmp_path: Path) -> None:
    (tmp_path / "poetry.lock").write_text(
        '[[package]]\nname = "a"\nversion = "1.0"\ndescription = """\n[[package]]\n'
        'name = "b"\nversion = "2.0"\n"""\n'
    )
    assert versions(tmp_path) == {"pypi:a": "1.0"}


def test_an_array_line_that_looks_like_a_header_loses_nothing_else(tmp_path: Path) -> None:
    (tmp_path / "uv.lock").write_text(
        '[[package]]\nname = "a"\nversion = "1.0"\nwheels = [\n["x"],\n]\n'
        '[[package]]\nname = "b"\nversion = "2.0"\n'
    )
    assert versions(tmp_path) == {"pypi:a": "1.0", "pypi:b": "2.0"}


@pytest.mark.parametrize(
    ("constraint", "inside", "outside"),
    [
        ("^3.15", ["3.15.2", "3.99"], ["4.0", "3.14"]),
        ("~5.2", ["5.2.19"], ["5.3"]),
        ("4.2", ["4.2.0"], ["4.2.1", "4.3"]),
        ("4.2.*", ["4.2.30"], ["4.3"]),
        (">=4.2,<5", ["4.9"], ["5.0"]),
        ("^2.7 || ^3.4", ["2.7.18", "3.12"], ["3.3", "4.0"]),
        ("*", ["0.1", "99.0"], []),
    ],
)
def test_poetry_constraints(constraint: str, inside: list[str], outside: list[str]) -> None:
    from pinax.project.python import poetry_constraint

    found = poetry_constraint(constraint)
    assert [v for v in inside if found.contains(v)] == inside
    assert [v for v in outside if found.contains(v)] == []


@pytest.mark.parametrize("constraint", ["latest", "^", "1.2 ||", ">=a"])
def test_what_poetry_does_not_read_is_none(constraint: str) -> None:
    from pinax.project.python import poetry_constraint

    assert poetry_constraint(constraint) is None
