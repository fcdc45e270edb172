"""A build labels its manifest with the version the source states (and says where), or the
one given; a folder build is named after the package it documents."""

from __future__ import annotations

import json
import zlib
from pathlib import Path

import pytest

from pinax.builder import labelled, stated_by_folder, stated_by_inventory, stated_by_url
from pinax.errors import InvalidArgs
from pinax.manifest import Manifest
from tests.support.serving import run_pinax


def _docs_folder(root: Path, conf: str | None = None) -> Path:
    docs = root / "docs"
    docs.mkdir(parents=True)
    (docs / "index.md").write_text("# Home\n\nWelcome.\n")
    if conf is not None:
        (docs / "conf.py").write_text(conf)
    return docs


def test_a_sphinx_conf_states_name_and_version_without_being_run(tmp_path: Path) -> None:
    marker = tmp_path / "ran"
    docs = _docs_folder(
        tmp_path,
        f'import os\nos.system("touch {marker}")\nproject = "Django"\nversion = "5.2"\n'
        "release = compute()\n",
    )
    stated = stated_by_folder(docs)
    assert stated is not None and (stated.name, stated.version) == ("Django", "5.2")
    assert str(docs / "conf.py") in stated.where
    assert not marker.exists()


def test_package_json_and_pyproject_beside_the_docs_folder(tmp_path: Path) -> None:
    docs = _docs_folder(tmp_path / "a")
    (tmp_path / "a" / "package.json").write_text(json.dumps({"name": "next", "version": "16.2.0"}))
    assert (stated_by_folder(docs).name, stated_by_folder(docs).version) == ("next", "16.2.0")
    docs = _docs_folder(tmp_path / "b")
    (tmp_path / "b" / "pyproject.toml").write_text('[project]\nname = "attrs"\nversion = "25.1"\n')
    found = stated_by_folder(docs)
    assert (found.name, found.version) == ("attrs", "25.1") and "[project]" in found.where
    broken = _docs_folder(tmp_path / "c", conf="version = (")  # a syntax error states nothing
    (tmp_path / "c" / "package.json").write_text("{not json")
    assert stated_by_folder(broken) is None


def test_an_inventory_header_states_project_and_version(tmp_path: Path) -> None:
    path = tmp_path / "objects.inv"
    path.write_bytes(
        b"# Sphinx inventory version 2\n# Project: Python\n# Version: 3.11\n"
        b"# The remainder of this file is compressed using zlib.\n" + zlib.compress(b"")
    )
    found = stated_by_inventory(path)
    assert (found.name, found.version) == ("Python", "3.11")


@pytest.mark.parametrize(
    ("url", "version"),
    [
        ("https://docs.djangoproject.com/en/5.2/", "5.2"),
        ("https://docs.python.org/3.11/library/", "3.11"),
        ("https://requests.readthedocs.io/en/stable/", "stable"),
        ("https://flask.palletsprojects.com/en/3.0.x/", None),
        ("https://react.dev/reference/", None),
        ("https://example.com/2024/post/", None),
    ],
)
def test_a_versioned_url(url: str, version: str | None) -> None:
    found = stated_by_url(url)
    assert (found.version if found else None) == version


def test_given_beats_stated_and_bad_values_are_refused() -> None:
    manifest = Manifest(name="docs", url="https://x.example/", title="x", pages=())
    stated = stated_by_url("https://docs.djangoproject.com/en/5.2/")
    made, note = labelled(manifest, stated, "4.2", ["pypi:django"])
    assert (made.version, made.packages, note) == ("4.2", ("pypi:django",), None)
    made, note = labelled(manifest, stated)
    assert made.version == "5.2" and "the URL" in note
    with pytest.raises(InvalidArgs, match="not a version"):
        labelled(manifest, None, "5 2")
    with pytest.raises(InvalidArgs, match="ecosystem:name"):
        labelled(manifest, None, "5.2", ["django"])


def test_pinax_build_writes_version_and_packages(tmp_path: Path) -> None:
    docs = _docs_folder(tmp_path / "django-5.2.19", 'project = "Django"\nversion = "5.2"\n')
    out = tmp_path / "out.json"
    done = run_pinax("build", str(docs), "--url", "https://docs.example.com/", "-o", str(out))
    assert done.returncode == 0, done.stderr
    data = json.loads(out.read_text())
    assert (data["name"], data["version"]) == ("django", "5.2")
    assert "version 5.2 from" in done.stderr + done.stdout
    given = tmp_path / "given.json"
    args = ["--name", "dj", "--version", "5.2.19", "--package", "pypi:django", "-o", str(given)]
    done = run_pinax("build", str(docs), "--url", "https://docs.example.com/", *args)
    assert done.returncode == 0, done.stderr
    data = json.loads(given.read_text())
    assert (data["name"], data["version"], data["packages"]) == ("dj", "5.2.19", ["pypi:django"])
