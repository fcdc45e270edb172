"""The postings index scores BM25 Okapi exactly as rank-bm25 does, on the real manifests."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from rank_bm25 import BM25Okapi

from bench.harness.bm25 import OkapiIndex, page_tokens, plain_tokens
from tests.conftest import shared_path

QUERIES = [
    "use a ref to manipulate the dom",
    "configure a security context for a pod or container",
    "model field reference",
    "the the the",  # a word in most documents: rank-bm25's IDF floor
    "array prototype map",
    "api api reference",  # repeated words count twice
    "zzzz unknownword",
    "",
]


def corpus(path: Path) -> list[list[str]]:
    pages = json.loads(path.read_text())["pages"]
    return [page_tokens(p["url"], p["title"], p["section"]) for p in pages]


@pytest.mark.parametrize(
    "name", ["react", "fastapi", "kubernetes", "mdn", "django", "drf", "adk", "textual"]
)
def test_scores_equal_rank_bm25_on_real_manifests(name: str) -> None:
    documents = corpus(shared_path("corpora", "manifests", f"{name}.json"))
    expected = BM25Okapi(documents)
    ours = OkapiIndex(documents)
    words = sorted({w for doc in documents[:50] for w in doc})[:20]
    for query in [*QUERIES, " ".join(words)]:
        tokens = plain_tokens(query)
        assert np.allclose(
            ours.get_scores(tokens), expected.get_scores(tokens), rtol=1e-12, atol=1e-12
        )


def test_idf_floor_and_parameters() -> None:
    documents = [["a", "b"], ["a", "c"], ["a"], ["d", "d", "d"]]
    for k1, b, epsilon in ((1.5, 0.75, 0.25), (1.2, 0.5, 0.1), (2.0, 1.0, 0.5)):
        expected = BM25Okapi(documents, k1=k1, b=b, epsilon=epsilon)
        ours = OkapiIndex(documents, k1=k1, b=b, epsilon=epsilon)
        for query in (["a"], ["d"], ["a", "d", "a"], ["x"]):
            assert np.allclose(ours.get_scores(query), expected.get_scores(query), rtol=1e-12)
    assert OkapiIndex(documents).idf[0] > 0  # "a" is in 3 of 4 documents: floored, not negative
