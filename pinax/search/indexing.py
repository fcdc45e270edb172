"""Building a search index: from a manifest's pages to BM25F postings in numpy arrays.

A page is found by eight fields, weighted as measured on the DEV retrieval sets (see
bench/eval_search.py and bench/eval_sections.py): title and URL slug 1.0 each, section (plus
group) 0.5, description 0.5, the titles of the pages one URL level below it 0.2, its title's
phrases (adjacent pairs of content words, terms of their own that queries look up at a fifth
of a word's weight), the headings of its outline 0.5, barely length-normalised, and its API
symbols 1.5 (terms of their own: `§word`, dotted names, `=Name`; see `symbol_tokens`,
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
import zlib
from collections.abc import Callable, Iterable, Sequence
from concurrent.futures import ThreadPoolExecutor
from itertools import repeat
from operator import itemgetter
from urllib.parse import unquote

import numpy as np

from pinax.manifest import PageColumns, narrow, raw_path, raw_paths_of
from pinax.search.postings import (
    Blocks,
    Field,
    distinct,
    idf,
    impacts,
    merge_runs,
    packed,
    posting_weights,
    ragged,
    run_starts,
    texts_of_pages,
)
from pinax.search.ranking import RANKING
from pinax.search.semantic import build_vectors
from pinax.search.symbol_field import (
    not_symbols,
    symbol_field,
    symbol_terms,
    symbol_tokens,
)
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

FIELDS = ("title", "slug", "section", "description", "children", "phrase", "heading", "symbol")
# The rules folded into the postings (see `pinax.search.ranking`, where each is measured).
FIELD_WEIGHTS, FIELD_B = RANKING.field_weights, RANKING.field_b
K1 = RANKING.k1
DEPTH_PENALTY = RANKING.depth_penalty
FORMAT = 9  # bump when the arrays or what they mean change (tokens, fields, weights)
# (9: in the symbol field, each segment of a dotted name joined as a word of its own
# (tokens.split_chunk); not in the text fields, where it moved section recall at rank 10
# both ways and lost more than it won: bench.quality.eval_sections)
ANALYSED = 1 << 18  # distinct chunks analysed at a time
MIN_PLURAL = 4  # shorter words ending in s are not taken for plurals


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
        written, half, count = split_chunks(batch, segments=False)  # see FORMAT 9
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


def _field(
    found: dict[str, np.ndarray],
    ids: np.ndarray,
    per_text: np.ndarray,
    pages: np.ndarray,
    size: int,
) -> Field:
    """The field of texts `pages[i]` made of chunks `ids` (`per_text[i]` of them each)."""
    chunk_page = np.repeat(pages, per_text)
    counts = found["count"][ids]
    at = ragged(found["start"][ids], counts)
    lengths = np.bincount(chunk_page, weights=found["length"][ids], minlength=size)
    doc = np.repeat(chunk_page, counts).astype(np.int32)
    return Field(found["term"][at], found["half"][at], doc, lengths)


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
    each_name = symbol_tokens(
        analysis.terms, analysis.words, analysis.sources, symbols.names, split_chunk
    )

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
    shown = not_symbols(headings, symbols)  # a heading that is a symbol counts as the symbol
    fields.append(texts_of_pages(each_text, headings.title, headings.page, size, shown))
    rank = _term_ranks(analysis)  # (every term is known by now)
    made.update(_term_texts(each_text, rank))
    made.update(symbol_terms(each_name, symbols.name, rank))
    made.update(_title_terms(fields[0], rank, size))
    del each_text
    fields.append(symbol_field(each_name, symbols, size))  # (made as it is packed)
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


def _term_texts(each_text: Field, rank: np.ndarray) -> dict[str, np.ndarray]:
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


def _title_terms(titles: Field, rank: np.ndarray, size: int) -> dict[str, np.ndarray]:
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


def _spread(rows: Field, row_of: np.ndarray, size: int) -> Field:
    """A field shared by many pages (their section): each page gets its row's tokens."""
    order = np.argsort(rows.doc, kind="stable")
    term, half, row = rows.term[order], rows.half[order], rows.doc[order]
    per_row = np.bincount(row, minlength=len(rows.lengths))
    starts = np.concatenate([[0], np.cumsum(per_row)[:-1]])
    counts = per_row[row_of]
    at = ragged(starts[row_of], counts)
    doc = np.repeat(np.arange(size, dtype=np.int32), counts)
    return Field(term[at], half[at], doc, rows.lengths[row_of])


def _children(urls: Sequence[str], titles: Field) -> Field:
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
    return Field(titles.term[keep], titles.half[keep], doc, lengths)


def _full_stems(
    found: dict[str, np.ndarray], ids: np.ndarray, per_text: np.ndarray, pages: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """The full-weight content stems of texts, in order, and the page of each."""
    chunk_page = np.repeat(pages, per_text)
    counts = found["full_count"][ids]
    stems = found["full"][ragged(found["full_start"][ids], counts)].astype(np.int64)
    return stems, np.repeat(chunk_page, counts)


def _phrases(analysis: _Chunks, stems: np.ndarray, page: np.ndarray, size: int) -> Field:
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
    return Field(term, np.zeros(len(term), dtype=np.int8), doc.astype(np.int32), lengths)


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
    fields: list[Field | Blocks],
    size: int,
    prior: np.ndarray,
    rank: np.ndarray,
) -> dict[str, np.ndarray]:
    ordered_terms = sorted(analysis.terms)
    doc_bits = max(1, size.bit_length())
    key, field_lengths = packed(fields, rank, doc_bits, size)
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
    new = run_starts(key)
    df, post_doc, tf = merge_runs(key, new, scale, size, doc_bits, len(ordered_terms))
    del key, new, scale

    term_idf = idf(df.astype(np.float64), size)
    post_term = np.repeat(np.arange(len(df), dtype=np.int32), df)  # (made once the keys are gone)
    post_weight = posting_weights(term_idf, tf, prior, post_term, post_doc, K1)
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
    arrays.update(impacts(post_start, post_doc, post_weight, df))
    return arrays
