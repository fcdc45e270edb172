"""The symbol field: a page's API names as terms of their own (`§word`, dotted names,
`=Name`), which pages document each, and which symbol has each term (so a hit can name the
symbol that answers). Part of `pinax.search.indexing.build`.
"""

from __future__ import annotations

import itertools
import re
from array import array
from collections.abc import Callable

import numpy as np

from pinax.manifest import Headings, Symbols, narrow
from pinax.search.postings import BLOCK, Blocks, Field, once, ragged, texts_of_pages
from pinax.search.tokens import chunks

EXACT = "="  # ...and `=Name`: a symbol's last part exactly as written (no word has `=`)
SYMBOL = "\u00a7"  # `§`: the symbol field's words are terms of their own, `§word` (no word has it)


def symbol_text(name: str) -> str:
    """What a symbol is indexed as: its name and every dotted suffix of it
    (`json.decoder.JSONDecoder JSONDecoder`...), so that the name is found whole however
    much of its qualification is typed (`Agent.run` of `agents.agent.Agent.run`)."""
    parts = name.split(".")
    return " ".join(".".join(parts[i:]) for i in range(len(parts)) if parts[i])


def not_symbols(headings: Headings, symbols: Symbols) -> np.ndarray | None:
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


def symbol_tokens(
    terms: dict[str, int],
    words: dict[str, int],
    sources: set[str],
    names: list[str],
    split: Callable[[str], list[tuple[str, float]]],
) -> Field:
    """The symbol field's tokens of each distinct name (`doc`: the name's number): the words
    of `symbol_text` as written (lower-cased, not stemmed: `Style` is no match for
    `styles`), each as the term `SYMBOL + word`, and its `name_terms`. Terms of their own,
    so that a query weighs them by how it was typed (see `SearchIndex.plan`); the words
    are also what corrections may give (into `terms`, `words` and `sources`, the
    build's numbering; `split` cuts a chunk into words). A name is analysed once, however
    many pages document it."""
    term: list[int] = []
    half: list[bool] = []
    counts: list[int] = []
    lengths: list[float] = []
    for name in names:
        found: dict[str, float] = {}  # each word once, whole over part (the field's rule)
        for chunk in chunks(symbol_text(name)):
            for word, weight in split(chunk):
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
    return Field(
        np.array(term, dtype=np.int32),
        np.array(half, dtype=np.int8),
        doc,
        np.array(lengths, dtype=np.float64),
    )


def symbol_field(each_name: Field, symbols: Symbols, size: int) -> Blocks:
    """The symbol field: the tokens of every symbol's name (`each_name` is filed by distinct
    name) filed under its page, each term at most once a page (`once`); made a block of
    pages at a time, so that a million pages' tens of millions of tokens are never all in
    memory but packed."""
    page = np.frombuffer(symbols.page, dtype=np.int_)
    name = np.frombuffer(symbols.name, dtype=np.int_)
    count = np.bincount(each_name.doc, minlength=len(each_name.lengths))
    ends = np.cumsum(count[name])  # where each symbol's tokens end
    blocks = (
        once(texts_of_pages(each_name, name[a:b], page[a:b], size), size)
        for a, b in _page_blocks(page, ends)
    )
    return Blocks(int(ends[-1]) if len(ends) else 0, blocks)


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


def symbol_terms(each_name: Field, name_of: array, rank: np.ndarray) -> dict[str, np.ndarray]:
    """Which symbols have each term (`term_symbol` from `term_symbol_start[term]`, symbols
    by their number over all pages, ascending), and how many tokens each has, so that a hit
    names the symbol that answers by a few binary searches in the page's range of symbols.
    A name's tokens are distinct (see `symbol_tokens`), so each (term, symbol) pair is one
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
