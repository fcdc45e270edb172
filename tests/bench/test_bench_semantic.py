"""The search-by-meaning benchmarks' own arithmetic: the best-share ceiling bounds what the
blend finds, and the embedding variants' `plain` scores pages as the shipped index does (so
what they measure beside it is a change of vectors, not of bookkeeping)."""

from __future__ import annotations

import numpy as np
import pytest

from bench.experiments.embedding_variants import Corpus, Embedder, page_scores, rank, space
from bench.experiments.tune_semantic import best_share
from bench.harness.scoring import recall_mrr
from pinax.library import Library
from pinax.search.semantic import query_vector
from pinax.tools import EMBEDDING_WEIGHT, LEXICAL_WEIGHT
from tests.conftest import shared_path
from tests.search.test_search_semantic import example

OUTLINES = {
    "Caching framework": ["Setting up the cache", "Cache versioning"],
    "Logging": ["Configuring logging", "Sending log records by email"],
    "Sending email": ["Quick example", "Preventing header injection"],
}


def url(title: str) -> str:
    return f"https://docs.example.com/{title.lower().replace(' ', '-')}"


def test_the_best_share_ceiling_bounds_words_alone_and_the_blend() -> None:
    library = Library([example(OUTLINES)])
    found = [
        {"query": "email", "expected": [url("Logging")]},
        {"query": "cache versions", "expected": [url("Caching framework")]},
    ]
    ceiling = best_share(library, "example", found, 30)
    words = recall_mrr(library, "example", found, (1.0, 0.0))[0]
    blend = recall_mrr(library, "example", found, (LEXICAL_WEIGHT, EMBEDDING_WEIGHT))[0]
    assert ceiling >= max(words, blend) and ceiling == 1.0
    # It bounds re-ranks of what words found: a query they find nothing for is rescued by
    # the titles closest in meaning, which no weighting of candidates stands for.
    rescued = [{"query": "login password", "expected": [url("Authentication")]}]
    assert recall_mrr(library, "example", rescued, (LEXICAL_WEIGHT, EMBEDDING_WEIGHT))[0] == 1.0
    assert best_share(library, "example", found + rescued, 30) == pytest.approx(2 / 3)


def test_on_a_dev_set_the_ceiling_is_above_words_alone_and_the_blend() -> None:
    shared_path("corpora", "outlines")
    from bench.harness.corpora import outlined_manifest, rows

    library = Library([outlined_manifest("react")])
    queries = rows("react")
    ceiling = best_share(library, "react", queries, 30)
    words = recall_mrr(library, "react", queries, (1.0, 0.0))[0]
    blend = recall_mrr(library, "react", queries, (LEXICAL_WEIGHT, EMBEDDING_WEIGHT))[0]
    assert ceiling > words and ceiling >= blend
    assert best_share(library, "react", queries, 100) >= ceiling  # a wider pool holds more


def test_the_plain_variant_scores_pages_as_the_index_does() -> None:
    manifest = example(OUTLINES)
    docs = Library([manifest]).get("example")
    vectors = docs.index.vectors
    assert vectors is not None
    corpus = Corpus("example", manifest, [], [])
    embedder = Embedder()
    plain, context = (space(corpus, embedder, v) for v in ("plain", "context"))
    pages = list(range(len(manifest.pages)))
    for query in ("cache versions", "send an email", "logging"):
        shipped = np.asarray(vectors.score(query_vector(query), pages)[0])
        cosines, offsets = plain.cosines(plain.query(query), pages)
        ours = np.clip(page_scores("plain", cosines, offsets), 0, 1)
        assert ours == pytest.approx(shipped, abs=0.02)  # the index keeps int8 codes
        # A heading read with its title is another vector; a title alone is the same one.
        titles = context.cosines(context.query(query), pages)
        assert titles[0][titles[1]] == pytest.approx(cosines[offsets], abs=1e-5)
        assert not np.allclose(titles[0], cosines)


def test_page_scores_and_ranks() -> None:
    cosines, offsets = np.array([0.2, 0.5, 0.4, 0.3]), np.array([0, 3])  # 3 texts, then 1
    assert page_scores("plain", cosines, offsets).tolist() == [0.5, 0.3]
    soft = page_scores("softmax", cosines, offsets)
    assert 0.5 < soft[0] < 0.5 + 0.05 * np.log(3) and soft[1] == pytest.approx(0.3)
    penalised = page_scores("penalty", cosines, offsets)
    assert penalised == pytest.approx([0.5 - 0.02 * np.log(3), 0.3])
    # Scores equal to 4 places keep the lexical order; a page below the 10th is a miss.
    assert rank([7, 8, 9], np.array([0.50001, 0.5, 0.6]), {7}) == 2
    docs = list(range(12))
    assert rank(docs, np.linspace(1, 0, 12), {10}) is None
    assert rank(docs, np.linspace(1, 0, 12), {9}) == 10
