"""The manifests the project ships are exactly what `pinax build` makes of the published files."""

from __future__ import annotations

import shlex
import subprocess
import sys
from pathlib import Path

import pytest

from pinax import manifest
from tests.conftest import shared_path

ROOT = Path(__file__).resolve().parents[2]
SHIPPED = ROOT / "manifests"


def recipes() -> list[tuple[str, list[str]]]:
    """(file, build arguments) from the table in manifests/README.md."""
    rows = []
    for line in (SHIPPED / "README.md").read_text().splitlines():
        if line.startswith("| `") and "pinax build" in line:
            name = line.split("`")[1]
            command = line.split("`pinax build ", 1)[1].rsplit("`", 1)[0]
            rows.append((name, shlex.split(command)))
    return rows


def test_every_shipped_manifest_has_a_recipe() -> None:
    assert sorted(name for name, _ in recipes()) == sorted(p.name for p in SHIPPED.glob("*.json"))


@pytest.mark.parametrize(("name", "args"), recipes(), ids=[name for name, _ in recipes()])
def test_shipped_manifest_is_what_the_build_makes(name: str, args: list[str]) -> None:
    # Published files are named as in the shared corpus, the page source first.
    args = [
        str(shared_path("corpora", *arg.split("/"))) if arg.startswith("published/") else arg
        for arg in args
    ]
    done = subprocess.run(
        [sys.executable, "-m", "pinax", "build", *args],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=ROOT,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout == (SHIPPED / name).read_text()
    assert manifest.loads(done.stdout).pages
