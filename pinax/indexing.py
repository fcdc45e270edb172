"""Building a search index: from pages to BM25F postings in numpy arrays.

A page is found by six fields, weighted as measured on the DEV retrieval sets (see
bench/eval_search.py): title and URL slug 1.0 each, section (plus group) 0.5, description 0.5,
the titles of the pages one URL level below it 0.2, and its title's phrases (adjacent pairs
of content words, as terms of their own that queries look up at a fifth of a word's weight).
BM25F sums the weighted,
length-normalised frequencies of a term over the fields and saturates once; as that depends
only on the page, each posting's final weight (IDF included) is computed here, once.

Tokens are gathered per field as flat lists and turned into postings by one sort of packed
64-bit keys (term, page, field, half weight), so a million pages build in seconds.
"""

from __future__ import annotations

import zlib
from array import array
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Protocol
from urllib.parse import unquote, urlsplit

import numpy as np

from pinax.tokens import STOP_WORDS, chunk_words, chunks, phrases, stem
from pinax.vocabulary import build_words, sorted_strings

FIELDS = ("title", "slug", "section", "description", "children", "phrase")
FIELD_WEIGHTS = (1.0, 1.0, 0.5, 0.5, 0.2, 1.0)
K1 = 1.2
B = 0.75
DEPTH_PENALTY = 0.02  # a page one URL level deeper weighs 2% less (folded into its postings)
FORMAT = 1  # bump when the arrays or what they mean change (tokens, fields, weights)
IMPACT_MIN = 1024  # terms with more postings also keep them in descending weight order

# A text's tokens: term ids, half-weight flags, length (stop words left out), and the stems of
# its full-weight content words (for title phrases and the exact-title key).
Analysed = tuple[Sequence[int], Sequence[int], float, Sequence[str]]


class PageText(Protocol):
    url: str
    title: str
    section: str
    description: str | None
    group: str | None


def idf(df: np.ndarray | float, size: int) -> np.ndarray | float:
    """BM25 inverse document frequency, in its always-positive form (Lucene's)."""
    return np.log1p((size - df + 0.5) / (df + 0.5))


def relative(path: str, base_path: str) -> str:
    if base_path and (path == base_path or path.startswith(base_path + "/")):
        return path[len(base_path) :]
    return path


def field_texts(page: PageText, base_path: str) -> tuple[str, str, str, str]:
    """The title, slug, section and description texts of a page (base path left out)."""
    path = relative(unquote(urlsplit(page.url).path).rstrip("/"), base_path)
    section = relative(page.section, base_path)
    if page.group:
        section = f"{section} {page.group}"
    return page.title, path.rsplit("/", 1)[-1], section, page.description or ""


def content_key(stems: Iterable[str]) -> int:
    """A fingerprint of a set of stems: a query equal to a title (in content words) shares
    the title's key."""
    unique = sorted(set(stems))
    return zlib.crc32("\n".join(unique).encode()) if unique else 0


@dataclass
class _Column:
    """One field's tokens for every page, flat: term ids, half-weight flags, counts, lengths."""

    ids: array = field(default_factory=lambda: array("i"))
    half: array = field(default_factory=lambda: array("b"))
    counts: array = field(default_factory=lambda: array("i"))
    lengths: array = field(default_factory=lambda: array("f"))

    def add(self, found: Analysed) -> None:
        self.ids.extend(found[0])
        self.half.extend(found[1])
        self.counts.append(len(found[0]))
        self.lengths.append(found[2])


EMPTY: Analysed = ((), (), 0.0, ())


class _Analysis:
    """Build-time vocabulary: term ids of stems (and of title phrases) and of written words,
    and each text's tokens as term ids."""

    def __init__(self) -> None:
        self.terms: dict[str, int] = {}
        self.words: dict[str, int] = {}  # written word -> term id
        self.plain: set[str] = set()  # written words that are not joined identifiers
        self._chunks: dict[str, Analysed] = {}

    def text(self, text: str) -> Analysed:
        found = [self._chunks.get(c) or self._chunk(c) for c in chunks(text)]
        if len(found) == 1:
            return found[0]
        ids: list[int] = []
        half: list[int] = []
        full: list[str] = []
        length = 0.0
        for one in found:
            ids += one[0]
            half += one[1]
            length += one[2]
            full += one[3]
        return ids, half, length, full

    def phrases(self, stems: Sequence[str]) -> Analysed:
        ids = [self.terms.setdefault(pair, len(self.terms)) for pair in phrases(stems)]
        return ids, [0] * len(ids), float(len(ids)), ()

    def _chunk(self, chunk: str) -> Analysed:
        ids: list[int] = []
        half: list[int] = []
        full: list[str] = []
        length = 0.0
        tokens = chunk_words(chunk)
        for word, weight in tokens:
            term = self.words.get(word)
            if term is None:
                term = self.terms.setdefault(stem(word), len(self.terms))
                self.words[word] = term
            if len(tokens) == 1 or weight < 1.0:
                self.plain.add(word)
            ids.append(term)
            half.append(weight < 1.0)
            if word not in STOP_WORDS:
                length += weight
                if weight >= 1.0:
                    full.append(stem(word))
        found = (tuple(ids), tuple(half), length, tuple(full))
        if len(self._chunks) < 1 << 20:
            self._chunks[chunk] = found
        return found


def build(pages: Sequence[PageText], base_path: str = "") -> dict[str, np.ndarray]:
    """The arrays of a search index over `pages` (what each holds: see `SearchIndex`)."""
    size = len(pages)
    analysis = _Analysis()
    title, slug, section, description, phrase = (_Column() for _ in range(5))
    sections: dict[str, Analysed] = {}
    title_keys = np.zeros(size, dtype=np.uint32)
    depths = np.zeros(size, dtype=np.uint8)
    for doc, page in enumerate(pages):
        path = relative(unquote(urlsplit(page.url).path).rstrip("/"), base_path)
        found = analysis.text(page.title)
        title.add(found)
        phrase.add(analysis.phrases(found[3]))
        title_keys[doc] = content_key(found[3])
        slug.add(analysis.text(path.rsplit("/", 1)[-1]))
        depths[doc] = min(255, path.count("/"))
        text = relative(page.section, base_path)
        if page.group:
            text = f"{text} {page.group}"
        if text not in sections:
            sections[text] = analysis.text(text)
        section.add(sections[text])
        description.add(analysis.text(page.description) if page.description else EMPTY)
    del sections
    columns = [_numpy(c, size) for c in (title, slug, section, description)]
    columns.append(_children(pages, columns[0]))
    columns.append(_numpy(phrase, size))
    del title, slug, section, description, phrase
    arrays = _postings(analysis, columns, size, depth_prior(depths))
    arrays["title_key"] = title_keys
    arrays["doc_depth"] = depths
    return arrays


Column = tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]  # ids, half, docs, lengths


def _numpy(column: _Column, size: int) -> Column:
    counts = np.frombuffer(column.counts, dtype=np.int32)
    docs = np.repeat(np.arange(size, dtype=np.int64), counts)
    return (
        np.frombuffer(column.ids, dtype=np.int32),
        np.frombuffer(column.half, dtype=np.int8),
        docs,
        np.frombuffer(column.lengths, dtype=np.float32).astype(np.float64),
    )


def _children(pages: Sequence[PageText], titles: Column) -> Column:
    """The children field: every title's tokens, filed under the page one URL level up."""
    by_url = {p.url.rstrip("/"): i for i, p in enumerate(pages)}
    parent = np.full(len(pages), -1, dtype=np.int64)
    for doc, page in enumerate(pages):
        head, _, tail = page.url.rstrip("/").rpartition("/")
        if tail and not head.endswith("/"):
            parent[doc] = by_url.get(head, -1)
    del by_url
    parent[parent == np.arange(len(pages))] = -1
    ids, half, docs, lengths = titles
    keep = parent[docs] >= 0
    has_parent = parent >= 0
    child_lengths = np.bincount(
        parent[has_parent], weights=lengths[has_parent], minlength=len(pages)
    )
    return ids[keep], half[keep], parent[docs[keep]], child_lengths


def depth_prior(depths: np.ndarray) -> np.ndarray:
    """How much a page's depth below the base path leaves of its weights."""
    return 1.0 / (1.0 + DEPTH_PENALTY * depths.astype(np.float64))


def _postings(
    analysis: _Analysis, columns: list[Column], size: int, prior: np.ndarray
) -> dict[str, np.ndarray]:
    ordered_terms = sorted(analysis.terms)
    rank = np.empty(len(ordered_terms), dtype=np.int64)
    rank[[analysis.terms[t] for t in ordered_terms]] = np.arange(len(ordered_terms))

    lengths = np.stack([c[3] for c in columns]) if size else np.zeros((len(FIELDS), 0))
    averages = np.maximum(lengths.mean(axis=1) if size else np.ones(len(FIELDS)), 1e-9)
    doc_bits = max(1, size.bit_length())
    packed = []
    for f, (ids, half, docs, _) in enumerate(columns):
        if len(ids):
            term = rank[ids]
            packed.append((term << (doc_bits + 4)) | (docs << 4) | (f << 1) | half)
    key = np.concatenate(packed) if packed else np.zeros(0, dtype=np.int64)
    del packed, columns
    key.sort()
    pair = key >> 4  # (term, page)
    first = np.flatnonzero(np.r_[True, pair[1:] != pair[:-1]]) if len(key) else pair
    which = (key >> 1) & 7
    doc = pair & ((1 << doc_bits) - 1)
    norm = (1.0 - B) + B * lengths / averages[:, None]
    part = np.where(key & 1, 0.5, 1.0) * np.asarray(FIELD_WEIGHTS)[which] / norm[which, doc]
    del which, norm
    tf = np.add.reduceat(part, first) if len(first) else part
    post_term = pair[first] >> doc_bits
    post_doc = doc[first].astype(np.int32)
    del key, pair, doc, part

    df = np.bincount(post_term, minlength=len(ordered_terms))
    term_idf = idf(df.astype(np.float64), size)
    saturated = term_idf[post_term] * tf * (K1 + 1) / (K1 + tf)
    post_weight = (saturated * prior[post_doc]).astype(np.float32)
    post_start = np.zeros(len(ordered_terms) + 1, dtype=np.int64)
    np.cumsum(df, out=post_start[1:])
    term_max = np.zeros(len(ordered_terms), dtype=np.float32)
    if len(post_weight):
        used = df > 0
        term_max[used] = np.maximum.reduceat(post_weight, post_start[:-1][used])
    arrays = {
        "terms": sorted_strings(ordered_terms),
        "term_idf": np.asarray(term_idf, dtype=np.float32),
        "term_max": term_max,
        "post_start": post_start,
        "post_doc": post_doc,
        "post_weight": post_weight,
        "field_avg": averages.astype(np.float64),
    }
    arrays.update(_impacts(post_start, post_doc, post_weight, df))
    arrays.update(build_words(analysis.words, analysis.plain, rank, df))
    return arrays


def _impacts(
    post_start: np.ndarray, post_doc: np.ndarray, post_weight: np.ndarray, df: np.ndarray
) -> dict[str, np.ndarray]:
    """The postings of long terms again, in descending weight order (ties by page)."""
    long_terms = np.flatnonzero(df > IMPACT_MIN)
    sizes = np.zeros(len(df), dtype=np.int64)
    sizes[long_terms] = df[long_terms]
    impact_start = np.zeros(len(df) + 1, dtype=np.int64)
    np.cumsum(sizes, out=impact_start[1:])
    impact_doc = np.empty(int(impact_start[-1]), dtype=np.int32)
    impact_weight = np.empty(int(impact_start[-1]), dtype=np.float32)
    for t in long_terms.tolist():
        s, e = post_start[t], post_start[t + 1]
        order = np.argsort(-post_weight[s:e], kind="stable")
        out = slice(impact_start[t], impact_start[t + 1])
        impact_doc[out] = post_doc[s:e][order]
        impact_weight[out] = post_weight[s:e][order]
    return {"impact_start": impact_start, "impact_doc": impact_doc, "impact_weight": impact_weight}
