"""Plain BM25 Okapi, exactly as rank-bm25's `BM25Okapi` scores, from inverted postings.

rank-bm25 scans every document once per query word; here each word's postings (the documents
that contain it, with their precomputed term weights) are added up, so a query touches only the
documents that contain its words. Same k1, b and epsilon, same IDF with its floor (words in more
than half the documents get epsilon times the average IDF), same sum over the query's words
(repeats included), so `get_scores` returns the same array. Pinax's own ranking
(`pinax.search.index`) builds on the same postings idea with BM25F; this class is the baseline
it is measured against and the check that the postings arithmetic is right. The benches' and
tests' plain tokens come from here too; it is not part of the installed package.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable, Sequence
from urllib.parse import urlsplit

import numpy as np

_WORD = re.compile(r"[a-z0-9]+")


def plain_tokens(text: str) -> list[str]:
    """The baseline's tokens (../shared/corpora/README.md): lower-case `[a-z0-9]+` runs."""
    return _WORD.findall(text.lower())


def page_tokens(url: str, title: str, section: str) -> list[str]:
    """The baseline's document for a page: the tokens of its URL path, title and section."""
    return plain_tokens(urlsplit(url).path) + plain_tokens(title) + plain_tokens(section)


class OkapiIndex:
    def __init__(
        self,
        documents: Iterable[Sequence[str]],
        k1: float = 1.5,
        b: float = 0.75,
        epsilon: float = 0.25,
    ) -> None:
        self.vocabulary: dict[str, int] = {}
        term_ids: list[int] = []
        frequencies: list[int] = []
        counts: list[int] = []
        lengths: list[int] = []
        for document in documents:
            row: dict[int, int] = {}
            for word in document:
                term = self.vocabulary.setdefault(word, len(self.vocabulary))
                row[term] = row.get(term, 0) + 1
            term_ids.extend(row)
            frequencies.extend(row.values())
            counts.append(len(row))
            lengths.append(len(document))
        self.size = len(lengths)
        term = np.array(term_ids, dtype=np.int64)
        doc = np.repeat(np.arange(self.size, dtype=np.int64), np.array(counts, dtype=np.int64))
        tf = np.array(frequencies, dtype=np.float64)
        order = np.argsort(term, kind="stable")  # per term, its documents in order
        term, doc, tf = term[order], doc[order], tf[order]
        df = np.bincount(term, minlength=len(self.vocabulary))
        self._start = np.concatenate([[0], np.cumsum(df)])
        self._docs = doc

        idf = [math.log(self.size - n + 0.5) - math.log(n + 0.5) for n in df.tolist()]
        average = sum(idf) / len(idf) if idf else 0.0
        self.idf = np.array([epsilon * average if v < 0 else v for v in idf], dtype=np.float64)
        doc_len = np.array(lengths, dtype=np.float64)
        avgdl = doc_len.sum() / self.size if self.size else 1.0
        norm = k1 * (1 - b + b * doc_len[doc] / avgdl)
        self._weights = self.idf[term] * (tf * (k1 + 1) / (tf + norm))

    def get_scores(self, query: Iterable[str]) -> np.ndarray:
        """The score of every document for the query's words, as `BM25Okapi.get_scores`."""
        scores = np.zeros(self.size)
        for word in query:
            term = self.vocabulary.get(word)
            if term is not None:
                s, e = self._start[term], self._start[term + 1]
                scores[self._docs[s:e]] += self._weights[s:e]
        return scores
