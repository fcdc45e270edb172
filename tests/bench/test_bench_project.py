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


def test_a_quota_keeps_each_librarys_best_places_and_orders_by_score() -> None:
    from bench.quality.project_scope import quota_top

    def hit(docs: str, n: int, score: float) -> dict[str, object]:
        return {"docs": docs, "url": f"{docs}/{n}", "score": score}

    results = [hit("django", n, 1.0 - n / 100) for n in range(12)] + [hit("drf", 0, 0.5)]
    assert "drf/0" not in quota_top(results, 0)  # by score alone, django fills the ten
    kept = quota_top(results, 1)
    assert len(kept) == 10 and kept[-1] == "drf/0"  # kept, and placed by its score
    assert kept[:9] == [f"django/{n}" for n in range(9)]
