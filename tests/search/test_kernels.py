"""The compiled loops (pinax/search/kernels.pyx): the installed build is this source's, a top-k
is exact, best first with ties in page order, and a tampered index file costs an IndexError,
never a read out of bounds or a dirty work array."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from pinax.search import kernels, vocabulary
from pinax.search.topk import Scratch


def test_the_installed_build_is_not_older_than_its_source() -> None:
    source = Path(kernels.__file__).with_name("kernels.pyx")
    if not source.exists():
        pytest.skip("installed from a wheel: no source beside the build")
    assert Path(kernels.__file__).stat().st_mtime >= source.stat().st_mtime, (
        "pinax/search/kernels.pyx changed since it was compiled: run `pip install -e .` again"
    )


def postings(lists: list[list[tuple[int, float]]], pages: int) -> dict[str, np.ndarray]:
    """The arrays `Kernels` reads, for terms given as (page, weight) lists in page order;
    no headings, no symbols."""
    start = np.zeros(len(lists) + 1, dtype=np.int64)
    np.cumsum([len(found) for found in lists], out=start[1:])
    flat = [entry for found in lists for entry in found]
    return {
        "post_start": start,
        "post_doc": np.array([page for page, _ in flat], dtype=np.int32),
        "post_weight": np.array([weight for _, weight in flat], dtype=np.float32),
        "term_max": np.array(
            [max((w for _, w in found), default=0.0) for found in lists], dtype=np.float32
        ),
        "outline_start": np.zeros(pages + 1, dtype=np.uint32),
        "heading_title_id": np.zeros(0, dtype=np.int32),
        "term_text_start": np.zeros(len(lists) + 1, dtype=np.uint32),
        "term_text": np.zeros(0, dtype=np.int32),
        "title_term_start": np.zeros(pages + 1, dtype=np.uint32),
        "title_term": np.zeros(0, dtype=np.int32),
        "symbol_start": np.zeros(pages + 1, dtype=np.uint32),
        "term_symbol_start": np.zeros(len(lists) + 1, dtype=np.uint32),
        "term_symbol": np.zeros(0, dtype=np.int32),
        "term_symbol_part": np.zeros(0, dtype=bool),
        "symbol_size": np.zeros(0, dtype=np.uint16),
    }


def top(arrays: dict[str, np.ndarray], weights: dict[int, float], k: int, pages: int):  # type: ignore[no-untyped-def]
    work = Scratch(pages)
    found = kernels.Kernels(arrays).top(weights, k, work.scores, work.marks, work.touched)
    assert not work.scores.any() and not work.seen.any()  # left as they came
    return found


def test_top_is_exact_and_best_first_with_ties_in_page_order() -> None:
    rng = np.random.default_rng(5)
    pages = 300
    lists = []
    for _ in range(6):
        chosen = np.sort(rng.choice(pages, size=rng.integers(1, pages), replace=False))
        # Few distinct weights: many equal sums, so the order of ties is tested too.
        lists.append([(int(p), float(rng.integers(1, 4))) for p in chosen])
    arrays = postings(lists, pages)
    for k in (1, 5, 20, 1000):
        weights = {0: 1.0, 2: 0.5, 5: 2.0}
        docs, scores = top(arrays, weights, k, pages)
        every = np.zeros(pages, dtype=np.float32)
        for term, weight in weights.items():
            for page, value in lists[term]:
                every[page] += np.float32(value) * np.float32(weight)
        expected = sorted((-float(every[p]), p) for p in range(pages) if every[p] > 0)[:k]
        assert [(-score, doc) for doc, score in zip(docs, scores, strict=True)] == expected


def expected_top(
    lists: list[list[tuple[int, float]]], weights: dict[int, float], k: int, pages: int
) -> list[tuple[float, int]]:
    every = np.zeros(pages, dtype=np.float64)
    for term, weight in weights.items():
        for page, value in lists[term]:
            every[page] += value * weight
    return sorted((-float(every[p]), p) for p in range(pages) if every[p] > 0)[:k]


def test_top_looks_common_terms_up_only_for_pages_that_can_still_win() -> None:
    """A few rare, strong terms and many common, weak ones (a long query's ordinary words):
    once the weak terms cannot lift an unreached page into the k best, they are only looked
    up for the pages that can; the result is the same as adding everything up. Weights are
    small multiples of powers of two, so every sum is exact in float32 in any order."""
    rng = np.random.default_rng(11)
    pages = 5000
    lists = []
    for size, strength in [(12, 64.0), (30, 32.0), (8, 64.0)] + [(4000, 1.0)] * 6:
        chosen = np.sort(rng.choice(pages, size=size, replace=False))
        lists.append([(int(p), strength * float(rng.integers(1, 4))) for p in chosen])
    arrays = postings(lists, pages)
    for k in (1, 3, 10, 40):
        for weights in ({t: 1.0 for t in range(9)}, {8: 0.5, 3: 0.25, 0: 2.0, 4: 0.25, 1: 1.0}):
            docs, scores = top(arrays, weights, k, pages)
            found = [(-score, doc) for doc, score in zip(docs, scores, strict=True)]
            assert found == expected_top(lists, weights, k, pages)


def test_top_of_nothing_is_empty() -> None:
    docs, scores = top(postings([[], [(3, 1.0)]], 10), {0: 1.0}, 5, 10)
    assert len(docs) == len(scores) == 0


@pytest.mark.parametrize(
    "lists, weights",
    [
        ([[(1, 1.0), (99, 1.0)]], {0: 1.0}),  # a page past the index's pages
        ([[(1, 1.0), (-7, 1.0)]], {0: 1.0}),  # a negative page
        ([[(1, 1.0)]], {5: 1.0}),  # a term the index does not have
        ([[(1, 1.0)]], {-1: 1.0}),
    ],
)
def test_a_tampered_index_is_an_index_error_and_leaves_the_work_arrays_clean(
    lists: list[list[tuple[int, float]]], weights: dict[int, float]
) -> None:
    pages = 10
    work = Scratch(pages)
    kernel = kernels.Kernels(postings(lists, pages))
    with pytest.raises(IndexError):
        kernel.top(weights, 5, work.scores, work.marks, work.touched)
    assert not work.scores.any() and not work.seen.any()


def test_offsets_past_the_postings_are_refused() -> None:
    arrays = postings([[(1, 1.0)]], 10)
    arrays["post_start"] = np.array([0, 50], dtype=np.int64)  # one posting stored, 50 claimed
    work = Scratch(10)
    with pytest.raises(IndexError):
        kernels.Kernels(arrays).top({0: 1.0}, 5, work.scores, work.marks, work.touched)
    assert not work.scores.any() and not work.seen.any()


def test_arrays_of_another_type_are_refused_when_the_loops_are_made() -> None:
    arrays = postings([[(1, 1.0)]], 10)
    arrays["post_weight"] = arrays["post_weight"].astype(np.float64)
    with pytest.raises(ValueError):
        kernels.Kernels(arrays)


def test_spread_adds_a_term_as_numpy_add_at_does_and_refuses_a_bad_page_unchanged() -> None:
    rng = np.random.default_rng(11)
    pages = np.sort(rng.choice(1000, 300, replace=False)).astype(np.int32)
    values = rng.random(300, dtype=np.float32)
    scores = rng.random(1000, dtype=np.float32)
    expected = scores.copy()
    np.add.at(expected, pages, values * np.float32(0.7))
    kernels.spread(pages, values, 0.7, scores)
    assert np.array_equal(scores, expected)  # the same float32 arithmetic, bit for bit
    before = scores.copy()
    with pytest.raises(IndexError):
        kernels.spread(np.array([3, 1000], dtype=np.int32), values[:2], 1.0, scores)
    assert np.array_equal(scores, before)  # checked first: nothing added


@pytest.mark.parametrize("order", ["ascending", "any"])
def test_look_up_gives_what_binary_search_gives_for_pages_in_any_order(order: str) -> None:
    rng = np.random.default_rng(12)
    pages = np.sort(rng.choice(100_000, 5_000, replace=False)).astype(np.int32)
    values = rng.random(5_000, dtype=np.float32)
    docs = rng.integers(-5, 100_005, 2_000).astype(np.int32)  # found, missing, out of range
    docs = np.sort(docs) if order == "ascending" else docs
    at = np.minimum(np.searchsorted(pages, docs), len(pages) - 1)
    expected = np.where(pages[at] == docs, values[at], 0) * np.float32(1.5)
    total = np.zeros(len(docs), dtype=np.float32)
    kernels.look_up(pages, values, 1.5, docs, total)
    assert np.array_equal(total, expected)
    with pytest.raises(ValueError):
        kernels.look_up(pages, values[:-1], 1.0, docs, total)


def test_the_words_filed_near_a_word_are_those_its_deletions_are_filed_under() -> None:
    """The compiled deletions and their CRC-32s are the index's own (`vocabulary.deletions`
    and `zlib.crc32`), one and two characters away, for ASCII and other letters alike."""
    rng = np.random.default_rng(9)
    words = ("templates", "a", "ab", "serializr", "überprüfen", "naïve", "日本語文字", "x" * 40)
    for word in words:
        variants = sorted(vocabulary.deletions(word, 2))
        ones = {word, *vocabulary._one_away(word)}
        keys = np.array(vocabulary._filing_keys(variants), dtype=np.uint32)
        order = np.argsort(keys, kind="stable")
        keys, owners = keys[order], np.arange(len(variants), dtype=np.int32)[order]
        # Some other keys filed too, so that a lookup has neighbours to miss.
        noise = rng.integers(0, 2**32, 50).astype(np.uint32)
        keys = np.concatenate([keys, noise])
        owners = np.concatenate([owners, np.full(50, -1, dtype=np.int32)])
        order = np.argsort(keys, kind="stable")
        keys, owners = keys[order], owners[order]
        near = {variants.index(v) for v in ones}
        two = {variants.index(v) for v in vocabulary._two_away(vocabulary._one_away(word))}
        found_one = kernels.filed_near(keys, owners, word.encode(), 1) - {-1}
        found_two = kernels.filed_near(keys, owners, word.encode(), 2) - {-1}
        assert found_one == near, word
        assert found_two == two, word
    # Keys longer than their words (a tampered index): only the pairs both have count.
    assert kernels.filed_near(keys, owners[:0], b"word", 1) == set()
