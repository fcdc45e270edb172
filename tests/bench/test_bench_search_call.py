"""The per-call search bench: each tree runs its own code in its own process."""

from __future__ import annotations

import argparse
from pathlib import Path

import pytest

from bench.speed.search_call import ROOT, per_call


def test_each_round_gives_the_cpu_of_a_call_in_the_tree_asked(tmp_path: Path) -> None:
    args = argparse.Namespace(rounds=2, loops=1)
    manifest = ROOT / "manifests" / "drf.json"
    times = per_call(ROOT, manifest, "drf", ["serializers", "routers"], args)
    assert len(times) == 2 and all(0 < t < 1e6 for t in times)
    broken = tmp_path / "tree"
    (broken / "pinax").mkdir(parents=True)
    (broken / "pinax" / "__init__.py").write_text("raise ImportError('not this tree')\n")
    with pytest.raises(SystemExit, match="not this tree"):
        per_call(broken, manifest, "drf", ["serializers"], args)
