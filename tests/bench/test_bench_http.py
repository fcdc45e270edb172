"""The HTTP bench's split of a call's CPU: the layer row memoizes each search by its
arguments (one real search per distinct call), and the split line's arithmetic."""

from __future__ import annotations

from typing import Any

from bench.speed.http import memoize, split_line


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
