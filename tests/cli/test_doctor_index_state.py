"""Issue 38 item 13: `pinax doctor` says a manifest's search index is fresh when loading would
find it: indexes are keyed by content, so an unchanged manifest given by another path (a
relative one, a copy, a file touched or checked out again) is not "stale"."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest
from typer.testing import CliRunner

from pinax.cli import app
from tests.support.serving import ROOT

runner = CliRunner()


def index_state(cache: Path, docs: str) -> str:
    result = runner.invoke(
        app, ["doctor", "--json", "--offline", "--cache-dir", str(cache), "-d", docs]
    )
    (entry,) = json.loads(result.stdout)["docs"]
    return entry["index"]


@pytest.fixture
def indexed(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[Path, Path]:
    """A copy of the shipped stripe manifest, indexed once by `pinax search`."""
    folder = tmp_path / "project" / "manifests"
    folder.mkdir(parents=True)
    manifest = folder / "stripe.json"
    shutil.copy(ROOT / "manifests" / "stripe.json", manifest)
    cache = tmp_path / "cache"
    monkeypatch.chdir(tmp_path / "project")
    searched = runner.invoke(
        app, ["search", "--cache-dir", str(cache), "-d", "manifests/stripe.json", "refund"]
    )
    assert searched.exit_code == 0, searched.output
    return manifest, cache


def test_another_relative_path_is_fresh(indexed, monkeypatch: pytest.MonkeyPatch) -> None:
    manifest, cache = indexed
    assert index_state(cache, "manifests/stripe.json") == "fresh"
    assert index_state(cache, "./manifests/../manifests/stripe.json") == "fresh"
    monkeypatch.chdir(manifest.parent)
    assert index_state(cache, "stripe.json") == "fresh"


def test_a_touched_or_copied_unchanged_manifest_is_fresh(indexed, tmp_path: Path) -> None:
    manifest, cache = indexed
    later = manifest.stat().st_mtime_ns + 5_000_000_000
    os.utime(manifest, ns=(later, later))  # touched, or checked out again: same bytes
    assert index_state(cache, str(manifest)) == "fresh"
    copy = tmp_path / "elsewhere.json"
    shutil.copy(manifest, copy)
    assert index_state(cache, str(copy)) == "fresh"


def test_a_changed_manifest_is_stale(indexed) -> None:
    manifest, cache = indexed
    data = json.loads(manifest.read_text())
    data["pages"] = data["pages"][:-1]
    manifest.write_text(json.dumps(data))
    assert index_state(cache, str(manifest)) == "stale"
