"""Building a search index: from a manifest's pages to BM25F postings in numpy arrays.

A page is found by eight fields, weighted as measured on the DEV retrieval sets (see
bench/eval_search.py and bench/eval_sections.py): title and URL slug 1.0 each, section (plus
group) 0.5, description 0.5, the titles of the pages one URL level below it 0.2, its title's
phrases (adjacent pairs of content words, terms of their own that queries look up at a fifth
of a word's weight), the headings of its outline 0.5, barely length-normalised, and its API
symbols 1.5 (terms of their own: `§word`, dotted names, `=Name`; see `_symbol_tokens`,
measured with bench/eval_symbols.py). Each heading's terms, and which symbols have each
term, are kept too, so a hit can name the heading or symbol that answers.
BM25F sums the weighted, length-normalised frequencies of a term over the fields and
saturates once; as that depends only on the page, each posting's final weight (IDF and a
small prior for shallow pages included) is computed here, once.

The build works field by field over all pages, so a million pages take seconds: texts are cut
into chunks by one regular expression each, only distinct chunks are analysed (identifier
parts, stems), and everything after that (tokens per page, field lengths, phrases, the
children field, the postings) is numpy: one sort of packed 64-bit keys (term, page, field,
half weight) turns the token lists into postings.
"""

from __future__ import annotations

import itertools
import re
import zlib
from array import array
from collections.abc import Callable, Iterable, Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from itertools import repeat
from operator import itemgetter
from typing import NamedTuple
from urllib.parse import unquote

import numpy as np

from pinax.manifest import Headings, PageColumns, Symbols, narrow, raw_path, raw_paths_of
from pinax.search.ranking import RANKING
from pinax.search.semantic import build_vectors
from pinax.search.tokens import (
    MAX_TOKEN_LENGTH,
    PART_WEIGHT,
    STOP_WORDS,
    chunks,
    split_chunk,
    split_chunks,
    stemmer,
)
from pinax.search.vocabulary import build_words, sorted_strings

EXACT = "="  # ...and `=Name`: a symbol's last part exactly as written (no word has `=`)
SYMBOL = "\u00a7"  # `§`: the symbol field's words are terms of their own, `§word` (no word has it)
FIELDS = ("title", "slug", "section", "description", "children", "phrase", "heading", "symbol")
# The rules folded into the postings (see `pinax.search.ranking`, where each is measured).
FIELD_WEIGHTS, FIELD_B = RANKING.field_weights, RANKING.field_b
K1 = RANKING.k1
DEPTH_PENALTY = RANKING.depth_penalty
FORMAT = 7  # bump when the arrays or what they mean change (tokens, fields, weights)
IMPACT_MIN = 1024  # terms with more postings also keep them in descending weight order
IMPACT_BLOCK = 256  # ...with a bound on the weights every this many places
BLOCK = 1 << 21  # entries worked through at a time while making postings
ANALYSED = 1 << 18  # distinct chunks analysed at a time
MIN_PLURAL = 4  # shorter words ending in s are not taken for plurals
_HALF, _LOW_HALF = np.uint64(32), np.uint64(0xFFFFFFFF)  # of a 64-bit sort key


def idf(df: np.ndarray | float, size: int) -> np.ndarray | float:
    """BM25 inverse document frequency, in its always-positive form (Lucene's)."""
    return np.log1p((size - df + 0.5) / (df + 0.5))


def relative(path: str, base_path: str) -> str:
    if base_path and (path == base_path or path.startswith(base_path + "/")):
        return path[len(base_path) :]
    return path


def page_path(url: str, base_path: str, path: str | None = None) -> str:
    """A page's URL path (`path` if known), decoded, trailing slashes trimmed, the base path
    left out."""
    if path is None:
        path = raw_path(url)
    if "%" in path:
        path = unquote(path)
    return relative(path.rstrip("/"), base_path)


def page_paths(raw_paths: list[str], base_path: str) -> list[str]:
    """`page_path` of many pages from their URL paths as written: a pass in C for each step
    that most paths need."""
    paths = list(map(str.rstrip, raw_paths, repeat("/")))
    escaped = np.fromiter(map(str.__contains__, paths, repeat("%")), dtype=bool, count=len(paths))
    for i in np.flatnonzero(escaped).tolist():
        paths[i] = unquote(paths[i]).rstrip("/")
    if base_path:
        paths = [relative(p, base_path) for p in paths]
    return paths


def section_text(section: str, group: str | None, base_path: str) -> str:
    text = relative(section, base_path)
    return f"{text} {group}" if group else text


def symbol_text(name: str) -> str:
    """What a symbol is indexed as: its name and every dotted suffix of it
    (`json.decoder.JSONDecoder JSONDecoder`...), so that the name is found whole however
    much of its qualification is typed (`Agent.run` of `agents.agent.Agent.run`)."""
    parts = name.split(".")
    return " ".join(".".join(parts[i:]) for i in range(len(parts)) if parts[i])


def content_key(stems: Iterable[str]) -> int:
    """A fingerprint of a set of stems (the sum of their CRC-32s): a query whose content words
    are exactly a title's shares the title's key."""
    return sum(zlib.crc32(s.encode()) for s in set(stems)) & 0xFFFFFFFF


def depth_prior(depths: np.ndarray) -> np.ndarray:
    """How much a page's depth below the base path leaves of its weights."""
    return 1.0 / (1.0 + DEPTH_PENALTY * depths.astype(np.float64))


class _Chunks:
    """Distinct chunks and what they analyse to, as flat arrays indexed by chunk id."""

    def __init__(self) -> None:
        self.ids = _Numbers()  # chunk -> its id
        self.terms = _Numbers()  # stem (or phrase) -> term id, in order of discovery
        self.words: dict[str, int] = {}  # written word -> term id
        self.plain: set[str] = set()  # written words that are not joined identifiers
        self.sources: set[str] = set()  # written words of titles, headings and symbols
        self._stem = stemmer()  # many words at a time

    def number(self, texts: Iterable[str], distinct: bool = False) -> tuple[np.ndarray, np.ndarray]:
        """Chunk ids of many texts, concatenated, and how many chunks each text has (each
        distinct text is cut into chunks once; `distinct`: the texts are)."""
        texts = texts if isinstance(texts, list) else list(texts)
        which = None
        if not distinct:
            numbers = _Numbers()
            which = np.fromiter(map(numbers.__getitem__, texts), dtype=np.int64, count=len(texts))
            texts = list(numbers)
        lists = list(map(chunks, texts))
        every = list(itertools.chain.from_iterable(lists))
        numbered = np.fromiter(map(self.ids.__getitem__, every), dtype=np.int64, count=len(every))
        per_text = np.fromiter(map(len, lists), dtype=np.int64, count=len(lists))
        if which is None:
            return numbered, per_text
        starts = np.cumsum(per_text) - per_text
        return numbered[ragged(starts[which], per_text[which])], per_text[which]

    def add_singulars(self) -> None:
        """The singular of each plural word, as a word of its own with the plural's term
        (`filters` -> `filter`): typo lookups search written words, and `filtr` is one edit
        from `filter`, two from `filters`."""
        plurals = [w for w in self.plain if len(w) > MIN_PLURAL and w[-1] == "s" and w[-2] != "s"]
        singulars = [w[:-1] for w in plurals]
        stems = self._stem(singulars)
        for plural, singular, stem in zip(plurals, singulars, stems, strict=True):
            term = self.words[plural]
            if singular not in self.words and self.terms.get(stem) == term:
                self.words[singular] = term
                self.plain.add(singular)
                if plural in self.sources:
                    self.sources.add(singular)

    def arrays(self, sources: Sequence[np.ndarray]) -> dict[str, np.ndarray]:
        """Analyse every numbered chunk: the flat arrays, by chunk id. A batch of chunks at a
        time, so that their tokens (many short-lived objects) never pile up in memory. The
        words of the chunks `sources` (ids) are what corrections may give (`self.sources`)."""
        source = np.zeros(len(self.ids), dtype=bool)
        for ids in sources:
            source[ids] = True
        every = iter(self.ids)
        batches = iter(lambda: list(itertools.islice(every, ANALYSED)), [])
        parts = [
            self._analyse(batch, source[at * ANALYSED : (at + 1) * ANALYSED])
            for at, batch in enumerate(batches)
        ] or [self._analyse([], source)]
        count, term, half, length, full_count, full = map(np.concatenate, zip(*parts, strict=True))
        del parts
        return {
            "start": np.concatenate([[0], np.cumsum(count)]),
            "count": count,
            "term": term,
            "half": half.astype(np.int8),
            "length": length,
            "full_start": np.concatenate([[0], np.cumsum(full_count)]),
            "full_count": full_count,
            "full": full,
        }

    def _analyse(self, batch: list[str], source: np.ndarray) -> tuple[np.ndarray, ...]:
        """The tokens of some chunks: how many each has, their term ids and half-weight flags,
        each chunk's length, and its full-weight content terms (count, then ids); the words
        of `source` chunks are kept in `self.sources`."""
        written, half, count = split_chunks(batch)
        total = len(written)
        words, terms = self.words, self.terms
        new = list(itertools.filterfalse(words.__contains__, dict.fromkeys(written)))
        words.update(zip(new, map(terms.__getitem__, self._stem(new)), strict=True))
        term = np.fromiter(map(words.__getitem__, written), dtype=np.int32, count=total)
        stop = np.fromiter(map(STOP_WORDS.__contains__, written), dtype=bool, count=total)
        owner = np.repeat(np.arange(len(batch)), count)  # the chunk of each token
        self.plain.update(itertools.compress(written, half | (count == 1)[owner]))
        self.sources.update(itertools.compress(written, source[owner]))
        weight = np.where(half, PART_WEIGHT, 1.0)
        weight[stop] = 0.0
        full = ~half & ~stop
        length = np.bincount(owner, weights=weight, minlength=len(batch))
        full_count = np.bincount(owner[full], minlength=len(batch))
        return count, term, half, length, full_count, term[full]


class _Numbers(dict[str, int]):
    """Strings numbered in order of first appearance, each when first asked for: numbering
    many is one pass in C (`map(numbers.__getitem__, ...)`) but for the new ones."""

    def __missing__(self, key: str) -> int:
        number = self[key] = len(self)
        return number


class _Field:
    """One field's tokens over all pages: term ids, half-weight flags, page of each token,
    and each page's length in the field."""

    def __init__(self, term: np.ndarray, half: np.ndarray, doc: np.ndarray, lengths: np.ndarray):
        self.term, self.half, self.doc, self.lengths = term, half, doc, lengths


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


def _field(
    found: dict[str, np.ndarray],
    ids: np.ndarray,
    per_text: np.ndarray,
    pages: np.ndarray,
    size: int,
) -> _Field:
    """The field of texts `pages[i]` made of chunks `ids` (`per_text[i]` of them each)."""
    chunk_page = np.repeat(pages, per_text)
    counts = found["count"][ids]
    at = ragged(found["start"][ids], counts)
    lengths = np.bincount(chunk_page, weights=found["length"][ids], minlength=size)
    doc = np.repeat(chunk_page, counts).astype(np.int32)
    return _Field(found["term"][at], found["half"][at], doc, lengths)


def build(
    pages: PageColumns,
    base_path: str = "",
    paths: list[str] | None = None,
    add: Callable[[str, np.ndarray], None] | None = None,
) -> dict[str, np.ndarray]:
    """The arrays of a search index over a manifest's pages (see `SearchIndex` for each);
    `paths` are their `page_path`s if the caller has them already. With `add`, arrays are
    handed to it as soon as they are made (and not returned), so that a million pages'
    are not all in memory at once."""
    made = _Made(add)
    size = len(pages)
    every = np.arange(size, dtype=np.int64)
    if paths is None:
        paths = page_paths(raw_paths_of(pages.url), base_path)
    # Pages share few (section, group) pairs: each pair's text is made once.
    pairs = dict.fromkeys(zip(pages.section, pages.group, strict=True))
    sections: dict[str, int] = {}
    for pair in pairs:
        pairs[pair] = sections.setdefault(section_text(*pair, base_path), len(sections))
    section_of = np.fromiter(
        map(pairs.__getitem__, zip(pages.section, pages.group, strict=True)),
        dtype=np.int64,
        count=size,
    )
    del pairs
    described = [i for i, d in enumerate(pages.description) if d]
    slashes = np.fromiter(map(str.count, paths, repeat("/")), dtype=np.int64, count=size)
    depths = np.minimum(slashes, 255).astype(np.uint8)
    analysis = _Chunks()
    title_ids, title_n = analysis.number(pages.title)
    slugs = list(map(itemgetter(2), map(str.rpartition, paths, repeat("/"))))
    slug_ids, slug_n = analysis.number(slugs)
    del slugs
    del paths
    section_ids, section_n = analysis.number(list(sections), distinct=True)
    text_ids, text_n = analysis.number(pages.description[i] for i in described)  # type: ignore[misc]
    headings = pages.headings
    text_chunks, text_n_chunks = analysis.number(headings.titles, distinct=True)
    symbols = pages.symbols
    found = analysis.arrays([title_ids, text_chunks])
    distinct = len(headings.titles)
    each_text = _field(found, text_chunks, text_n_chunks, np.arange(distinct), distinct)
    del text_chunks, text_n_chunks
    each_name = _symbol_tokens(analysis, symbols.names)

    fields = [_field(found, title_ids, title_n, every, size)]
    fields.append(_field(found, slug_ids, slug_n, every, size))
    rows = _field(found, section_ids, section_n, np.arange(len(sections)), len(sections))
    fields.append(_spread(rows, section_of, size))
    fields.append(_field(found, text_ids, text_n, np.array(described, dtype=np.int64), size))
    fields.append(_children(pages.url, fields[0]))
    stems, stem_page = _full_stems(found, title_ids, title_n, every)
    del found, title_ids, slug_ids, section_ids, text_ids, rows, section_of
    fields.append(_phrases(analysis, stems, stem_page, size))
    title_keys = _title_keys(analysis, stems, stem_page, size)
    del stems, stem_page
    shown = _not_symbols(headings, symbols)  # a heading that is a symbol counts as the symbol
    fields.append(_texts_of_pages(each_text, headings.title, headings.page, size, shown))
    rank = _term_ranks(analysis)  # (every term is known by now)
    made.update(_term_texts(each_text, rank))
    made.update(_symbol_terms(each_name, symbols.name, rank))
    made.update(_title_terms(fields[0], rank, size))
    del each_text
    fields.append(_symbol_field(each_name, symbols, size))  # (made as it is packed)
    del each_name
    made.update(_postings(analysis, fields, size, depth_prior(depths), rank))
    made.update({"title_key": title_keys, "doc_depth": depths})
    heading_text_of = np.frombuffer(headings.title, dtype=np.int_)
    made.update(build_vectors(pages.title, headings.titles, heading_text_of))  # needs the model
    return made.kept


class _Made:
    """The arrays made so far: handed to `add` at once, if given, else kept."""

    def __init__(self, add: Callable[[str, np.ndarray], None] | None) -> None:
        self.add = add
        self.kept: dict[str, np.ndarray] = {}

    def update(self, arrays: dict[str, np.ndarray]) -> None:
        if self.add is None:
            self.kept.update(arrays)
            return
        for name in list(arrays):
            self.add(name, arrays.pop(name))


def _not_symbols(headings: Headings, symbols: Symbols) -> np.ndarray | None:
    """Which headings are not also a symbol of their page (the same anchor: mkdocstrings
    gives each documented name a heading), or None when all are not. Only the headings
    whose anchor is some symbol's, and the symbols whose anchor is such a heading's, are
    compared by (page, anchor)."""
    if not len(symbols.page) or not len(headings.page):
        return None
    number = {anchor: at for at, anchor in enumerate(symbols.anchors)}
    as_symbol = np.array([number.get(a, -1) for a in headings.anchors] or [-1], dtype=np.int64)
    heading_anchor = np.frombuffer(headings.anchor, dtype=np.int_)
    mapped = np.where(heading_anchor >= 0, as_symbol[np.maximum(heading_anchor, 0)], -1)
    named = np.flatnonzero(mapped >= 0)  # headings whose anchor some symbol has
    if not len(named):
        return None
    width = len(symbols.anchors) + 1
    wanted = np.zeros(width, dtype=bool)  # (the last: no anchor)
    wanted[mapped[named]] = True
    symbol_anchor = np.frombuffer(symbols.anchor, dtype=np.int_)
    kept = np.flatnonzero(wanted[symbol_anchor])
    symbol_key = np.frombuffer(symbols.page, dtype=np.int_)[kept] * width + symbol_anchor[kept]
    heading_key = np.frombuffer(headings.page, dtype=np.int_)[named] * width + mapped[named]
    both = np.zeros(len(mapped), dtype=bool)
    both[named] = np.isin(heading_key, symbol_key)
    return None if not both.any() else ~both


def _texts_of_pages(
    each_text: _Field,
    text_of: array | np.ndarray,
    page_of: array | np.ndarray,
    size: int,
    keep: np.ndarray | None = None,
) -> _Field:
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
    return _Field(each_text.term[at], each_text.half[at], doc, lengths)


def name_terms(name: str) -> list[str]:
    """The terms a symbol's name is found by as a whole: its lower-cased dotted suffixes of
    two parts or more (`json.dumps`; `agent.run` of `agents.agent.Agent.run`), which no
    word is (words have no dots), so that a qualified name typed matches exactly, however
    many parts it has. A query looks up each of its dotted chunks so (see `SearchIndex`)."""
    parts = name.lower().split(".")
    return [".".join(parts[i:]) for i in range(len(parts) - 1) if parts[i] and parts[-1]]


DOTTED = re.compile(r"[^\W\d]\w*(?:\.[^\W\d]\w*)+")  # a dotted name as typed (`_` kept)


def dotted_names(text: str) -> list[str]:
    """The dotted names of a query, lower-cased, as `name_terms` files them."""
    if "." not in text:  # most queries: no need to try every place of the text
        return []
    return list(dict.fromkeys(m.lower() for m in DOTTED.findall(text)))


def _symbol_tokens(analysis: _Chunks, names: list[str]) -> _Field:
    """The symbol field's tokens of each distinct name (`doc`: the name's number): the words
    of `symbol_text` as written (lower-cased, not stemmed: `Style` is no match for
    `styles`), each as the term `SYMBOL + word`, and its `name_terms`. Terms of their own,
    so that a query weighs them by how it was typed (see `SearchIndex.plan`); the words
    are also what corrections may give. A name is analysed once, however many pages
    document it."""
    terms, words, sources = analysis.terms, analysis.words, analysis.sources
    term: list[int] = []
    half: list[bool] = []
    counts: list[int] = []
    lengths: list[float] = []
    for name in names:
        found: dict[str, float] = {}  # each word once, whole over part (the field's rule)
        for chunk in chunks(symbol_text(name)):
            for word, weight in split_chunk(chunk):
                found[word] = max(weight, found.get(word, 0.0))
        for word, weight in found.items():
            number = terms.setdefault(SYMBOL + word, len(terms))
            term.append(number)
            half.append(weight < 1.0)
            words.setdefault(word, number)  # a word only symbols have: corrected to this
            sources.add(word)
        extra = name_terms(name)
        last = name.rsplit(".", 1)[-1]
        if last:  # the last part exactly as written (case and underscores kept)
            extra.append(EXACT + last)
        term.extend(terms.setdefault(t, len(terms)) for t in extra)
        half.extend([False] * len(extra))
        counts.append(len(found) + len(extra))
        lengths.append(sum(found.values()) + len(extra))
    doc = np.repeat(np.arange(len(names), dtype=np.int32), counts)
    return _Field(
        np.array(term, dtype=np.int32),
        np.array(half, dtype=np.int8),
        doc,
        np.array(lengths, dtype=np.float64),
    )


class _Blocks(NamedTuple):
    """A field made a block of pages at a time as it is packed (see `_packed`): at most
    `most` tokens, in `blocks`."""

    most: int
    blocks: Iterator[_Field]


def _symbol_field(each_name: _Field, symbols: Symbols, size: int) -> _Blocks:
    """The symbol field: the tokens of every symbol's name (`each_name` is filed by distinct
    name) filed under its page, each term at most once a page (`_once`); made a block of
    pages at a time, so that a million pages' tens of millions of tokens are never all in
    memory but packed."""
    page = np.frombuffer(symbols.page, dtype=np.int_)
    name = np.frombuffer(symbols.name, dtype=np.int_)
    count = np.bincount(each_name.doc, minlength=len(each_name.lengths))
    ends = np.cumsum(count[name])  # where each symbol's tokens end
    blocks = (
        _once(_texts_of_pages(each_name, name[a:b], page[a:b], size), size)
        for a, b in _page_blocks(page, ends)
    )
    return _Blocks(int(ends[-1]) if len(ends) else 0, blocks)


def _page_blocks(page: np.ndarray, ends: np.ndarray) -> list[tuple[int, int]]:
    """Runs of entries (in page order) with about BLOCK * 4 tokens each (`ends`: where each
    entry's tokens end), never splitting a page."""
    bounds = [0]
    while bounds[-1] < len(page):
        start = bounds[-1]
        goal = (int(ends[start - 1]) if start else 0) + BLOCK * 4
        at = int(np.searchsorted(ends, goal, side="right"))
        at = max(at, start + 1)
        if at < len(page):  # to the end of that page
            at = int(np.searchsorted(page, page[at - 1], side="right"))
        bounds.append(min(at, len(page)))
    return list(itertools.pairwise(bounds))


def _once(field: _Field, size: int) -> _Field:
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
    return _Field(term, half, doc, lengths)


def _term_texts(each_text: _Field, rank: np.ndarray) -> dict[str, np.ndarray]:
    """Which distinct heading texts have each term (`term_text` from `term_text_start[term]`,
    ascending; a heading's text is `heading_title_id` in the page table), so that a hit names
    the heading that answers by one lookup per query term among all the shown pages'
    headings. Kept by text, not by heading: a million pages' seven million headings are half
    a million texts ("Examples", "See also")."""
    key = rank[each_text.term].astype(np.int64)
    key <<= 32
    key |= each_text.doc  # the text's number: `doc` of the texts' field
    key.sort()
    if len(key):  # a term twice in one text is one entry
        key = key[np.concatenate(([True], key[1:] != key[:-1]))]
    term_start = np.zeros(len(rank) + 1, dtype=np.int64)
    np.cumsum(np.bincount(key >> 32, minlength=len(rank)), out=term_start[1:])
    return {
        "term_text_start": narrow(term_start),
        "term_text": (key & ((1 << 32) - 1)).astype(np.int32),
    }


def _symbol_terms(each_name: _Field, name_of: array, rank: np.ndarray) -> dict[str, np.ndarray]:
    """Which symbols have each term (`term_symbol` from `term_symbol_start[term]`, symbols
    by their number over all pages, ascending), and how many tokens each has, so that a hit
    names the symbol that answers by a few binary searches in the page's range of symbols.
    A name's tokens are distinct (see `_symbol_tokens`), so each (term, symbol) pair is one
    packed key (term, symbol, part), and one sort of the keys makes the lists; the keys are
    made and read a block of symbols at a time (millions of symbols have tens of millions)."""
    name = np.frombuffer(name_of, dtype=np.int_)
    count = np.bincount(each_name.doc, minlength=len(each_name.lengths))  # doc is sorted
    start = np.cumsum(count) - count
    size = np.minimum(count[name], np.iinfo(np.uint16).max).astype(np.uint16)
    token = rank[each_name.term].astype(np.int64) << 33  # a distinct name's tokens, packed
    token |= each_name.half.astype(np.int64)
    ends = np.cumsum(count[name])
    key = np.empty(int(ends[-1]) if len(ends) else 0, dtype=np.int64)
    for a, b in _page_blocks(np.arange(len(name)), ends):  # (each symbol its own "page")
        tokens = count[name[a:b]]
        part = token[ragged(start[name[a:b]], tokens)]
        symbol = np.repeat(np.arange(a, b, dtype=np.int64), tokens)
        symbol <<= 1
        part |= symbol
        first = int(ends[a - 1]) if a else 0
        key[first : first + len(part)] = part
    key.sort()
    per_term = np.zeros(len(rank), dtype=np.int64)
    term_symbol = np.empty(len(key), dtype=np.int32)
    part_of = np.empty(len(key), dtype=bool)
    for a in range(0, len(key), BLOCK):
        block = key[a : a + BLOCK]
        per_term += np.bincount(block >> 33, minlength=len(rank))
        term_symbol[a : a + BLOCK] = (block >> 1) & ((1 << 32) - 1)
        part_of[a : a + BLOCK] = block & 1
    del key
    term_start = np.zeros(len(rank) + 1, dtype=np.int64)
    np.cumsum(per_term, out=term_start[1:])
    return {
        "term_symbol_start": narrow(term_start),
        "term_symbol": term_symbol,
        "term_symbol_part": part_of,  # only a part of a joined word of the name
        "symbol_size": size,  # tokens of each symbol's name: the fewer, the more specific
    }


def _title_terms(titles: _Field, rank: np.ndarray, size: int) -> dict[str, np.ndarray]:
    """Every page's title terms (`title_term` from `title_term_start[page]`): a query word
    its title has is no reason to point into the page."""
    start = np.zeros(size + 1, dtype=np.int64)
    np.cumsum(np.bincount(titles.doc, minlength=size), out=start[1:])
    return {"title_term_start": narrow(start), "title_term": rank[titles.term].astype(np.int32)}


def _term_ranks(analysis: _Chunks) -> np.ndarray:
    """Each term id's place in sorted term order: the term numbers the index uses."""
    ordered_terms = sorted(analysis.terms)
    rank = np.empty(len(ordered_terms), dtype=np.int64)
    found = map(analysis.terms.__getitem__, ordered_terms)
    rank[np.fromiter(found, dtype=np.int64, count=len(ordered_terms))] = np.arange(len(rank))
    return rank


def _spread(rows: _Field, row_of: np.ndarray, size: int) -> _Field:
    """A field shared by many pages (their section): each page gets its row's tokens."""
    order = np.argsort(rows.doc, kind="stable")
    term, half, row = rows.term[order], rows.half[order], rows.doc[order]
    per_row = np.bincount(row, minlength=len(rows.lengths))
    starts = np.concatenate([[0], np.cumsum(per_row)[:-1]])
    counts = per_row[row_of]
    at = ragged(starts[row_of], counts)
    doc = np.repeat(np.arange(size, dtype=np.int32), counts)
    return _Field(term[at], half[at], doc, rows.lengths[row_of])


def _children(urls: Sequence[str], titles: _Field) -> _Field:
    """The children field: every title's tokens, filed under the page one URL level up."""
    trimmed = list(map(str.rstrip, urls, repeat("/")))
    by_url = dict(zip(trimmed, itertools.count()))
    # A URL's parent is its trimmed URL without the last segment. No trimmed URL ends with
    # "/", so a head like "https:/" or "https://host/" (of "https://host//x") finds nothing.
    heads = map(itemgetter(0), map(str.rpartition, trimmed, repeat("/")))
    parent = np.fromiter(map(by_url.get, heads, repeat(-1)), dtype=np.int64, count=len(urls))
    del trimmed, by_url
    parent[parent == np.arange(len(urls))] = -1
    keep = parent[titles.doc] >= 0
    has_parent = parent >= 0
    lengths = np.bincount(
        parent[has_parent], weights=titles.lengths[has_parent], minlength=len(urls)
    )
    doc = parent[titles.doc[keep]].astype(np.int32)
    return _Field(titles.term[keep], titles.half[keep], doc, lengths)


def _full_stems(
    found: dict[str, np.ndarray], ids: np.ndarray, per_text: np.ndarray, pages: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """The full-weight content stems of texts, in order, and the page of each."""
    chunk_page = np.repeat(pages, per_text)
    counts = found["full_count"][ids]
    stems = found["full"][ragged(found["full_start"][ids], counts)].astype(np.int64)
    return stems, np.repeat(chunk_page, counts)


def _phrases(analysis: _Chunks, stems: np.ndarray, page: np.ndarray, size: int) -> _Field:
    """The phrase field: each title's adjacent content stems, as terms `a b`."""
    texts = list(analysis.terms)
    lengths = np.array([len(t) for t in texts], dtype=np.int64)
    a, b = stems[:-1], stems[1:]
    keep = (page[:-1] == page[1:]) & (lengths[a] + lengths[b] < MAX_TOKEN_LENGTH)
    a, b, doc = a[keep], b[keep], page[:-1][keep]
    pairs, which = distinct(a * len(texts) + b)
    ids = [
        analysis.terms.setdefault(
            f"{texts[p // len(texts)]} {texts[p % len(texts)]}", len(analysis.terms)
        )
        for p in pairs.tolist()
    ]
    term = np.array(ids, dtype=np.int32)[which] if len(ids) else np.zeros(0, dtype=np.int32)
    lengths = np.bincount(doc, minlength=size).astype(np.float64)
    return _Field(term, np.zeros(len(term), dtype=np.int8), doc.astype(np.int32), lengths)


def _title_keys(analysis: _Chunks, stems: np.ndarray, page: np.ndarray, size: int) -> np.ndarray:
    """`content_key` of every title, from the title's distinct content stems."""
    texts = list(analysis.terms)
    crc = np.zeros(len(texts), dtype=np.float64)
    pairs, _ = distinct(page * len(crc) + stems)
    used = distinct(pairs % len(crc))[0]
    crc[used] = [zlib.crc32(texts[t].encode()) for t in used.tolist()]
    total = np.bincount(pairs // len(crc), weights=crc[pairs % len(crc)], minlength=size)
    return (total.astype(np.uint64) & 0xFFFFFFFF).astype(np.uint32)


def _postings(
    analysis: _Chunks,
    fields: list[_Field | _Blocks],
    size: int,
    prior: np.ndarray,
    rank: np.ndarray,
) -> dict[str, np.ndarray]:
    ordered_terms = sorted(analysis.terms)
    doc_bits = max(1, size.bit_length())
    key, field_lengths = _packed(fields, rank, doc_bits, size)
    lengths = np.stack(field_lengths) if size else np.zeros((len(FIELDS), 0))
    del field_lengths
    averages = np.maximum(lengths.mean(axis=1) if size else np.ones(len(FIELDS)), 1e-9)
    # What one occurrence weighs in each field of each page: field weight / length norm.
    b = np.asarray(FIELD_B)[:, None]
    scale = np.asarray(FIELD_WEIGHTS)[:, None] / ((1.0 - b) + b * lengths / averages[:, None])
    scale = scale.astype(np.float32).ravel()
    del lengths
    # numpy sorts without the GIL: the vocabulary (all Python) is made meanwhile.
    with ThreadPoolExecutor(1) as pool:
        sorting = pool.submit(key.sort)
        arrays = {"terms": sorted_strings(ordered_terms)}
        analysis.add_singulars()
        arrays.update(build_words(analysis.words, analysis.sources, rank))
        sorting.result()
    new = _run_starts(key)
    df, post_doc, tf = _merge_runs(key, new, scale, size, doc_bits, len(ordered_terms))
    del key, new, scale

    term_idf = idf(df.astype(np.float64), size)
    post_term = np.repeat(np.arange(len(df), dtype=np.int32), df)  # (made once the keys are gone)
    post_weight = _weights(term_idf, tf, prior, post_term, post_doc)
    del tf, post_term
    post_start = np.zeros(len(ordered_terms) + 1, dtype=np.int64)
    np.cumsum(df, out=post_start[1:])
    term_max = np.zeros(len(ordered_terms), dtype=np.float32)
    if len(post_weight):
        used = df > 0
        term_max[used] = np.maximum.reduceat(post_weight, post_start[:-1][used])
    arrays.update(
        term_idf=np.asarray(term_idf, dtype=np.float32),
        term_max=term_max,
        post_start=post_start,
        post_doc=post_doc,
        post_weight=post_weight,
        field_avg=averages.astype(np.float64),
        word_df=df[arrays["word_term"]].astype(np.int32),
    )
    arrays.update(_impacts(post_start, post_doc, post_weight, df))
    return arrays


def _packed(
    fields: list[_Field | _Blocks], rank: np.ndarray, doc_bits: int, size: int
) -> tuple[np.ndarray, list[np.ndarray]]:
    """Every token as one 64-bit key (term rank, page, field, half weight), field by field
    (a field made in blocks, block by block) and BLOCK tokens at a time (no temporary is
    larger than a block); each field is freed once packed. And each field's page lengths."""
    most = sum(f.most if isinstance(f, _Blocks) else len(f.term) for f in fields)
    key = np.empty(most, dtype=np.int64)
    lengths = []
    at = 0
    for i in range(len(fields)):
        field = fields[i]
        fields[i] = None  # type: ignore[call-overload]  # freed once packed
        parts = field.blocks if isinstance(field, _Blocks) else iter([field])
        total = np.zeros(size)
        for part in parts:
            _pack(key[at : at + len(part.term)], part, rank, doc_bits, i)
            at += len(part.term)
            total += part.lengths
        lengths.append(total)
    return key[:at], lengths


def _pack(key: np.ndarray, field: _Field, rank: np.ndarray, doc_bits: int, number: int) -> None:
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


def _run_starts(key: np.ndarray) -> np.ndarray:
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


def _merge_runs(
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


def _weights(
    term_idf: np.ndarray,
    tf: np.ndarray,
    prior: np.ndarray,
    post_term: np.ndarray,
    post_doc: np.ndarray,
) -> np.ndarray:
    """Each posting's final weight: BM25 saturation of its frequency, times its term's IDF
    and its page's depth prior; element by element, so worked through in blocks."""
    weight = np.empty(len(tf), dtype=np.float32)
    for a in range(0, len(tf), BLOCK):
        b = min(len(tf), a + BLOCK)
        freq = tf[a:b].astype(np.float64)
        saturated = term_idf[post_term[a:b]] * freq * (K1 + 1) / (K1 + freq)
        weight[a:b] = saturated * prior[post_doc[a:b]]
    return weight


def _impacts(
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
