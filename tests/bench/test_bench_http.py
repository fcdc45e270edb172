"""The HTTP bench: the layer row memoizes each search by its arguments (one real search per
distinct call), the split line's arithmetic, and the main row runs main's code."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path
from typing import Any

from bench.speed.http import cli_server, memoize, split_line


def test_the_layer_row_searches_once_per_distinct_arguments() -> None:
    calls: list[dict[str, Any]] = []

    def search(**arguments: Any) -> dict[str, Any]:
        calls.append(arguments)
        return {"query": arguments["query"], "results": [len(calls)]}

    memoized = memoize(search)
    first = memoized(docs="drf", query="serializers", limit=5)
    assert memoized(limit=5, query="serializers", docs="drf") is first  # order does not matter
    other = memoized(docs="drf", query="routers", limit=5)
    assert memoized(docs="drf", query="serializers", limit=10) != first  # a new limit searches
    assert [c["query"] for c in calls] == ["serializers", "routers", "serializers"]
    assert other == {"query": "routers", "results": [2]}


def test_the_split_line_gives_microseconds_a_call() -> None:
    # 1,000 calls a CPU second is 1,000 us a call: the floor 500 us, the layer 400 us,
    # so the search is what memoizing it saved: 1,000 - 400 = 600 us.
    line = split_line("2026-07-28", ours=1000.0, layer=2500.0, floor=2000.0)
    assert "floor 500 us" in line
    assert "layer 400 us (1.25x the floor's calls)" in line
    assert "the search 600 us" in line
    assert "not measured" in split_line("2026-07-28", ours=0.0, layer=2500.0, floor=2000.0)


def test_main_runs_its_own_code_not_this_checkout(tmp_path: Path) -> None:
    # `python -m pinax` from this checkout imported this checkout's pinax whatever PYTHONPATH
    # said: the "main" row measured this branch against itself.
    (tmp_path / "pinax").mkdir()
    (tmp_path / "pinax" / "__init__.py").write_text("")
    (tmp_path / "pinax" / "__main__.py").write_text("import pinax; print('from', pinax.__file__)")
    target = cli_server("main", tmp_path)
    ran = subprocess.run(
        target.argv,
        env={**os.environ, **target.env},
        cwd=target.cwd,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert ran.stdout.strip() == f"from {tmp_path / 'pinax' / '__init__.py'}", ran.stderr
