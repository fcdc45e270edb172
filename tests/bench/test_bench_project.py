"""The project-reading bench's generated project: what it holds is what read_project finds."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

from bench.speed.project import make_project
from pinax.project import read_project


def test_the_benchs_generated_project_reads_whole(tmp_path: Path) -> None:
    make_project(tmp_path, locked=30, installed=50)
    project = read_project(tmp_path)
    assert project.warnings == []
    found = Counter((d.ecosystem, d.how) for d in project.dependencies.values())
    assert found == {
        ("pypi", "locked"): 30,  # uv.lock
        ("pypi", "declared"): 10,  # declared in pyproject.toml beyond the 30 locked
        ("npm", "installed"): 50,  # node_modules, every tenth scoped
        ("npm", "locked"): 3,  # locked by their unscoped names, installed scoped
        ("npm", "declared"): 1,
        ("runtime", "declared"): 1,  # requires-python
    }
