"""`pinax doctor --project` and `pinax search --project` on versioned manifests: what the
project uses, which docs answer for it, and the scope a search without --in covers."""

from __future__ import annotations

import json
from pathlib import Path

from pinax import manifest as manifest_io
from pinax.manifest import Manifest, Page
from tests.support.serving import run_pinax


def _write(folder: Path, version: str) -> Path:
    base = f"https://docs.example.com/en/{version}"
    titles = ["Generated field", "Models"] if version == "5.2" else ["Index together", "Models"]
    pages = tuple(
        Page(url=f"{base}/ref/{t.lower().replace(' ', '-')}/", title=t, section="/ref")
        for t in titles
    )
    made = Manifest(name="django", url=base + "/", title="Django", pages=pages, version=version)
    path = folder / f"django-{version}.json"
    path.write_text(manifest_io.dump(made))
    return path


def test_doctor_and_search_with_a_project(tmp_path: Path) -> None:
    docs = [arg for v in ("4.2", "5.2") for arg in ("--docs", str(_write(tmp_path, v)))]
    project = tmp_path / "app"
    project.mkdir()
    (project / "requirements.txt").write_text("Django==4.2.11\nrequests==2.32.3\n")
    cache = ["--cache-dir", str(tmp_path / "cache")]
    doctor = run_pinax("doctor", *docs, *cache, "--offline", "--project", str(project))
    assert "django@4.2:" in doctor.stdout and "django@5.2:" in doctor.stdout
    assert "pypi:django 4.2.11 (requirements.txt" in doctor.stdout
    assert "-> django@4.2" in doctor.stdout
    assert "no docs loaded for 1: pypi:requests" in doctor.stdout
    found = run_pinax("search", *docs, *cache, "--project", str(project), "--json", "models")
    answer = json.loads(found.stdout)
    assert answer["scope"]["project"] == ["django@4.2"]
    assert {r["version"] for r in answer["results"]} == {"4.2"}
    missing = run_pinax("search", *docs, *cache, "--project", str(tmp_path / "nope"), "models")
    assert missing.returncode == 2 and "not a folder" in missing.stderr


def test_docs_a_package_ships_are_served_at_its_installed_version(tmp_path: Path) -> None:
    """The real Next.js 16.2.0 package docs in node_modules: no --docs, `next@16.2.0`."""
    import shutil
    import tarfile

    from tests.conftest import shared_path

    archive = shared_path("corpora", "versions", "next-16.2.0-docs.tar.gz")
    with tarfile.open(archive) as tar:
        tar.extractall(tmp_path / "src", filter="data")
    installed = tmp_path / "app" / "node_modules" / "next"
    (installed / "dist").mkdir(parents=True)
    shutil.copy(tmp_path / "src" / "next-16.2.0" / "package.json", installed / "package.json")
    shutil.copytree(tmp_path / "src" / "next-16.2.0" / "docs", installed / "dist" / "docs")
    (tmp_path / "app" / "package.json").write_text('{"dependencies": {"next": "^16.0.0"}}')
    cache = ["--cache-dir", str(tmp_path / "cache")]
    found = run_pinax(
        "search", "--project", str(tmp_path / "app"), *cache, "--json", "installation"
    )
    assert found.returncode == 0, found.stderr
    answer = json.loads(found.stdout)
    assert answer["scope"]["project"] == ["next@16.2.0"]
    assert answer["results"] and {r["version"] for r in answer["results"]} == {"16.2.0"}
    assert "installation" in answer["results"][0]["url"]
    none = run_pinax("search", *cache, "installation")
    assert none.returncode == 2 and "--docs" in none.stderr
