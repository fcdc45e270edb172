"""The k best pages for weighted terms, over one index's postings.

A query costs in proportion to the postings it reads, not to the pages. When every query word
is on at most `SHORT_MAX` pages, all postings are added up by a compiled loop that keeps the k
best (`pinax.search.kernels`, which also finds the heading a hit names). Otherwise only the
short lists (rare words, the ones that decide) are added up, and the common words are looked
up by binary search for the candidates that can still reach the top (a list at a time,
dropping the pages that no longer can); pages only common words reach come from a threshold
algorithm over those words' highest weights first, or, once that has read more than it would,
from MaxScore by whole arrays: the longest lists whose bounds fit under the k-th best so far
are only looked up, the others added up. All give the exact top k (tests/test_index_topk.py).
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from typing import Protocol

import numpy as np

from pinax.search.kernels import Kernels, look_up, spread
from pinax.search.postings import IMPACT_BLOCK

FIRST_DEPTH = 256  # weight-ordered postings a long term contributes first
SHORT_MAX = 65536  # in large indexes, terms on more pages than this are expanded lazily
SAMPLE = 4096  # candidates sampled to set the first bar
DENSE_LOOKUP = 8  # pages looked up at once past 1/8 of a list's length: spread the list
SORT_MAX = 1024  # distinct pages of an array this long or shorter are found by sorting
DENSE_PASSES = 4  # times `_top_dense` reads each posting it adds up (gather, add, scatter, clear)
LOOKUP_PASSES = 4  # ...and what a posting `_lookup` reads costs beside that
BEST_LOOKING = 4  # times k pages the rare terms rank first, scored fully for a first bar
BAR_MARGIN = 1e-5  # float32 sums of a page's weights may exceed the exact sum by this share


class Weighted(Protocol):
    """A query term as top-k reads it (`index.Term`): its number and its weight."""

    @property
    def term(self) -> int: ...

    @property
    def weight(self) -> float: ...


class TopK:
    """Top-k retrieval over one index's postings (the arrays `indexing.build` makes)."""

    def __init__(self, arrays: dict[str, np.ndarray], kernels: Kernels) -> None:
        self.size = len(arrays["doc_depth"])
        self._term_max = arrays["term_max"]
        self._post_start = arrays["post_start"]
        self._post_doc = arrays["post_doc"]
        self._post_weight = arrays["post_weight"]
        self._impact_start = arrays["impact_start"]
        self._impact_doc = arrays["impact_doc"]
        self._bound_start = arrays["bound_start"]
        self._impact_bound = arrays["impact_bound"]
        self._local = threading.local()
        self._kernels = kernels

    def top(self, terms: Sequence[Weighted], k: int) -> tuple[list[int], list[float]]:
        """Up to k best pages for weighted terms and their raw scores, best first (ties: the
        lower page number first)."""
        weights: dict[int, float] = {}
        for t in terms:
            weights[t.term] = weights.get(t.term, 0.0) + t.weight
        if self.size <= SHORT_MAX or all(self.df(t) <= SHORT_MAX for t in weights):
            return self._top_short(weights, k)
        docs, scores = self._top_pruned(weights, k)
        order = np.lexsort((docs, -scores))
        return docs[order].tolist(), scores[order].tolist()

    def postings(self, term: int) -> tuple[np.ndarray, np.ndarray]:
        """A term's pages (in page order) and their weights."""
        s, e = self._post_start.item(term), self._post_start.item(term + 1)
        return self._post_doc[s:e], self._post_weight[s:e]

    def _top_short(self, weights: dict[int, float], k: int) -> tuple[list[int], list[float]]:
        """The terms' postings added up, strongest term first, the k best kept (best first);
        the weak terms of a long query only looked up for the pages that can still make the
        k best: work in proportion to the postings, not the pages (see
        `kernels.Kernels.top`)."""
        work = self._scratch()
        return self._kernels.top(weights, k, work.scores, work.marks, work.touched)

    def _top_pruned(self, weights: dict[int, float], k: int) -> tuple[np.ndarray, np.ndarray]:
        """Short terms (rare words: the ones that decide) are added up densely, and their
        pages that can still reach the k best (the k-th best page of the strongest short term
        sets the bar) are scored fully by binary search in the long terms' lists. Then, for
        pages that only long terms reach, a threshold algorithm: expand the long term whose
        unseen pages could still score most (highest weights first), until the k-th best
        beats them all; or, once that has read more than reading the lists that can still
        matter whole would (a query of common words only, whose best pages are far down
        every list), `_top_dense` from the k-th best found so far."""
        work = self._scratch()
        scratch, seen = work.scores, work.seen
        short = sorted(
            (t for t in weights if self.df(t) <= SHORT_MAX),
            key=lambda t: -self._term_max.item(t) * weights[t],
        )
        long = [t for t in weights if self.df(t) > SHORT_MAX]
        lists = [(*self.postings(t), np.float32(weights[t])) for t in long]
        bounds = [self._term_max.item(t) * weights[t] for t in long]
        added: list[np.ndarray] = []
        marked: list[np.ndarray] = []
        found_docs: list[np.ndarray] = []
        found_scores: list[np.ndarray] = []
        threshold = 0.0
        spent = 0  # postings the threshold algorithm has read (see `_lookup_cost`)
        deep = False  # stopped for `_top_dense`
        try:
            for t in short:
                added.append(self._spread(t, weights[t], scratch))
            if added:
                candidates = np.concatenate(added) if len(added) > 1 else added[0]
                partial = scratch[candidates]
                # The best-looking candidates, scored fully, set the bar for the others.
                best = work.distinct(candidates[partial >= _bar(partial, k * (len(added) + 1))])
                pages = None
                if len(best) < k:  # (a page on many of the terms is many of the candidates)
                    pages = work.distinct(candidates)
                    best = _best(pages, scratch, BEST_LOOKING * k)
                bar = _kth(scratch[best] + self._lookup(best, lists), k)
                if pages is None:
                    candidates = work.distinct(candidates[partial >= bar - sum(bounds)])
                else:
                    candidates = pages[scratch[pages] >= bar - sum(bounds)]
                seen[candidates] = True
                marked.append(candidates)
                docs, scores = self._reaching(candidates, scratch[candidates], lists, bounds, bar)
                found_docs.append(docs)
                found_scores.append(scores)
                threshold = _kth(scores, k)
            depths = [0] * len(long)
            while long and (sum(bounds) > threshold or sum(map(len, found_docs)) < k):
                i = max(range(len(long)), key=bounds.__getitem__)
                if bounds[i] <= 0.0:
                    break
                spent += LOOKUP_PASSES * self._lookup_cost(self._step(long[i], depths[i]), lists)
                if spent > self._dense_cost(weights, threshold):
                    deep = True  # `_top_dense` below, once the work arrays are clean
                    break
                before = bounds[:]  # what an unseen page may have from each list
                new, bounds[i], depths[i] = self._next(long[i], lists[i][0], depths[i], lists[i][2])
                new = new.astype(np.intp)
                new = new[~seen[new]]
                if not len(new):
                    continue
                seen[new] = True
                marked.append(new)
                # Short terms add nothing here: their pages were all candidates above.
                none = np.zeros(len(new), dtype=np.float32)
                docs, scores = self._reaching(new, none, lists, before, threshold)
                found_docs.append(docs)
                found_scores.append(scores)
                threshold = _kth(np.concatenate(found_scores), k)
        finally:
            for docs in added:
                scratch[docs] = 0.0
            for docs in marked:
                seen[docs] = False
        if deep:
            return self._top_dense(weights, k, threshold)
        if not found_docs:
            return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.float32)
        docs = np.concatenate(found_docs)
        scores = np.concatenate(found_scores)
        if len(docs) > k:
            keep = np.argpartition(scores, len(scores) - k)[-k:]
            docs, scores = docs[keep], scores[keep]
        return docs, scores

    def _top_dense(
        self, weights: dict[int, float], k: int, bar: float
    ) -> tuple[np.ndarray, np.ndarray]:
        """MaxScore by whole arrays, given `bar`, a score some k pages reach: terms whose
        highest weights add up to less than it are only looked up, as a page only they
        reach cannot reach it (the longest lists that fit, see `_skipped`); the others'
        postings are added up densely, and their pages within reach of the bar (with what
        the looked-up terms may add) are scored fully."""
        work = self._scratch()
        scratch = work.scores
        skipped, added_up = self._skipped(weights, bar)
        bounds = [self._term_max.item(t) * weights[t] for t in skipped]
        added: list[np.ndarray] = []
        try:
            for t in added_up:
                added.append(self._spread(t, weights[t], scratch))
            reach = bar * (1 - BAR_MARGIN) - sum(bounds)
            candidates = np.concatenate(
                [docs[scratch[docs] >= reach] for docs in added] or [np.zeros(0, dtype=np.intp)]
            )
            if len(added) > 1:
                candidates = work.distinct(candidates)
            scores = scratch[candidates]
        finally:
            for docs in added:
                scratch[docs] = 0.0
        if skipped:
            lists = [(*self.postings(t), np.float32(weights[t])) for t in skipped]
            candidates, scores = self._reaching(candidates, scores, lists, bounds, bar)
        if len(candidates) > k:
            keep = np.argpartition(scores, len(scores) - k)[-k:]
            candidates, scores = candidates[keep], scores[keep]
        return candidates, scores

    def _skipped(self, weights: dict[int, float], bar: float) -> tuple[list[int], list[int]]:
        """(the terms `_top_dense` only looks up, those it adds up): the longest lists first
        whose bounds, added up, stay below the bar (any such set would do: a page only they
        reach cannot reach it; the longest spare the most reading)."""
        skipped, added_up = [], []
        room = bar * (1 - BAR_MARGIN)
        for t in sorted(weights, key=lambda t: (-self.df(t), t)):
            bound = self._term_max.item(t) * weights[t]
            if bound < room:
                skipped.append(t)
                room -= bound
            else:
                added_up.append(t)
        return skipped, added_up

    def _dense_cost(self, weights: dict[int, float], bar: float) -> int:
        """What `_top_dense` would read (postings, each read a few times) from this bar."""
        return DENSE_PASSES * sum(self.df(t) for t in self._skipped(weights, bar)[1])

    def _step(self, term: int, depth: int) -> int:
        """How many pages `_next` would expand (see there)."""
        s, e = self._impact_start.item(term), self._impact_start.item(term + 1)
        if e == s:
            return self.df(term)
        return min(e - s, max(FIRST_DEPTH, depth * 4)) - depth

    @staticmethod
    def _lookup_cost(count: int, lists: list[tuple[np.ndarray, np.ndarray, np.float32]]) -> int:
        """What `_lookup` of `count` pages reads, in postings: a binary search costs about
        DENSE_LOOKUP postings read in a row, and a list is never read more than whole."""
        return sum(min(count * DENSE_LOOKUP, len(pages)) for pages, _, _ in lists)

    def _reaching(
        self,
        docs: np.ndarray,
        partial: np.ndarray,
        lists: list[tuple[np.ndarray, np.ndarray, np.float32]],
        bounds: list[float],
        bar: float,
    ) -> tuple[np.ndarray, np.ndarray]:
        """The pages of `docs` that may still reach `bar` once the terms of `lists` are added
        to what they have (`partial`), and their scores: the lists are looked up highest
        bound first, and a page whose score so far and the bounds of the lists left fall
        below the bar is dropped (none of the best pages is: `bar` is a score some k pages
        reach, and `bounds` bound what a page of `docs` has from each list)."""
        left = sum(bounds)
        reach = bar * (1 - BAR_MARGIN)
        for i in sorted(range(len(lists)), key=lambda i: -bounds[i]):
            keep = partial >= reach - left
            if not keep.all():
                docs, partial = docs[keep], partial[keep]
            partial = partial + self._lookup(docs, lists[i : i + 1])
            left -= bounds[i]
        return docs, partial

    def _spread(self, term: int, weight: float, scores: np.ndarray) -> np.ndarray:
        """A term's postings times `weight` added to `scores`; its pages, as intp (numpy
        converts int32 indices on every fancy-index operation, and they are used again)."""
        docs, values = self.postings(term)
        spread(docs, values, weight, scores)
        return docs.astype(np.intp)

    def df(self, term: int) -> int:
        """How many pages have a term."""
        return self._post_start.item(term + 1) - self._post_start.item(term)

    def _lookup(
        self, docs: np.ndarray, lists: list[tuple[np.ndarray, np.ndarray, np.float32]]
    ) -> np.ndarray:
        """What terms add to pages: by search in their page-ordered postings (galloping, see
        `kernels.look_up`), or, for many pages against a list, by spreading the list over a
        page-sized array and reading the pages from it (a pass over the list beats that many
        searches)."""
        docs = docs.astype(np.int32)  # the postings' type, as `look_up` takes them
        total = np.zeros(len(docs), dtype=np.float32)
        dense = None
        for pages, values, factor in lists:
            if len(docs) * DENSE_LOOKUP > len(pages):
                dense = self._scratch().dense if dense is None else dense
                dense[pages] = values
                total += dense[docs] * factor
                dense[pages] = 0.0
                continue
            look_up(pages, values, factor, docs, total)
        return total

    def _next(
        self, term: int, docs: np.ndarray, depth: int, factor: float
    ) -> tuple[np.ndarray, float, int]:
        """A term's next pages (highest weights first), the most any of its unexpanded pages
        can add, and the new depth."""
        s, e = self._impact_start.item(term), self._impact_start.item(term + 1)
        if e == s:  # a short list: all of it at once
            return docs, 0.0, len(docs)
        end = min(e - s, max(FIRST_DEPTH, depth * 4))  # FIRST_DEPTH * 4^n: whole blocks
        bound = 0.0
        if end < e - s:
            bound = self._impact_bound.item(self._bound_start.item(term) + end // IMPACT_BLOCK)
        return self._impact_doc[s + depth : s + end], bound * float(factor), end

    def _scratch(self) -> Scratch:
        """This thread's page-sized work arrays."""
        found = getattr(self._local, "scratch", None)
        if found is None:
            found = self._local.scratch = Scratch(self.size)
        return found


class Scratch:
    """Page-sized work arrays of one thread: scores and a mask of pages taken (both always
    left all zero), and where each page was last written (see `distinct`)."""

    def __init__(self, size: int) -> None:
        self.scores = np.zeros(size, dtype=np.float32)
        self.dense = np.zeros(size, dtype=np.float32)  # one term's weights, for lookups
        self.seen = np.zeros(size, dtype=bool)
        self.marks = self.seen.view(np.uint8)  # the same, as the compiled loops take it
        self.owner = np.zeros(size, dtype=np.int32)
        # Pages reached, in the order reached, and a place past them (see `kernels.top`).
        self.touched = np.zeros(size + 1, dtype=np.int32)

    def distinct(self, pages: np.ndarray) -> np.ndarray:
        """The distinct pages of an array, in no set order. Few are sorted; many are written
        to `owner` at their places, and the places that stayed give one of each (no sort:
        several times faster on thousands of pages)."""
        if len(pages) <= SORT_MAX:
            return _unique(pages)
        places = np.arange(len(pages), dtype=np.int32)
        self.owner[pages] = places
        return pages[self.owner[pages] == places]


def _unique(values: np.ndarray) -> np.ndarray:
    """The distinct values, sorted (`np.unique` is far slower on small int32 arrays)."""
    ordered = np.sort(values)
    if len(ordered) < 2:
        return ordered
    first = np.empty(len(ordered), dtype=bool)
    first[0] = True
    np.not_equal(ordered[1:], ordered[:-1], out=first[1:])
    return ordered[first]


def _bar(values: np.ndarray, count: int) -> float:
    """A value about `count` of the values reach (estimated from a sample of them, as any
    bar gives a valid floor: it only has to leave some, and not too many, candidates)."""
    if len(values) <= count:
        return -np.inf
    step = max(1, len(values) // SAMPLE)
    sample = values[::step]
    rank = max(1, count * len(sample) // len(values))
    return float(np.partition(sample, len(sample) - rank)[len(sample) - rank])


def _best(pages: np.ndarray, scores: np.ndarray, count: int) -> np.ndarray:
    """The `count` pages of the highest `scores[page]` (all, if no more)."""
    if len(pages) <= count:
        return pages
    return pages[np.argpartition(scores[pages], -count)[-count:]]


def _kth(scores: np.ndarray, k: int) -> float:
    """The k-th best score (0 when there are fewer)."""
    if len(scores) < k:
        return 0.0
    return float(np.partition(scores, len(scores) - k)[len(scores) - k])
