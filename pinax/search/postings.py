"""Postings: a field's tokens over all pages packed into sorted 64-bit keys, merged into each
term's pages with their frequencies, weighted (BM25 saturation, IDF, depth prior) and, for
long lists, copied in descending weight order with bounds (what top-k prunes by).

The numpy half of `pinax.search.indexing.build`, and the key packing the content index's
ranking shares (`descending_keys`, `key_values`, `key_ids`).
"""

from __future__ import annotations

import itertools
from array import array
from collections.abc import Iterator
from typing import NamedTuple

import numpy as np

from pinax.search.tokens import PART_WEIGHT

IMPACT_MIN = 1024  # terms with more postings also keep them in descending weight order
IMPACT_BLOCK = 256  # ...with a bound on the weights every this many places
BLOCK = 1 << 21  # entries worked through at a time while making postings
_HALF, _LOW_HALF = np.uint64(32), np.uint64(0xFFFFFFFF)  # of a 64-bit sort key


def idf(df: np.ndarray | float, size: int) -> np.ndarray | float:
    """BM25 inverse document frequency, in its always-positive form (Lucene's)."""
    return np.log1p((size - df + 0.5) / (df + 0.5))


class Field:
    """One field's tokens over all pages: term ids, half-weight flags, page of each token,
    and each page's length in the field."""

    def __init__(self, term: np.ndarray, half: np.ndarray, doc: np.ndarray, lengths: np.ndarray):
        self.term, self.half, self.doc, self.lengths = term, half, doc, lengths


class Blocks(NamedTuple):
    """A field made a block of pages at a time as it is packed (see `packed`): at most
    `most` tokens, in `blocks`."""

    most: int
    blocks: Iterator[Field]


def packed(
    fields: list[Field | Blocks], rank: np.ndarray, doc_bits: int, size: int
) -> tuple[np.ndarray, list[np.ndarray]]:
    """Every token as one 64-bit key (term rank, page, field, half weight), field by field
    (a field made in blocks, block by block) and BLOCK tokens at a time (no temporary is
    larger than a block); each field is freed once packed. And each field's page lengths."""
    most = sum(f.most if isinstance(f, Blocks) else len(f.term) for f in fields)
    key = np.empty(most, dtype=np.int64)
    lengths = []
    at = 0
    for i in range(len(fields)):
        field = fields[i]
        fields[i] = None  # type: ignore[call-overload]  # freed once packed
        parts = field.blocks if isinstance(field, Blocks) else iter([field])
        total = np.zeros(size)
        for part in parts:
            _pack(key[at : at + len(part.term)], part, rank, doc_bits, i)
            at += len(part.term)
            total += part.lengths
        lengths.append(total)
    return key[:at], lengths


def _pack(key: np.ndarray, field: Field, rank: np.ndarray, doc_bits: int, number: int) -> None:
    """A field's tokens into their keys, BLOCK at a time."""
    for a in range(0, len(field.term), BLOCK):
        b = min(len(field.term), a + BLOCK)
        part = key[a:b]
        np.take(rank, field.term[a:b], out=part)
        part <<= doc_bits + 4
        doc = field.doc[a:b].astype(np.int64)
        doc <<= 4
        part |= doc
        part |= field.half[a:b]
        part |= number << 1


def descending_keys(values: np.ndarray, ids: np.ndarray) -> np.ndarray:
    """(value, id) pairs as 64-bit keys that sort by value (float32, 0 or more) from the
    highest, ties by id from the lowest: one sort of numbers instead of a stable sort by
    two columns. The high half is the value's bits inverted (a float at or above 0 orders as
    its bits do), the low half the id (32 bits)."""
    bits = values.astype(np.float32, copy=False).view(np.uint32)
    return ((~bits).astype(np.uint64) << _HALF) | ids.astype(np.uint64)


def key_values(keys: np.ndarray) -> np.ndarray:
    """The values of `descending_keys` (float32)."""
    return (~(keys >> _HALF)).astype(np.uint32).view(np.float32)


def key_ids(keys: np.ndarray) -> np.ndarray:
    """The ids of `descending_keys`."""
    return keys & _LOW_HALF


def run_starts(key: np.ndarray) -> np.ndarray:
    """Where a run of equal sorted keys without the field bits (one posting per term and
    page) starts; worked through in blocks, to keep temporary arrays small."""
    new = np.empty(len(key), dtype=bool)
    new[:1] = True
    for a in range(1, len(key), BLOCK):
        b = min(len(key), a + BLOCK)
        np.not_equal(key[a:b] >> 4, key[a - 1 : b - 1] >> 4, out=new[a:b])
    return new


def _block_bounds(new: np.ndarray) -> list[int]:
    """Places about BLOCK apart where runs start, so that no run spans two blocks."""
    bounds = [0]
    at = BLOCK
    while at < len(new):
        window = new[at : at + BLOCK]
        if window.any():
            bounds.append(at + int(window.argmax()))
        at += BLOCK
    bounds.append(len(new))
    return bounds  # increasing: each found start lies in its own window


def merge_runs(
    key: np.ndarray, new: np.ndarray, scale: np.ndarray, size: int, doc_bits: int, terms: int
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """How many pages each of the `terms` has, and each run's page and weighted frequency
    (the sum of what each of its occurrences weighs), in key order; a block at a time,
    straight into arrays of the postings' size (each run's term is not kept: the counts
    give it)."""
    total = int(np.count_nonzero(new))
    df = np.zeros(terms, dtype=np.int64)
    post_doc = np.empty(total, dtype=np.int32)
    tf = np.empty(total, dtype=np.float32)
    page = (1 << doc_bits) - 1
    bounds = _block_bounds(new)
    at = 0
    for a, b in itertools.pairwise(bounds):
        block = key[a:b]
        starts = np.flatnonzero(new[a:b])
        heads = block[starts]
        end = at + len(starts)
        df += np.bincount(heads >> (doc_bits + 4), minlength=terms)
        post_doc[at:end] = (heads >> 4) & page
        part = scale[((block >> 1) & 7) * size + ((block >> 4) & page)]  # (field, page)
        part[(block & 1).astype(bool)] *= PART_WEIGHT
        tf[at:end] = np.add.reduceat(part, starts)
        at = end
    return df, post_doc, tf


def posting_weights(
    term_idf: np.ndarray,
    tf: np.ndarray,
    prior: np.ndarray,
    post_term: np.ndarray,
    post_doc: np.ndarray,
    k1: float,
) -> np.ndarray:
    """Each posting's final weight: BM25 saturation of its frequency, times its term's IDF
    and its page's depth prior; element by element, so worked through in blocks."""
    weight = np.empty(len(tf), dtype=np.float32)
    for a in range(0, len(tf), BLOCK):
        b = min(len(tf), a + BLOCK)
        freq = tf[a:b].astype(np.float64)
        saturated = term_idf[post_term[a:b]] * freq * (k1 + 1) / (k1 + freq)
        weight[a:b] = saturated * prior[post_doc[a:b]]
    return weight


def impacts(
    post_start: np.ndarray, post_doc: np.ndarray, post_weight: np.ndarray, df: np.ndarray
) -> dict[str, np.ndarray]:
    """The pages of long terms again, in descending weight order (ties by page), with the
    weight at every IMPACT_BLOCK-th place: a bound on the weights from there on."""
    long_terms = np.flatnonzero(df > IMPACT_MIN)
    sizes = np.zeros(len(df), dtype=np.int64)
    sizes[long_terms] = df[long_terms]
    impact_start = np.zeros(len(df) + 1, dtype=np.int64)
    np.cumsum(sizes, out=impact_start[1:])
    blocks = -(-sizes // IMPACT_BLOCK)
    bound_start = np.zeros(len(df) + 1, dtype=np.int64)
    np.cumsum(blocks, out=bound_start[1:])
    impact_doc = np.empty(int(impact_start[-1]), dtype=np.int32)
    impact_bound = np.empty(int(bound_start[-1]), dtype=np.float32)
    for t in long_terms.tolist():
        s, e = post_start[t], post_start[t + 1]
        key = descending_keys(post_weight[s:e], post_doc[s:e])
        key.sort()
        impact_doc[impact_start[t] : impact_start[t + 1]] = key_ids(key)
        impact_bound[bound_start[t] : bound_start[t + 1]] = key_values(key[::IMPACT_BLOCK])
    return {
        "impact_start": impact_start,
        "impact_doc": impact_doc,
        "bound_start": bound_start,
        "impact_bound": impact_bound,
    }


def distinct(values: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The distinct values (sorted) and, for each value, the position of its distinct value:
    `np.unique(..., return_inverse=True)` by one sort, much faster for large int arrays."""
    order = np.argsort(values, kind="stable")
    ordered = values[order]
    new = np.empty(len(values), dtype=bool)
    new[:1] = True
    np.not_equal(ordered[1:], ordered[:-1], out=new[1:])
    inverse = np.empty(len(values), dtype=np.int64)
    inverse[order] = np.cumsum(new) - 1
    return ordered[new], inverse


def ragged(starts: np.ndarray, counts: np.ndarray) -> np.ndarray:
    """Positions start[i] .. start[i] + count[i] - 1 for every i, concatenated."""
    total = int(counts.sum())
    if not total:
        return np.zeros(0, dtype=np.int64)
    ends = np.cumsum(counts)
    return np.repeat(starts - (ends - counts), counts) + np.arange(total)


def texts_of_pages(
    each_text: Field,
    text_of: array | np.ndarray,
    page_of: array | np.ndarray,
    size: int,
    keep: np.ndarray | None = None,
) -> Field:
    """The heading (or symbol) field: the tokens of every heading's text (`each_text` is
    filed by distinct text; `text_of` each heading's, `page_of` its page) filed under its
    page; only the headings `keep` marks, if given."""
    text = np.frombuffer(text_of, dtype=np.int_)
    page = np.frombuffer(page_of, dtype=np.int_)
    if keep is not None:
        text, page = text[keep], page[keep]
    count = np.bincount(each_text.doc, minlength=len(each_text.lengths))  # doc is sorted
    start = np.cumsum(count) - count
    at = ragged(start[text], count[text])
    doc = np.repeat(page, count[text]).astype(np.int32)
    lengths = np.bincount(page, weights=each_text.lengths[text], minlength=size)
    return Field(each_text.term[at], each_text.half[at], doc, lengths)


def once(field: Field, size: int) -> Field:
    """A field with each term at most once a page (a full-weight occurrence over a part's):
    a page documenting 200 names with `widget` in them is not 200 times about widgets; its
    length is its distinct terms'."""
    if not len(field.term):
        return field
    terms = int(field.term.max()) + 1
    key = field.doc.astype(np.int64) * terms + field.term
    key <<= 1
    key |= field.half.astype(np.int64)  # whole (0) sorts before part (1)
    key.sort()
    first = np.empty(len(key), dtype=bool)
    first[0] = True
    np.not_equal(key[1:] >> 1, key[:-1] >> 1, out=first[1:])
    key = key[first]  # in page order, one a term
    half = (key & 1).astype(np.int8)
    key >>= 1
    doc = (key // terms).astype(np.int32)
    term = (key % terms).astype(np.int32)
    lengths = np.bincount(doc, weights=np.where(half, PART_WEIGHT, 1.0), minlength=size)
    return Field(term, half, doc, lengths)
