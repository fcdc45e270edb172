"""Ranking on the real DEV retrieval sets: clearly better than plain BM25, and typo-proof.

The baseline figures are the plain rank-bm25 baseline of ../shared/corpora/README.md, which
bench.quality.eval_search reproduces exactly in the same run as Pinax's.
"""

from __future__ import annotations

import json

import pytest

from pinax.library import Library
from tests.conftest import shared_path

# corpus: (baseline R@10, baseline MRR@10), from the README's table
BASELINE = {
    "react": (0.486, 0.325),
    "kubernetes": (0.576, 0.423),
    "mdn": (0.483, 0.356),
    "django": (0.500, 0.348),
}


def rows(name: str, typo: bool = False) -> list[dict]:
    path = shared_path("corpora", "eval", f"{name}.dev{'.typo' if typo else ''}.jsonl")
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def metrics(library: Library, queries: list[dict]) -> tuple[float, float]:
    """(recall@10, MRR@10): a query is found at rank r if any expected URL is at rank r."""
    found = reciprocal = 0.0
    for row in queries:
        urls = [hit.url for hit in library.search(row["query"], 10).hits]
        rank = next((i + 1 for i, url in enumerate(urls) if url in row["expected"]), None)
        if rank:
            found += 1
            reciprocal += 1 / rank
    return found / len(queries), reciprocal / len(queries)


@pytest.mark.parametrize("name", sorted(BASELINE))
def test_dev_bars(name: str) -> None:
    library = Library.load([shared_path("corpora", "manifests", f"{name}.json")])
    recall, mrr = metrics(library, rows(name))
    base_recall, base_mrr = BASELINE[name]
    assert recall >= base_recall + 0.10, (name, recall)
    assert mrr >= base_mrr + 0.08, (name, mrr)
    typo_recall, _ = metrics(library, rows(name, typo=True))
    assert typo_recall >= 0.9 * recall, (name, typo_recall, recall)
