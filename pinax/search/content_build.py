"""Building the content index: each section's plain text, its words counted, postings sorted.

The text work is most of a build (a 100,000-page set is ~0.7 GB of text): it is done a batch
of sections at a time (`analyse`), in worker processes when the input is large, and merged in
input order, so the arrays are the same however many workers there were. A batch goes through
few Python operations per word: ASCII text is cut into pieces by a byte table and a split,
a piece's words (identifiers cut by the regular expression, each word stemmed) are worked out
once a process and remembered, and words are counted by one sort of numbers. Page text is
kept compressed in blocks of sections (`_blocks`, `dictionary`) for snippets.
"""

from __future__ import annotations

import functools
import itertools
import logging
import re
import threading
import zlib
from collections import deque
from collections.abc import Callable, Iterable
from concurrent.futures import CancelledError, Future
from dataclasses import dataclass
from typing import NamedTuple

import numpy as np

from pinax.manifest import PageTable, PageText, Strings
from pinax.search.content import K1, POSTINGS_READ, RAW_DEFLATE, WINDOW, B, plain
from pinax.search.postings import idf, ragged
from pinax.search.tokens import CHUNK, STOP_WORDS, chunks, split_chunks, stemmer
from pinax.workers import WorkerError, Workers, worth_starting

log = logging.getLogger("pinax.search")

BATCH = 20_000  # sections analysed at a time
WORKERS = 2  # processes analysing batches of a large input (at most; 0: none)
IN_FLIGHT = 2  # batches queued per worker (bounds the memory a build holds)
ZLIB_LEVEL = 4  # a page's text: 3% larger than at 6, in two thirds of the time
BLOCK = 4096  # bytes of text a block of sections holds, at least (see `_blocks`)
DICTIONARY_SECTIONS, DICTIONARY_HEAD = 128, 256  # what `dictionary` takes
_BREAK = "\x01"  # between sections cut into words together
WEIGHED = 1 << 20  # postings weighed at a time (see `_impacts`)
# ASCII characters of chunks (and the break) kept, every other byte a space.
_CHUNK_BYTES = bytes(
    c if chr(c).isalnum() or chr(c) in "._-/:" + _BREAK else 32 for c in range(128)
) + bytes([32] * 128)

_ASCII_POSSESSIVE = re.compile(r"'s\b")  # `pinax.search.tokens`' possessive, in ASCII text
Page = tuple[str, tuple[str, ...], tuple[str, ...]]  # title, headings, texts (the lead first)


@dataclass
class Built:
    """What a build found besides the index: pages not in the manifest, sections that did not
    match the outline."""

    arrays: dict[str, np.ndarray]
    skipped_pages: int = 0
    unmatched_sections: int = 0


class Analysed(NamedTuple):
    """One batch's text work: its pages' texts compressed in blocks (see `_blocks`), the
    first section of each block, each section's place in its block's text, and the batch's
    (section, stem, weighted count) triples with its stems and section lengths."""

    blobs: list[bytes]
    block_first: np.ndarray
    offsets: np.ndarray
    stems: list[str]
    section: np.ndarray
    stem: np.ndarray
    tf: np.ndarray
    lengths: np.ndarray


def build(pages: Iterable[PageText], table: PageTable, workers: int | None = None) -> Built:
    """The arrays of the content index of a manifest's pages (`table`): sections joined to
    their page by URL and to its outline by position (a page whose sections differ from its
    outline keeps its own headings, without anchors). A large input is analysed by
    `workers` processes (default `WORKERS`, fewer on fewer CPUs)."""
    builder = _Builder(table, worth_starting(WORKERS) if workers is None else workers)
    try:
        for page in pages:
            builder.add(page)
        return builder.finish()
    finally:
        builder.close()


class _Builder:
    def __init__(self, table: PageTable, workers: int) -> None:
        self.table = table
        self.workers = workers
        self.pool: Workers | None = None
        self.pending: deque[tuple[list[Page], Future[Analysed] | None]] = deque()
        self.result = Built({})
        self.seen: set[int] = set()
        self.urls: dict[str, int] | None = None  # URL -> page number
        self.stems: dict[str, int] = {}  # stem -> term
        self.batch: list[Page] = []
        self.batch_sections = 0
        self.analysed_sections = 0  # sections of the batches merged so far
        self.parts: list[tuple[np.ndarray, np.ndarray, np.ndarray]] = []  # section, term, tf
        self.lengths: list[np.ndarray] = []
        self.offsets: list[np.ndarray] = []
        self.blobs: list[bytes] = []  # each block of text, compressed
        self.block_first: list[np.ndarray] = []
        self.zdict: bytes | None = None  # what blocks are compressed against (see `dictionary`)
        self.section_page: list[int] = []
        self.section_heading: list[int] = []  # the outline heading (global number), -1 none
        self.headings: list[str] = []
        self.page_doc: list[int] = []
        self.page_first: list[int] = []
        self.fetched: list[str] = []

    def add(self, page: PageText) -> None:
        if self.urls is None:  # one look at every URL, not a search of them per page
            self.urls = {}
            for doc in range(len(self.table)):
                self.urls.setdefault(self.table.url(doc), doc)
        doc = self.urls.get(page.url, -1)
        if doc < 0 and page.url[-1:] != "/":
            doc = self.urls.get(page.url.rstrip("/") + "/", -1)
        if doc < 0 or doc in self.seen:
            self.result.skipped_pages += 1
            return
        self.seen.add(doc)
        start = self.table.outline_start.item(doc)
        headed = self.table.outline_start.item(doc + 1) - start  # the outline's headings
        sections = page.sections
        matched = (
            len(sections) == headed + 1
            and all(  # (headings read only to compare)
                s.level == h.level and s.heading == h.title
                for s, h in zip(
                    sections[1:], map(self.table.heading, range(start, start + headed)), strict=True
                )
            )
        )
        if headed and not matched:  # (a page without an outline has only its own headings)
            self.result.unmatched_sections += len(sections) - 1
        title = self.table.title(doc)
        self.page_doc.append(doc)
        self.page_first.append(len(self.section_page))
        self.fetched.append(page.fetched_at or "")
        count = len(sections)
        self.section_page.extend([doc] * count)
        if matched:
            self.section_heading.extend([-1, *range(start, start + count - 1)])
            self.headings.extend([""] * count)  # the outline's
        else:
            self.section_heading.extend([-1] * count)
            self.headings.extend(["", *(s.heading for s in sections[1:])])
        headings = (title, *(s.heading for s in sections[1:])) if count else ()
        self.batch.append((title, headings, tuple(s.text for s in sections)))
        self.batch_sections += count
        if self.batch_sections >= BATCH:
            self._send()

    def _send(self) -> None:
        """Hand the gathered batch over: to a worker once the input proves large (a second
        batch), else analysed here."""
        batch, self.batch, self.batch_sections = self.batch, [], 0
        if not batch:
            return
        if self.zdict is None:  # (the first batch's)
            self.zdict = dictionary(batch)
        if self.pool is None and self.workers and self.pending:
            try:
                self.pool = Workers(self.workers)
            except WorkerError as exc:
                log.warning("content build without workers: %s", exc)
                self.workers = 0
        work = (batch, self.zdict)
        self.pending.append((batch, self.pool.submit(work) if self.pool is not None else None))
        while len(self.pending) > max(1, self.workers * IN_FLIGHT):
            self._merge(*self.pending.popleft())

    def _merge(self, batch: list[Page], done: Future[Analysed] | None) -> None:
        """Merge a batch's analysis (made here if its worker failed), in input order."""
        part = None
        if done is not None:
            try:
                part = done.result()
            except (WorkerError, CancelledError) as exc:
                log.warning("content build without workers: %s", exc or "stopped")
                self.close()
        if part is None:
            part = analyse(batch, self.zdict or b"")
        first = self.analysed_sections
        terms = np.fromiter(
            (self.stems.setdefault(s, len(self.stems)) for s in part.stems),
            dtype=np.int32,
            count=len(part.stems),
        )
        self.parts.append((part.section + first, terms[part.stem], part.tf))
        self.lengths.append(part.lengths)
        self.offsets.append(part.offsets)
        self.blobs.extend(part.blobs)
        self.block_first.append(part.block_first + first)
        self.analysed_sections += len(part.lengths)

    def close(self) -> None:
        """Stop the worker processes, if any (again: nothing)."""
        if self.pool is not None:
            self.pool.close()
        self.pool, self.workers = None, 0

    def finish(self) -> Built:
        self._send()
        while self.pending:
            self._merge(*self.pending.popleft())
        self.close()  # the arrays below need no workers
        size = len(self.section_page)
        arrays = self.result.arrays
        if self.parts:
            section, term, tf = (np.concatenate(p) for p in zip(*self.parts, strict=True))
        else:
            section = np.zeros(0, np.int32)
            term = np.zeros(0, np.int32)
            tf = np.zeros(0, np.float32)
        self.parts = []
        lengths = np.concatenate(self.lengths) if self.lengths else np.zeros(0)
        # Terms numbered in sorted order of their text, so a query finds one by bisection.
        texts = sorted(self.stems)
        rank = np.empty(len(texts), dtype=np.int32)
        rank[np.fromiter(map(self.stems.__getitem__, texts), dtype=np.int64, count=len(texts))] = (
            np.arange(len(texts))
        )
        term = rank[term] if len(term) else term
        df = np.bincount(term, minlength=len(texts))
        term_idf = idf(df, max(size, 1)).astype(np.float32)
        average = float(lengths.mean()) if size else 1.0
        norm = K1 * (1 - B + B * lengths / max(average, 1e-9))
        impact = _impacts(term_idf, term, tf, norm, section)
        del tf
        # A weight in a byte: 1..255 of its term's strongest.
        term_max = np.zeros(len(texts), dtype=np.float32)
        np.maximum.at(term_max, term, impact)
        levels = _levels(impact, np.maximum(term_max / 255, 1e-30), term)
        del impact
        order = _by_term_and_level(term, levels, len(texts))
        # A query reads a term's `POSTINGS_READ` strongest postings: the rest are not kept.
        start = np.zeros(len(texts) + 1, dtype=np.int64)
        np.cumsum(df, out=start[1:])
        kept_count = np.minimum(df, POSTINGS_READ)
        post_start = np.zeros(len(texts) + 1, dtype=np.int64)
        np.cumsum(kept_count, out=post_start[1:])
        order = order[ragged(start[:-1], kept_count)]
        levels = levels[order]
        arrays.update(Strings.arrays(texts, "content_terms"))
        # Each term's first 8 bytes, sorted as the terms are (UTF-8 sorts as the text does):
        # a query term's few candidates are found by one search in C.
        arrays["content_term_prefix"] = np.array([text.encode()[:8] for text in texts], dtype="S8")
        arrays.update(Strings.arrays(self.headings, "content_heading"))
        arrays.update(Strings.arrays(self.fetched, "content_fetched"))
        arrays.update(
            {
                "content_idf": term_idf,
                "content_post_start": post_start,
                "content_post_section": section_ids(section[order], size),
                "content_post_level": levels,
                "content_term_quantum": (term_max / 255).astype(np.float32),
                "content_section_page": np.array(self.section_page, dtype=np.int32),
                "content_section_heading": np.array(self.section_heading, dtype=np.int32),
                "content_section_offset": (
                    np.concatenate(self.offsets) if self.offsets else np.zeros(0, np.uint32)
                ),
                "content_page_doc": np.array(self.page_doc, dtype=np.int32),
                "content_page_first": np.array([*self.page_first, size], dtype=np.int64),
            }
        )
        block_start = np.zeros(len(self.blobs) + 1, dtype=np.int64)
        np.cumsum([len(b) for b in self.blobs], out=block_start[1:])
        arrays["content_block_start"] = block_start
        arrays["content_block_first"] = np.concatenate(
            [*self.block_first, np.array([size], dtype=np.int64)]
        )
        arrays["content_blob"] = np.frombuffer(b"".join(self.blobs), dtype=np.uint8)
        arrays["content_zdict"] = np.frombuffer(self.zdict or b"", dtype=np.uint8)
        self.blobs = []
        return self.result


def _impacts(
    term_idf: np.ndarray, term: np.ndarray, tf: np.ndarray, norm: np.ndarray, section: np.ndarray
) -> np.ndarray:
    """Each posting's BM25 weight, `WEIGHED` postings at a time (the same numbers as in one
    go, with temporaries that stay in the processor's cache: 2.4 times faster)."""
    impact = np.empty(len(term), dtype=np.float32)
    for start in range(0, len(term), WEIGHED):
        at = slice(start, start + WEIGHED)
        counts = tf[at]
        impact[at] = term_idf[term[at]] * counts * (K1 + 1) / (counts + norm[section[at]])
    return impact


def _levels(impact: np.ndarray, quantum: np.ndarray, term: np.ndarray) -> np.ndarray:
    """Each weight as a byte, 1..255 of its term's `quantum`s, `WEIGHED` postings at a time."""
    levels = np.empty(len(impact), dtype=np.uint8)
    for start in range(0, len(impact), WEIGHED):
        at = slice(start, start + WEIGHED)
        levels[at] = np.clip(np.rint(impact[at] / quantum[term[at]]), 1, 255)
    return levels


def _by_term_and_level(term: np.ndarray, levels: np.ndarray, terms: int) -> np.ndarray:
    """The order of postings by term, then by descending weight, then as given (by section):
    stable radix sorts in numpy, of 16 bits at a time (a general sort of tens of millions of
    keys took several times longer): first a term's low byte with the weight, then the
    term's next 16 bits (two passes for up to 2^24 terms)."""
    if terms > 1 << 24:  # (a byte of weight, then 16 bits of term at a time)
        order = np.argsort(np.uint8(255) - levels, kind="stable")
        for shift in (0, 16):
            digits = ((term[order] >> shift) & 0xFFFF).astype(np.uint16)
            order = order[np.argsort(digits, kind="stable")]
        return order
    low = ((term & 0xFF).astype(np.uint16) << 8) | (np.uint8(255) - levels)
    order = np.argsort(low, kind="stable")
    if terms <= 1 << 8:
        return order
    high = (term >> 8).astype(np.uint16)[order]
    return order[np.argsort(high, kind="stable")]


def section_ids(ids: np.ndarray, count: int) -> np.ndarray:
    """Posted section numbers (most of the index) in the fewest bytes that number `count`
    sections: 2, 3 (little-endian bytes, one spare at the end, read by
    `ContentIndex._posted`) or 4."""
    if count <= 1 << 16:
        return ids.astype(np.uint16)
    if count > 1 << 24:
        return ids.astype(np.int32)
    packed = np.zeros(3 * len(ids) + 1, dtype=np.uint8)
    wide = ids.astype("<u4").view(np.uint8).reshape(-1, 4)
    for byte in range(3):
        packed[byte:-1:3] = wide[:, byte]
    return packed


# -- one batch's text work (in a worker process, or here) -------------------------------------


class _Words(threading.local):
    """What a thread has learnt of the pieces of text it has seen (most pieces of a batch
    were in the last): each piece's words, as numbered stems (stop words left out), each
    word's stem, and its stemmer (not safe to share)."""

    def __init__(self) -> None:
        self.stems: dict[str, str] = {}  # word -> stem
        self.numbers: dict[str, int] = {}  # stem -> its number in this thread
        self.names: list[str] = []  # number -> stem
        self.pieces: dict[str, bytes] = {}  # piece -> its words (see `_piece_words`)
        self.stem_all = stemmer()

    def forget(self) -> None:
        """Start afresh once a bound is passed (a new piece's words need its stems' numbers)."""
        if len(self.pieces) > _MAX_PIECES or len(self.numbers) > _MAX_WORDS:
            self.pieces.clear()
            self.numbers.clear()
            self.names.clear()
        if len(self.stems) > _MAX_WORDS:
            self.stems.clear()


_WORDS = _Words()
_MAX_WORDS = 1 << 21
_MAX_PIECES = 1 << 19  # pieces remembered at most (~130 bytes each with their words)


def dictionary(pages: list[Page]) -> bytes:
    """What every block is compressed against (zlib's preset dictionary, at most its 32 KB
    window): the plain text's first `DICTIONARY_HEAD` bytes of `DICTIONARY_SECTIONS`
    sections spread over these pages (the first batch's, so a build with workers makes the
    same). Blocks of 4 KB compressed alone were 11 to 29% larger than whole pages on the DEV
    corpora; against this they are 9% smaller to 9% larger, and 15% smaller at 100,000
    pages."""
    texts = list(itertools.chain.from_iterable(texts for _, _, texts in pages))
    picked = texts[:: max(1, len(texts) // DICTIONARY_SECTIONS)]
    return b" ".join(plain(text).encode()[:DICTIONARY_HEAD] for text in picked)[-WINDOW:]


def analyse(pages: list[Page], zdict: bytes = b"") -> Analysed:
    """Plain text, compressed page texts (against `zdict`, see `dictionary`) and term counts
    of a batch of pages."""
    texts = list(itertools.chain.from_iterable(texts for _, _, texts in pages))
    shown = list(map(plain, texts))
    compressed = _compressor(zdict)
    blobs: list[bytes] = []
    block_first: list[int] = []
    offsets = np.zeros(len(texts), dtype=np.uint32)
    found_by: list[str] = []
    at = 0
    for title, headings, page_texts in pages:
        count = len(page_texts)
        mine = shown[at : at + count]
        encoded = [text.encode() for text in mine]
        for first, end in _blocks([len(text) for text in encoded]):
            block = encoded[first:end]
            blobs.append(compressed(b"\n".join(block)))
            block_first.append(at + first)
            sizes = np.fromiter(map(len, block), dtype=np.int64, count=end - first)
            offsets[at + first : at + end] = np.cumsum(sizes + 1) - (sizes + 1)
        if count:
            found_by.append(f"{title}\n{mine[0]}")
            found_by.extend(
                f"{title}\n{h}\n{s}" for h, s in zip(headings[1:], mine[1:], strict=True)
            )
        at += count
    first_sections = np.array(block_first, dtype=np.int64)
    return _counted(found_by, blobs, first_sections, offsets)


def _compressor(zdict: bytes) -> Callable[[bytes], bytes]:
    """A block's compression against `zdict`: a compressor primed with it once, copied for
    each block (priming one per block took longer than compressing the block)."""
    if not zdict:
        return functools.partial(zlib.compress, level=ZLIB_LEVEL, wbits=RAW_DEFLATE)
    primed = zlib.compressobj(ZLIB_LEVEL, zlib.DEFLATED, RAW_DEFLATE, zdict=zdict)

    def compressed(text: bytes) -> bytes:
        packer = primed.copy()
        return packer.compress(text) + packer.flush()

    return compressed


def _blocks(sizes: list[int]) -> list[tuple[int, int]]:
    """A page's sections (by their sizes in bytes) cut into blocks of whole sections, each
    compressed on its own: a block ends once it holds `BLOCK` bytes, so a section's text is
    read from its block's start, not its page's (a snippet reads one section)."""
    cuts = []
    first = held = 0
    for at, size in enumerate(sizes):
        if held >= BLOCK:
            cuts.append((first, at))
            first, held = at, 0
        held += size + 1
    if first < len(sizes):
        cuts.append((first, len(sizes)))
    return cuts


def _counted(
    texts: list[str], blobs: list[bytes], block_first: np.ndarray, offsets: np.ndarray
) -> Analysed:
    """The (section, stem, weighted count) triples of the texts (see `pinax.search.tokens`:
    the same chunks, words, weights and stems as a query's)."""
    pieces, order = _pieces(texts)
    # Each piece numbered by its first place (one pass in C), then the distinct ones 0, 1, ...
    distinct: dict[str, int] = {}
    first = np.fromiter(
        map(distinct.setdefault, pieces, range(len(pieces))), dtype=np.int64, count=len(pieces)
    )
    firsts = np.flatnonzero(first == np.arange(len(pieces)))
    number = np.empty(len(pieces), dtype=np.int64)
    number[firsts] = np.arange(len(firsts))
    which = number[first]
    del pieces, first, number
    # The text of each piece: breaks between texts counted (a break has no words).
    owner_of_piece = order[np.cumsum(which == _number(distinct, _BREAK, firsts))]
    # Each distinct piece's words: remembered from earlier batches, or worked out now.
    kinds = list(distinct)  # in order of first place
    del distinct
    learnt = _WORDS.pieces
    _WORDS.forget()
    new = [kind for kind in kinds if kind not in learnt]
    if new:
        learnt.update(zip(new, _piece_words(new), strict=True))
    known = list(map(learnt.__getitem__, kinds))
    del kinds, new
    words_per_piece = np.fromiter(map(len, known), dtype=np.int64, count=len(known)) // 4
    piece_start = np.cumsum(words_per_piece) - words_per_piece
    # The batch's stems numbered 0, 1, ... (in the order of this thread's numbers)
    packed = np.frombuffer(b"".join(known), dtype=np.int32).astype(np.int64)
    del known
    numbers, local = np.unique(packed >> 1, return_inverse=True)
    stems = list(map(_WORDS.names.__getitem__, numbers.tolist()))
    packed = (local.reshape(-1) << 1) | (packed & 1)
    at = ragged(piece_start[which], words_per_piece[which])
    owner = np.repeat(owner_of_piece, words_per_piece[which])
    del which
    words = packed[at]
    halves = words & 1
    # Words counted by one sort of (text, stem, half weight?) keys: a half-weight word
    # (part of an identifier) counts 0.5.
    keys = np.sort((owner << 33) | words)
    pairs = keys >> 1
    first = np.ones(len(keys), dtype=bool)
    first[1:] = pairs[1:] != pairs[:-1]
    starts = np.flatnonzero(first)
    sizes = np.diff(np.append(starts, len(keys)))
    halves_in = np.add.reduceat(keys & 1, starts) if len(keys) else np.zeros(0, np.int64)
    tf = (sizes - 0.5 * halves_in).astype(np.float32)
    pairs = pairs[starts]
    lengths = np.bincount(owner, weights=np.where(halves == 1, 0.5, 1.0), minlength=len(texts))
    return Analysed(
        blobs,
        block_first,
        offsets,
        stems,
        (pairs >> 32).astype(np.int32),
        (pairs & 0xFFFFFFFF).astype(np.int32),
        tf,
        lengths,
    )


def _number(distinct: dict[str, int], piece: str, firsts: np.ndarray) -> int:
    """The distinct number of `piece` (-1: not there), given where each distinct piece is
    first (`distinct` maps a piece to its first place)."""
    place = distinct.get(piece)
    return -1 if place is None else int(np.searchsorted(firsts, place))


def _pieces(texts: list[str]) -> tuple[list[str], np.ndarray]:
    """The texts' runs of chunk characters (a chunk, or chunks with separators around and
    between them: see `_counted`), a break between one text's and the next's, and the
    texts in the order they come. ASCII texts are cut together by a byte table and a split;
    the rest by the chunk expression, one by one."""
    ascii_texts = [i for i, text in enumerate(texts) if text.isascii()]
    others = [i for i, text in enumerate(texts) if not text.isascii()]
    pieces: list[str] = []
    if ascii_texts:
        joined = f" {_BREAK} ".join([texts[i] for i in ascii_texts])
        if joined.count(_BREAK) != len(ascii_texts) - 1:  # the break in a text: a space there
            joined = f" {_BREAK} ".join([texts[i].replace(_BREAK, " ") for i in ascii_texts])
        if "'" in joined:  # (ASCII: only this apostrophe; a literal first is found fast)
            joined = _ASCII_POSSESSIVE.sub("", joined)
        pieces = joined.encode("ascii").translate(_CHUNK_BYTES).decode("ascii").split()
        del joined
    for number, i in enumerate(others):
        if number or ascii_texts:
            pieces.append(_BREAK)
        pieces.extend(chunks(texts[i]))
    return pieces, np.asarray(ascii_texts + others, dtype=np.int64)


def _piece_words(pieces: list[str]) -> list[bytes]:
    """Each piece's words (its chunks', see `split_chunks`: a piece with a separator at its
    ends or two in a row is several chunks, or none), stop words left out, as int32
    numbers: the stem's number in this thread (`_Words.numbers`) times two, plus one for a
    half-weight word (part of an identifier)."""
    simple = np.fromiter(map(str.isalnum, pieces), dtype=bool, count=len(pieces))
    chunk_lists = [[p] if s else CHUNK.findall(p) for p, s in zip(pieces, simple, strict=True)]
    per_piece = np.fromiter(map(len, chunk_lists), dtype=np.int64, count=len(pieces))
    chunk_texts = list(itertools.chain.from_iterable(chunk_lists))
    del chunk_lists
    found, half, count = split_chunks(chunk_texts)
    piece_of_chunk = np.repeat(np.arange(len(pieces)), per_piece)
    words_per_piece = np.bincount(piece_of_chunk, weights=count, minlength=len(pieces))
    kept = ~np.fromiter(map(STOP_WORDS.__contains__, found), dtype=bool, count=len(found))
    piece_of_word = np.repeat(np.arange(len(pieces)), words_per_piece.astype(np.int64))
    kept_per_piece = np.bincount(piece_of_word[kept], minlength=len(pieces))
    words = (_stem_numbers(found)[kept] << 1) | half[kept]
    data = words.astype(np.int32).tobytes()
    ends = (np.cumsum(kept_per_piece) * 4).tolist()
    return [data[start:end] for start, end in zip([0, *ends[:-1]], ends, strict=True)]


def _stem_numbers(words: list[str]) -> np.ndarray:
    """Each word's stem's number in this thread, each word stemmed once a thread."""
    known = _WORDS.stems
    distinct = dict.fromkeys(words)
    new = [w for w in distinct if w not in known]
    if new:
        known.update(zip(new, _WORDS.stem_all(new), strict=True))
    numbers, names = _WORDS.numbers, _WORDS.names
    for word in distinct:
        stem = known[word]
        number = numbers.get(stem)
        if number is None:
            number = numbers[stem] = len(names)
            names.append(stem)
        distinct[word] = number
    return np.fromiter(map(distinct.__getitem__, words), dtype=np.int64, count=len(words))
