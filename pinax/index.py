"""Search over one manifest: BM25 Okapi from inverted postings, with typo and partial-word rescue.

BM25 is computed exactly as rank-bm25's `BM25Okapi` (k1, b, epsilon and its IDF floor), but
from per-term postings, so a query touches only the pages that contain its words instead of
scanning every page per term. Query words the index has never seen are corrected against the
vocabulary (edit distance, then prefix), and a query that still finds too little falls back to
substring matching on titles. Scores are normalised to 0..1 so several manifests interleave.
"""

from __future__ import annotations

import bisect
import functools
import itertools
import math
import re
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from urllib.parse import unquote, urlsplit

import numpy as np

from pinax.manifest import Page

K1 = 1.5
B = 0.75
EPSILON = 0.25

_WORD = re.compile(r"[^\W_]+")
_CAMEL = re.compile(r"[A-Z]+(?=[A-Z][a-z])|[A-Z]?[a-z0-9]+|[A-Z0-9]+")
# Words that carry no meaning in a docs query; dropped unless the query has nothing else.
STOP_WORDS = frozenset(
    "a an and are as at be by for from how i in into is it of on or that the this to what "
    "when where which with why you your".split()
)
CORRECTION_WEIGHT = 0.8  # a corrected or completed word counts a little less than a typed one
SUBSTRING_WEIGHT = 0.5


def tokenize(text: str) -> list[str]:
    """Lower-case words, with identifiers also split at case changes (`useState` -> use, state)."""
    tokens: list[str] = []
    for word in _WORD.findall(text):
        tokens.extend(_word_tokens(word))
    return tokens


@functools.lru_cache(maxsize=1 << 16)
def _word_tokens(word: str) -> tuple[str, ...]:
    parts = _CAMEL.findall(word)
    if len(parts) > 1:
        return (word.lower(), *(part.lower() for part in parts))
    return (word.lower(),)


def page_tokens(page: Page) -> list[str]:
    """The words a page is found by: its URL path, title and section."""
    path = unquote(urlsplit(page.url).path)
    return tokenize(path) + tokenize(page.title) + tokenize(page.section)


@dataclass(frozen=True, slots=True)
class Hit:
    doc: int
    score: float  # 0..1, comparable across indexes


@dataclass
class Outcome:
    hits: list[Hit]
    strategy: str  # "bm25", "fuzzy" (some words corrected) or "substring"
    corrections: dict[str, str] = field(default_factory=dict)


def normalize(coverage: float) -> float:
    """Map BM25 over its reference to 0..1: 0.9 when every query word matches once in a page
    of average length, approaching 1 for stronger matches, so scores from different
    manifests mean the same thing."""
    return round(1.0 - math.exp(-2.3 * coverage), 4)


class SearchIndex:
    """An inverted BM25 index over one list of token documents."""

    def __init__(self, documents: Sequence[Sequence[str]], titles: Sequence[str]) -> None:
        self.size = len(documents)
        self.titles = [t.lower() for t in titles]
        lengths = np.array([len(d) for d in documents], dtype=np.float64)
        self.avgdl = float(lengths.mean()) if self.size and lengths.sum() else 1.0
        norm = K1 * (1 - B + B * lengths / self.avgdl)

        postings: dict[str, list[tuple[int, int]]] = {}
        for doc, tokens in enumerate(documents):
            for term, tf in Counter(tokens).items():
                postings.setdefault(term, []).append((doc, tf))

        self.vocabulary: dict[str, int] = {}
        self._doc_ids: list[np.ndarray] = []
        self._weights: list[np.ndarray] = []
        idf: list[float] = []
        for term, entries in postings.items():
            self.vocabulary[term] = len(self._doc_ids)
            ids = np.fromiter((d for d, _ in entries), dtype=np.int32, count=len(entries))
            tf = np.fromiter((f for _, f in entries), dtype=np.float64, count=len(entries))
            self._doc_ids.append(ids)
            self._weights.append(tf * (K1 + 1) / (tf + norm[ids]))
            idf.append(math.log(self.size - len(entries) + 0.5) - math.log(len(entries) + 0.5))
        average_idf = sum(idf) / len(idf) if idf else 0.0
        floor = EPSILON * average_idf
        self.idf = np.array([floor if v < 0 else v for v in idf], dtype=np.float64)
        self.unknown_idf = math.log(self.size + 0.5) - math.log(0.5) if self.size else 1.0

        frequency = {t: len(postings[t]) for t in postings}
        # Frequent words first, so a tie between corrections picks the common one.
        self._by_frequency = sorted(postings, key=lambda t: (-frequency[t], t))
        self._sorted = sorted(postings)
        self._frequency = frequency

    @classmethod
    def from_pages(cls, pages: Sequence[Page]) -> SearchIndex:
        return cls([page_tokens(p) for p in pages], [p.title for p in pages])

    def bm25_scores(self, tokens: Iterable[str]) -> np.ndarray:
        """Plain BM25 Okapi scores of every document, identical to rank-bm25's `get_scores`."""
        scores = np.zeros(self.size)
        for token in tokens:
            term = self.vocabulary.get(token)
            if term is not None:
                scores[self._doc_ids[term]] += self.idf[term] * self._weights[term]
        return scores

    def search(self, query: str, limit: int) -> Outcome:
        tokens = tokenize(query)
        content = [t for t in tokens if t not in STOP_WORDS] or tokens
        scores = np.zeros(self.size)
        reference = 0.0
        corrections: dict[str, str] = {}
        for token in content:
            term = self.vocabulary.get(token)
            if term is not None:
                scores[self._doc_ids[term]] += self.idf[term] * self._weights[term]
                reference += self.idf[term]
                continue
            candidates = self._correct(token)
            if not candidates:
                reference += self.unknown_idf
                continue
            corrections[token] = candidates[0]
            best = self.vocabulary[candidates[0]]
            reference += self.idf[best]
            for word in candidates:
                term = self.vocabulary[word]
                scores[self._doc_ids[term]] += (
                    CORRECTION_WEIGHT * self.idf[term] * self._weights[term]
                )
        hits = self._top(scores, reference, limit)
        strategy = "fuzzy" if corrections else "bm25"
        if len(hits) < limit:
            extra = self._substring(query, limit - len(hits), {h.doc for h in hits})
            if extra and not hits:
                strategy = "substring"
            hits.extend(extra)
        return Outcome(hits=hits, strategy=strategy, corrections=corrections)

    def _top(self, scores: np.ndarray, reference: float, limit: int) -> list[Hit]:
        matched = np.flatnonzero(scores > 0)
        if not len(matched) or reference <= 0:
            return []
        if len(matched) > limit:
            keep = np.argpartition(-scores[matched], limit - 1)[:limit]
            matched = matched[keep]
        order = np.lexsort((matched, -scores[matched]))  # best first, ties by manifest order
        return [Hit(int(doc), normalize(float(scores[doc]) / reference)) for doc in matched[order]]

    def _correct(self, token: str) -> list[str]:
        """Known words a mistyped or partial query word probably meant, best first."""
        if len(token) >= 5:
            from rapidfuzz import process
            from rapidfuzz.distance import OSA

            max_distance = 2 if len(token) >= 9 else 1
            match = process.extractOne(
                token, self._by_frequency, scorer=OSA.distance, score_cutoff=max_distance
            )
            if match is not None:
                return [match[0]]
        if len(token) >= 3:
            start = bisect.bisect_left(self._sorted, token)
            completions = []
            for word in itertools.islice(self._sorted, start, None):
                if not word.startswith(token):
                    break
                completions.append(word)
            completions.sort(key=lambda w: (-self._frequency[w], w))
            return completions[:3]
        return []

    def _substring(self, query: str, limit: int, exclude: set[int]) -> list[Hit]:
        needle = " ".join(query.lower().split())
        if len(needle) < 3:
            return []
        found = []
        for doc, title in enumerate(self.titles):
            if doc not in exclude and needle in title:
                found.append(Hit(doc, round(SUBSTRING_WEIGHT * len(needle) / len(title), 4)))
                if len(found) == limit:
                    break
        return found
