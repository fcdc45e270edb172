"""The shortcuts of `SearchIndex.top` (floors, pruning, the threshold algorithm) find the same
best scores as adding up every posting of every page, on real queries over a real manifest."""

from __future__ import annotations

import json

import numpy as np
import pytest

from pinax.library import Library
from pinax.search import index as index_module
from pinax.search import topk
from tests.conftest import shared_path

K = 20


@pytest.fixture(scope="module")
def mdn() -> tuple[index_module.SearchIndex, list[index_module.Plan]]:
    library = Library.load([shared_path("corpora", "manifests", "mdn.json")])
    index = library.all()[0].index
    lines = shared_path("corpora", "eval", "mdn.dev.typo.jsonl").read_text().splitlines()
    queries = [json.loads(line)["query"] for line in lines if line.strip()]
    plans = [index.plan(q) for q in queries[:600]]
    return index, [p for p in plans if p.terms]


def best_scores(index: index_module.SearchIndex, terms: list[index_module.Term]) -> np.ndarray:
    """The k best raw scores, every page scored."""
    scores = np.zeros(index.size)
    for t in terms:
        docs, values = index.postings(t.term)
        scores[docs] += values.astype(np.float64) * t.weight
    return np.sort(scores[scores > 0])[::-1][:K]


SHIPPED = topk.DENSE_PASSES


@pytest.mark.parametrize(
    ("short_max", "dense_lookup", "dense_passes"),
    [
        (topk.SHORT_MAX, topk.DENSE_LOOKUP, SHIPPED),  # shipped
        (50, topk.DENSE_LOOKUP, SHIPPED),  # terms on 50+ pages pruned
        (50, topk.DENSE_LOOKUP, 10**9),  # the threshold algorithm to the end
        (50, topk.DENSE_LOOKUP, 0),  # MaxScore from the short terms' bar
        (0, topk.DENSE_LOOKUP, SHIPPED),  # every term pruned
        (0, topk.DENSE_LOOKUP, 0),  # MaxScore from no bar at all
        (50, 0, SHIPPED),  # lookups always by binary search
        (50, 10**9, SHIPPED),  # lookups always through a page-sized array
    ],
)
def test_top_finds_the_best_scores(
    mdn: tuple[index_module.SearchIndex, list[index_module.Plan]],
    monkeypatch: pytest.MonkeyPatch,
    short_max: int,
    dense_lookup: int,
    dense_passes: int,
) -> None:
    index, plans = mdn
    monkeypatch.setattr(topk, "SHORT_MAX", short_max)
    monkeypatch.setattr(topk, "DENSE_LOOKUP", dense_lookup)
    monkeypatch.setattr(topk, "DENSE_PASSES", dense_passes)
    for plan in plans:
        docs, raw = index.top(plan.terms, K)
        assert len(set(docs)) == len(docs), plan
        assert raw == sorted(raw, reverse=True), plan  # best first
        found = np.array(raw, dtype=np.float64)
        expected = best_scores(index, plan.terms)
        np.testing.assert_allclose(found, expected, rtol=1e-5, err_msg=str(plan.terms))


@pytest.mark.parametrize("length", [0, 1, 7, topk.SORT_MAX, topk.SORT_MAX + 1, 50_000])
def test_distinct_pages_by_sorting_and_by_places(length: int) -> None:
    """Both ways `Scratch.distinct` finds distinct pages (a sort for few, places written and
    read back for many) give each page once, whatever the duplicates."""
    work = topk.Scratch(10_000)
    rng = np.random.default_rng(length)
    for high in (10, 10_000):  # many repeats, few repeats
        pages = rng.integers(0, high, length).astype(np.int32)
        found = work.distinct(pages)
        assert len(found) == len(set(found.tolist()))
        assert np.array_equal(np.sort(found), np.unique(pages))
