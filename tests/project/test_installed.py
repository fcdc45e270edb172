"""Installed packages (a venv's dist-info, node_modules), what wins over what, the Python and
Node versions, and docs shipped inside an installed package (Next.js's, real)."""

from __future__ import annotations

import json
import shutil
import tarfile
from pathlib import Path

import pytest

from pinax.errors import InvalidArgs
from pinax.project import SHIPPED_LAYOUTS, read_project
from pinax.versions import parse_package, runtime
from tests.conftest import shared_path

FIXTURES = Path(__file__).parent / "fixtures"
DJANGO = parse_package("pypi:django")
REACT = parse_package("npm:react")


def dist_info(
    root: Path, name: str, version: str, venv: str = ".venv", metadata: bool = True
) -> Path:
    """A distribution installed the way pip and uv install it."""
    site = root / venv / "lib" / "python3.12" / "site-packages"
    folder = site / f"{name.lower().replace('-', '_')}-{version}.dist-info"
    folder.mkdir(parents=True)
    if metadata:
        (folder / "METADATA").write_text(
            f"Metadata-Version: 2.4\nName: {name}\nVersion: {version}\nSummary: x\n"
            f"Requires-Dist: asgiref>=3.8.1\n\n# {name}\n\nVersion: 0.0.0 in the description\n"
        )
    return folder


def node_package(root: Path, name: str, version: str, **more: object) -> Path:
    """An installed package: its folder under `root/node_modules` and its package.json."""
    folder = root / "node_modules" / name
    folder.mkdir(parents=True)
    (folder / "package.json").write_text(json.dumps({"name": name, "version": version, **more}))
    return folder


def test_a_venv_installed_distribution(tmp_path: Path) -> None:
    dist_info(tmp_path, "Django", "5.2.19")
    dist_info(tmp_path, "djangorestframework", "3.16.1")
    project = read_project(tmp_path)
    django = project.dependencies[DJANGO]
    assert (django.version.text, django.how) == ("5.2.19", "installed")
    assert django.source == ".venv/lib/python3.12/site-packages/django-5.2.19.dist-info/METADATA"
    assert project.dependencies[parse_package("pypi:djangorestframework")].version.text == "3.16.1"


def test_a_venv_named_venv_and_a_dist_info_without_metadata(tmp_path: Path) -> None:
    dist_info(tmp_path, "zope.interface", "7.2", venv="venv", metadata=False)
    found = read_project(tmp_path).dependencies[parse_package("pypi:zope-interface")]
    assert found.version.text == "7.2" and found.source.endswith("zope.interface-7.2.dist-info")


def test_node_modules_with_scoped_packages(tmp_path: Path) -> None:
    node_package(tmp_path, "react", "18.3.1")
    node_package(tmp_path, "@angular/core", "19.2.0")
    (tmp_path / "node_modules" / ".bin").mkdir()
    (tmp_path / "node_modules" / ".package-lock.json").write_text("{}")
    found = read_project(tmp_path)
    assert found.warnings == []
    assert {str(p): d.version.text for p, d in found.dependencies.items()} == {
        "npm:react": "18.3.1",
        "npm:@angular/core": "19.2.0",
    }


def test_pnpm_symlinked_node_modules(tmp_path: Path) -> None:
    """pnpm links node_modules/react to node_modules/.pnpm/react@18.3.1/node_modules/react."""
    store = tmp_path / "node_modules" / ".pnpm" / "react@18.3.1"
    real = node_package(store, "react", "18.3.1")
    (tmp_path / "node_modules" / "react").symlink_to(real)
    assert read_project(tmp_path).dependencies[REACT].version.text == "18.3.1"


def test_installed_beats_locked_beats_declared(tmp_path: Path) -> None:
    shutil.copytree(FIXTURES / "npm-nested", tmp_path, dirs_exist_ok=True)
    node_package(tmp_path, "react", "18.3.0")
    assert read_project(tmp_path).dependencies[REACT].how == "installed"
    assert read_project(tmp_path).dependencies[REACT].version.text == "18.3.0"
    shutil.rmtree(tmp_path / "node_modules")
    assert read_project(tmp_path).dependencies[REACT].how == "locked"
    assert read_project(tmp_path).dependencies[REACT].version.text == "18.3.1"
    (tmp_path / "package-lock.json").unlink()
    react = read_project(tmp_path).dependencies[REACT]
    assert (react.how, react.version, react.range.text) == ("declared", None, "^18.2.0")


def test_python_installed_beats_every_lockfile(tmp_path: Path) -> None:
    for folder in ("uv", "poetry", "pylock", "requirements"):
        shutil.copytree(FIXTURES / folder, tmp_path, dirs_exist_ok=True)
    dist_info(tmp_path, "Django", "5.1.4")
    project = read_project(tmp_path)
    assert project.dependencies[DJANGO].version.text == "5.1.4"
    mentions = [
        (r.source, r.version.text) for r in project.records if r.package == DJANGO and r.version
    ]
    assert [source for source, _ in mentions] == [
        ".venv/lib/python3.12/site-packages/django-5.1.4.dist-info/METADATA",
        "uv.lock",
        "poetry.lock",
        "pylock.toml",
        "requirements.txt",
    ]


def test_a_missing_project_folder_is_refused(tmp_path: Path) -> None:
    with pytest.raises(InvalidArgs, match="project folder not found"):
        read_project(tmp_path / "absent")
    (tmp_path / "file").write_text("x")
    with pytest.raises(InvalidArgs):
        read_project(tmp_path / "file")


def test_an_empty_folder_depends_on_nothing(tmp_path: Path) -> None:
    project = read_project(tmp_path)
    assert (project.records, project.dependencies, project.shipped, project.warnings) == (
        [],
        {},
        [],
        [],
    )


# The Python and Node versions ----------------------------------------------------------------


@pytest.mark.parametrize(
    ("content", "version"),
    [
        ("3.11.7\n", "3.11.7"),
        ("3.12", "3.12"),
        ("# pinned\n\n3.13t\n", "3.13"),
        ("cpython-3.12.4\n", "3.12.4"),
        ("pypy3.10\n", "3.10"),
        ("3.11\n3.12\n", "3.11"),
    ],
)
def test_python_version_file(tmp_path: Path, content: str, version: str) -> None:
    (tmp_path / ".python-version").write_text(content)
    python = read_project(tmp_path).dependencies[runtime("python")]
    assert (python.version.text, python.how, python.source) == (
        version,
        "pinned",
        ".python-version",
    )


def test_python_version_order(tmp_path: Path) -> None:
    (tmp_path / ".venv").mkdir()
    (tmp_path / ".venv" / "pyvenv.cfg").write_text(
        "home = /usr/bin\nimplementation = CPython\nversion_info = 3.12.8.final.0\n"
    )
    assert read_project(tmp_path).dependencies[runtime("python")].version.text == "3.12.8"
    (tmp_path / "pyproject.toml").write_text('[project]\nname = "x"\nrequires-python = ">=3.11"\n')
    assert read_project(tmp_path).dependencies[runtime("python")].range.text == ">=3.11"
    (tmp_path / ".python-version").write_text("system\n")  # names no version: the next one
    assert read_project(tmp_path).dependencies[runtime("python")].how == "declared"
    (tmp_path / ".python-version").write_text("3.11\n")
    assert read_project(tmp_path).dependencies[runtime("python")].version.text == "3.11"


def test_a_pipfile_declares_the_python_after_requires_python(tmp_path: Path) -> None:
    (tmp_path / "Pipfile").write_text('[packages]\n\n[requires]\npython_version = "3.11"\n')
    python = read_project(tmp_path).dependencies[runtime("python")]
    assert (python.how, python.source) == ("declared", "Pipfile")
    assert python.range.contains("3.11") and not python.range.contains("3.12")
    (tmp_path / "Pipfile").write_text('[requires]\npython_full_version = "3.12.4"\n')
    python = read_project(tmp_path).dependencies[runtime("python")]
    assert python.range.contains("3.12.4") and not python.range.contains("3.12.5")
    (tmp_path / "Pipfile").write_text('[requires]\npython_version = "latest please"\n')
    assert runtime("python") not in read_project(tmp_path).dependencies
    (tmp_path / "pyproject.toml").write_text('[project]\nname = "x"\nrequires-python = ">=3.10"\n')
    assert read_project(tmp_path).dependencies[runtime("python")].source == "pyproject.toml"


def test_node_version_order(tmp_path: Path) -> None:
    (tmp_path / "package.json").write_text('{"engines": {"node": ">=20.9.0"}}')
    node = read_project(tmp_path).dependencies[runtime("node")]
    assert (node.range.text, node.how) == (">=20.9.0", "declared")
    (tmp_path / ".node-version").write_text("22.11.0\n")
    assert read_project(tmp_path).dependencies[runtime("node")].version.text == "22.11.0"
    (tmp_path / ".nvmrc").write_text("lts/iron\n")  # an alias: the next file decides
    assert read_project(tmp_path).dependencies[runtime("node")].source == ".node-version"
    (tmp_path / ".nvmrc").write_text("v20.11.0\n")
    node = read_project(tmp_path).dependencies[runtime("node")]
    assert (node.version.text, node.source) == ("20.11.0", ".nvmrc")


# Docs shipped inside an installed package ----------------------------------------------------


def _install_next(root: Path, with_docs: bool = True, version: str | None = None) -> Path:
    """node_modules/next from the real npm package's package.json and docs."""
    archive = shared_path("corpora", "versions", "next-16.2.0-docs.tar.gz")
    folder = root / "node_modules" / "next"
    with tarfile.open(archive) as tar:
        members = [m for m in tar.getmembers() if m.isfile()]
        wanted = [m for m in members if m.name.endswith("package.json") or with_docs]
        tar.extractall(root / "unpacked", members=wanted, filter="data")
    unpacked = root / "unpacked" / "next-16.2.0"
    folder.mkdir(parents=True)
    shutil.copy(unpacked / "package.json", folder / "package.json")
    if version:
        manifest = json.loads((folder / "package.json").read_text())
        (folder / "package.json").write_text(json.dumps({**manifest, "version": version}))
    if with_docs:
        shutil.copytree(unpacked / "docs", folder / "dist" / "docs")
    return folder


def test_next_ships_its_docs(tmp_path: Path) -> None:
    folder = _install_next(tmp_path)
    (shipped,) = read_project(tmp_path).shipped
    assert str(shipped.package) == "npm:next"
    assert shipped.version.text == "16.2.0"
    assert shipped.path == folder / "dist" / "docs"
    assert shipped.source == "node_modules/next/package.json"
    assert len(list(shipped.path.rglob("*.md*"))) > 300


def test_a_next_without_docs_ships_none(tmp_path: Path) -> None:
    _install_next(tmp_path, with_docs=False, version="16.1.0")
    project = read_project(tmp_path)
    assert project.shipped == []
    assert project.dependencies[parse_package("npm:next")].version.text == "16.1.0"


def test_the_layout_table_is_declared() -> None:
    assert [(layout.package, layout.folder) for layout in SHIPPED_LAYOUTS] == [
        ("npm:next", "dist/docs")
    ]


def test_the_project_as_doctor_shows_it(tmp_path: Path) -> None:
    dist_info(tmp_path, "Django", "5.2.19")
    (tmp_path / "uv.lock").write_text("package = [")
    shown = read_project(tmp_path).to_dict()
    assert shown["project"] == str(tmp_path)
    assert shown["dependencies"] == [
        {
            "package": "pypi:django",
            "version": "5.2.19",
            "range": None,
            "source": ".venv/lib/python3.12/site-packages/django-5.2.19.dist-info/METADATA",
            "how": "installed",
        }
    ]
    assert shown["shipped"] == [] and len(shown["warnings"]) == 1
