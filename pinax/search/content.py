"""What pages say: a BM25 index over their sections, ranked apart from titles and headings.

Page text in the same bag of words as the title made ranking worse on the DEV questions (long
pages gather matches and the title stops counting), so sections are documents of their own:
a section is found by its page title, its heading and its text, and a page scores as its best
section. The library fuses that ranking with the title/heading one (see `pinax.library`).

Every term of a section is kept: keeping each section's strongest 16 to 48 terms (pruned
term vectors) cost .08 to .2 of MRR@5 on the DEV questions. Postings are stored by term in
descending weight, so a common query word reads only its `POSTINGS_READ` strongest sections
(long questions are mostly common words: how they are read decides the speed). Each page's
plain text is kept compressed for snippets. Everything is numpy arrays, saved and
memory-mapped like the main index (see `pinax.search.store`).
"""

from __future__ import annotations

import functools
import math
import re
import threading
import zlib
from bisect import bisect_left
from collections import OrderedDict
from typing import NamedTuple

import numpy as np

from pinax.manifest import Strings
from pinax.pages import fence_lines, visible_text
from pinax.search.postings import descending_keys, idf, key_ids, key_values
from pinax.search.ranking import RANKING
from pinax.search.tokens import STOP_WORDS, chunks, query_words, stem, stem_form

K1, B = RANKING.content_k1, RANKING.content_b  # folded into the postings (see ranking)
POSTINGS_READ = 8192  # a term's strongest sections read per query
LEAST_READ = 1024  # ... at the least, however short the query
SECTIONS_RANKED = 1000  # best sections turned into pages
SNIPPET = 240  # characters
SNIPPET_SCAN = 8192  # bytes of a section looked through for a snippet
MAX_SNIPPET_HITS = 2000
MAX_PAGE_TEXT = 1 << 24  # bytes of one block's text, decompressed at most
RAW_DEFLATE = -15  # zlib's window bits for a stream without header or checksum
WINDOW = 1 << 15  # deflate's window: the most of a preset dictionary it uses
RECENT_TEXT_BYTES = 8 << 20  # pages' texts kept decompressed
CALIBRATION = RANKING.content_calibration  # a section with every query word once scores 0.9
FORMAT = 7  # 7: each dotted segment joined as a word of its own (tokens.split_chunk)
KNOWN_TERMS = 1 << 14  # query stems' term numbers remembered
CHECKED = 1 << 20  # postings checked at a time on open (bounds the memory of a check)

_LINK_TARGET = re.compile(r"\]\([^)\s]{0,2000}\)")  # a link's or image's target (text stays)
_ICON = re.compile(r":[a-z][a-z0-9_]*(?:-[a-z0-9_]+)+:")  # an icon's short code (:octicons-x-24:)
_ASCII_MARKS = b"*`|[]!"  # emphasis, code, tables, links: marks, not text
_MARK_RUNS = re.compile(r"[*`|\[\]!]+")  # the same, for text beyond ASCII
# Marks that are code, kept: brackets right after a name (`httpx[http2]`, `a[0]`) and a
# star with a space or tab on both sides (`16 * 1000`).
_CODE_MARKS = re.compile(r"(?<=\w)\[[^\[\]\n]{0,200}\]|(?<=[ \t])\*+(?=[ \t])")
_MAYBE_CODE = re.compile(r"\w\[|[ \t]\*")  # text without these has no mark to keep


class ContentHit(NamedTuple):
    doc: int  # the page in its manifest
    score: float  # 0..1
    section: int  # the section that scored it


def _hit(doc: int, score: float, section: int) -> ContentHit:
    return tuple.__new__(ContentHit, (doc, score, section))  # (without __new__'s call: faster)


_LOOKED_UP = 64  # ranked sections whose pages are looked up at a time


def plain(markdown: str) -> str:
    """A section's text as a reader sees it, one line: hidden text and markup gone."""
    text = visible_text(markdown)
    if "](" in text:
        text = _LINK_TARGET.sub("", text)
    if "```" in text or "~~~" in text:
        text = _without_fence_lines(text)
    if ":" in text:
        text = _ICON.sub("", text)
    if _MAYBE_CODE.search(text) is not None:
        return " ".join(_without_marks(text).split())
    if text.isascii():  # (marks dropped by a byte table: several times faster)
        return " ".join(text.encode("ascii").translate(None, _ASCII_MARKS).decode("ascii").split())
    return " ".join(_MARK_RUNS.sub("", text).split())


def _without_marks(text: str) -> str:
    """`text` without its Markdown marks, those that are code kept (`_CODE_MARKS`)."""
    kept, position = [], 0
    for match in _CODE_MARKS.finditer(text):
        kept.append(_MARK_RUNS.sub("", text[position : match.start()]))
        kept.append(match.group())
        position = match.end()
    kept.append(_MARK_RUNS.sub("", text[position:]))
    return "".join(kept)


def _without_fence_lines(text: str) -> str:
    """`text` without what its fence lines hold (up to three spaces, then three backticks or
    tildes: the line's text goes, its end stays), found by `fence_lines`."""
    kept, position = [], 0
    for line, marks, after in fence_lines(text):
        at = after - len(marks)
        if at - line > 3 or text[line:at].strip(" "):
            continue  # indented further, or by a tab: code or text, not a fence
        end = text.find("\n", after)
        kept.append(text[position:line])
        position = len(text) if end < 0 else end
    if not kept:
        return text
    kept.append(text[position:])
    return "".join(kept)


class ContentIndex:
    """Sections found by BM25 over their page title, heading and text; pages by their best."""

    def __init__(self, arrays: dict[str, np.ndarray]) -> None:
        self.terms = Strings(arrays["content_terms_data"], arrays["content_terms_offsets"])
        self._prefix = arrays["content_term_prefix"]
        self.headings = Strings(arrays["content_heading_data"], arrays["content_heading_offsets"])
        self._idf = arrays["content_idf"]
        self._post_start = arrays["content_post_start"]
        self._post_section = arrays["content_post_section"]  # (see `section_ids`)
        self._packed = self._post_section.dtype == np.uint8  # three bytes a section
        self._post_level = arrays["content_post_level"]
        self._quantum = arrays["content_term_quantum"]
        self._section_page = arrays["content_section_page"]
        self._section_heading = arrays["content_section_heading"]
        self._section_offset = arrays["content_section_offset"]
        self._page_doc = arrays["content_page_doc"]
        self._page_first = arrays["content_page_first"]
        self._fetched = Strings(arrays["content_fetched_data"], arrays["content_fetched_offsets"])
        self._strings = [
            (arrays[f"content_{name}_data"], arrays[f"content_{name}_offsets"])
            for name in ("terms", "heading", "fetched")
        ]
        self._block_start = arrays["content_block_start"]
        self._block_first = arrays["content_block_first"]
        self._blob = arrays["content_blob"]
        zdict = self._zdict_array = arrays["content_zdict"]  # what blocks were compressed against
        self._zdict = bytes(zdict) if zdict.dtype == np.uint8 and len(zdict) <= WINDOW else b""
        self.sections = len(self._section_page)
        self.pages = len(self._page_doc)
        terms = len(self._idf)
        if not len(self.terms) == len(self._quantum) == terms == len(self._post_start) - 1:
            raise ValueError("content arrays of different lengths")
        self._local = threading.local()
        self._lock = threading.Lock()
        self._known: dict[str, int] = {}  # stem -> term number (see `_term`)
        self._unknown_idf = float(idf(0.0, self.sections))
        self._recent: OrderedDict[int, tuple[bytes, bool]] = OrderedDict()  # block -> text, whole?
        self._recent_bytes = 0

    def check(self, pages: int, headings: int) -> None:
        """ValueError unless every number points inside its array (an index read from the
        untrusted cache folder is checked once, whole, before any search reads it)."""
        sections, postings = self.sections, len(self._post_level)

        def within(values: np.ndarray, low: int, high: int) -> bool:
            return not len(values) or (int(values.min()) >= low and int(values.max()) < high)

        def rising(values: np.ndarray, last: int) -> bool:
            return (
                len(values) > 0
                and values[0] == 0
                and values[-1] == last
                and bool(np.all(np.diff(values) >= 0))
            )

        posted = (
            rising(self._post_start, postings)
            and self._post_section.ndim == 1
            and len(self._post_section) == (3 * postings + 1 if self._packed else postings)
        )
        checks = {
            "postings": posted,
            "terms": len(self._prefix) == len(self._idf) and self._prefix.dtype.kind == "S",
            "posted sections": posted
            and all(
                within(self._posted(start, min(start + CHECKED, postings)), 0, sections)
                for start in range(0, postings, CHECKED)
            ),
            "section pages": within(self._section_page, 0, pages),
            "section headings": within(self._section_heading, -1, headings),
            "page sections": rising(self._page_first, sections)
            and len(self._page_first) == self.pages + 1,
            "page numbers": within(self._page_doc, 0, pages),
            "texts": rising(self._block_start, len(self._blob))
            and rising(self._block_first, sections)
            and len(self._block_start) == len(self._block_first)
            and len(self._fetched) == self.pages,
            "section offsets": len(self._section_offset) == sections
            and len(self.headings) == sections,
            "strings": all(_strings_sound(data, offsets) for data, offsets in self._strings),
            "dictionary": self._zdict_array.dtype == np.uint8
            and self._zdict_array.ndim == 1
            and len(self._zdict_array) <= WINDOW,
        }
        broken = [name for name, ok in checks.items() if not ok]
        if broken:
            raise ValueError(f"content index inconsistent: {', '.join(broken)}")

    def search(self, query: str, limit: int, reach: float = 1.0) -> list[ContentHit]:
        """The best `limit` pages by their best section, best first. With a `reach` under 1
        (a short query, where content counts for little beside titles), each word reads
        that share of its `POSTINGS_READ` strongest sections (at least `LEAST_READ`)."""
        read = max(LEAST_READ, int(POSTINGS_READ * min(max(reach, 0.0), 1.0)))
        weights = query_terms(query)
        if not weights or not self.sections:
            return []
        reference = 0.0
        touched, levels, steps = [], [], []
        for weight, term in zip(weights.values(), self._terms(list(weights)), strict=True):
            if term < 0:
                reference += weight * self._unknown_idf
                continue
            reference += weight * self._idf.item(term)
            start = self._post_start.item(term)
            end = min(self._post_start.item(term + 1), start + read)
            touched.append(self._posted(start, end))
            levels.append(self._post_level[start:end])
            steps.append(weight * self._quantum.item(term))
        if not touched:
            return []
        # Every term's postings added up at once, term after term as read (a section read
        # for several terms is there once for each).
        every = np.concatenate(touched) if len(touched) > 1 else touched[0]
        counts = [len(sections) for sections in touched]
        step = np.repeat(np.array(steps, dtype=np.float32), counts)
        scores = self._scratch()
        np.add.at(scores, every, (np.concatenate(levels) if len(levels) > 1 else levels[0]) * step)
        raw = scores[every]
        scores[every] = 0.0
        keys = descending_keys(raw, every)  # best first, ties by section
        if len(keys) > SECTIONS_RANKED:  # (a section read for several terms counts as many)
            # the best and any tied with the last of them
            last = key_values(np.partition(keys, SECTIONS_RANKED - 1)[SECTIONS_RANKED - 1 :][:1])
            keys = keys[key_values(keys) >= last]
        keys.sort()
        sections = key_ids(keys)
        first = _first_of_each(self._section_page, sections, limit)
        places = np.fromiter(first.values(), dtype=np.int64, count=len(first))
        best = key_values(keys[places])
        scale = CALIBRATION / max(reference, 1e-9)
        return [
            _hit(page, round(1.0 - math.exp(-score * scale), 4), section)
            for page, score, section in zip(
                first, best.tolist(), sections[places].tolist(), strict=True
            )
        ]

    def knows(self, word: str) -> bool:
        """Whether the text uses a lower-case word: its stem is a term and the word is one of
        the stem's usual forms (`stem_form`; the index keeps stems, not words)."""
        return self._terms([stem(word)])[0] >= 0 and stem_form(word)

    def _posted(self, start: int, end: int) -> np.ndarray:
        """The section numbers of postings `start` to `end`: three bytes each read as a
        four-byte number (a strided view, no copy) less its top byte, where packed."""
        if not self._packed:
            return self._post_section[start:end]
        view = np.ndarray(
            (end - start,), dtype="<u4", buffer=self._post_section, offset=3 * start, strides=(3,)
        )
        return view & 0xFFFFFF

    def _terms(self, stems: list[str]) -> list[int]:
        """Each stem's term number (-1: none), remembered (questions share most words); the
        new ones found together, by one search of the terms' first bytes for them all."""
        known = self._known
        found = [known.get(text, -2) for text in stems]
        if -2 not in found:
            return found
        new = [text for text, term in zip(stems, found, strict=True) if term == -2]
        heads = [text.encode()[:8] for text in new]
        lows = np.searchsorted(self._prefix, np.array(heads, dtype="S8"), "left").tolist()
        highs = np.searchsorted(self._prefix, np.array(heads, dtype="S8"), "right").tolist()
        if len(known) + len(new) > KNOWN_TERMS:
            known.clear()
        for text, head, low, high in zip(new, heads, lows, highs, strict=True):
            if high - low == 1 and len(head) < 8:  # the only term of this prefix is the stem
                known[text] = low
                continue
            at = bisect_left(self.terms, text, low, high)
            known[text] = at if at < high and self.terms[at] == text else -1
        return [known[text] for text in stems]

    def _scratch(self) -> np.ndarray:
        scores = getattr(self._local, "scores", None)
        if scores is None:
            scores = self._local.scores = np.zeros(self.sections, dtype=np.float32)
        return scores

    def heading(self, section: int) -> tuple[int, str | None]:
        """A section's outline heading (its global number, -1 for none) and, when the page's
        sections did not match its outline, its own heading text (None for the lead)."""
        number = int(self._section_heading[section])
        text = self.headings[section]
        return number, (text or None) if number < 0 else None

    def fetched_at(self, section: int) -> str | None:
        return self._fetched[self._page_of_section(section)] or None

    def text(self, section: int, limit: int = MAX_PAGE_TEXT) -> str:
        """A section's plain text (its first `limit` bytes)."""
        block = int(np.searchsorted(self._block_first, section, side="right")) - 1
        start = int(self._section_offset[section])
        last = int(self._block_first[block + 1]) - 1  # the block's last section
        end = int(self._section_offset[section + 1]) - 1 if section < last else MAX_PAGE_TEXT
        end = min(end, start + limit)
        return self._block_text(block, end)[start:end].decode(errors="replace")

    def _block_text(self, block: int, end: int) -> bytes:
        """A block's text (see `content_build._blocks`), at least its first `end` bytes:
        decompressed no further than that (a snippet of a block's first section reads only
        that). Recent blocks are kept decompressed (a few MB): an agent's searches keep
        finding the same pages."""
        with self._lock:
            kept = self._recent.get(block)
            if kept is not None and (kept[1] or len(kept[0]) >= end):
                self._recent.move_to_end(block)
                return kept[0]
        packed = self._blob[self._block_start[block] : self._block_start[block + 1]]
        reader = (
            zlib.decompressobj(RAW_DEFLATE, zdict=self._zdict)
            if self._zdict
            else zlib.decompressobj(RAW_DEFLATE)
        )
        try:
            text = reader.decompress(packed, min(end, MAX_PAGE_TEXT))  # never more
        except zlib.error:
            return b""  # a damaged store: no text rather than an error
        whole = reader.eof or len(text) >= MAX_PAGE_TEXT
        with self._lock:
            before = self._recent.pop(block, None)
            if before is not None:
                self._recent_bytes -= len(before[0])
            self._recent[block] = (text, whole)
            self._recent_bytes += len(text)
            while self._recent_bytes > RECENT_TEXT_BYTES and len(self._recent) > 1:
                self._recent_bytes -= len(self._recent.popitem(last=False)[1][0])
        return text

    def snippet(self, section: int, query: str) -> str:
        return snippet(self.text(section, SNIPPET_SCAN), query)

    def _page_of_section(self, section: int) -> int:
        return int(np.searchsorted(self._page_first, section, side="right")) - 1


def _first_of_each(section_page: np.ndarray, sections: np.ndarray, limit: int) -> dict[int, int]:
    """The first `limit` distinct pages of ranked sections, each with its first place, in
    order (the pages of a few dozen sections looked up at a time: most rankings name that
    many pages early)."""
    first: dict[int, int] = {}
    for start in range(0, len(sections), _LOOKED_UP):
        pages = section_page[sections[start : start + _LOOKED_UP]].tolist()
        for at, page in enumerate(pages, start):
            if page not in first:
                first[page] = at
                if len(first) == limit:
                    return first
    return first


def _strings_sound(data: np.ndarray, offsets: np.ndarray) -> bool:
    """Whether a column of strings reads whole: offsets rising from 0 to the end of UTF-8
    data, each at the start of a character."""
    if data.dtype != np.uint8 or data.ndim != 1 or offsets.dtype.kind != "u":
        return False
    if not len(offsets) or offsets[0] != 0 or offsets[-1] != len(data):
        return False
    if np.any(np.diff(offsets.astype(np.int64)) < 0):
        return False
    starts = offsets[:-1][offsets[:-1] < len(data)]
    if np.any((data[starts] & 0xC0) == 0x80):  # a continuation byte
        return False
    try:
        memoryview(data).tobytes().decode()
    except UnicodeDecodeError:
        return False
    return True


@functools.lru_cache(maxsize=256)
def _snippet_stems(query: str) -> tuple[str, ...]:
    """The stems a snippet looks for (those of letters and digits), in order."""
    return tuple(sorted(stem for stem in query_terms(query) if stem.isalnum()))


def _word_starts(lower: str, stems: tuple[str, ...]) -> list[tuple[int, str]]:
    """(place, stem) of each word of `lower` that starts with a stem, in order of place
    (then stem), at most `MAX_SNIPPET_HITS` of them."""
    hits: list[tuple[int, str]] = []
    find = lower.find
    for stemmed in stems:
        if len(hits) >= MAX_SNIPPET_HITS:
            break
        at = find(stemmed)
        while at >= 0:
            if at == 0 or not lower[at - 1].isalnum():  # the start of a word
                hits.append((at, stemmed))
                if len(hits) >= MAX_SNIPPET_HITS:
                    break
            at = find(stemmed, at + 1)
    hits.sort()
    return hits


def query_terms(query: str) -> dict[str, float]:
    """The stems a question looks up, with their weights (stop words left out while other
    words remain)."""
    return dict(_query_terms(query))


@functools.lru_cache(maxsize=256)  # one search asks several times: ranking, share, snippets
def _query_terms(query: str) -> tuple[tuple[str, float], ...]:
    weights: dict[str, float] = {}
    tokens = [t for chunk in chunks(query) for t in query_words(chunk)]
    content = [t for t in tokens if t[0] not in STOP_WORDS] or tokens
    for word, weight in content:
        term = stem(word)
        weights[term] = max(weight, weights.get(term, 0.0))
    return tuple(weights.items())


def snippet(text: str, query: str, width: int = SNIPPET) -> str:
    """At most `width` characters of `text` around the most query words in one window.
    Words are found by their stems as prefixes (`configur` finds "configuring")."""
    if len(text) <= width:
        return text
    hits = _word_starts(text.lower(), _snippet_stems(query))
    start, best = 0, -1
    most = len({term for _, term in hits})  # no window holds more
    inside: dict[str, int] = {}  # the words in the window hits[first:last], with counts
    first = 0
    for at, term in hits:  # each hit starts a window once and leaves it once
        inside[term] = inside.get(term, 0) + 1
        while hits[first][0] < at - (width - 80):
            gone = hits[first][1]
            inside[gone] -= 1
            if not inside[gone]:
                del inside[gone]
            first += 1
        if len(inside) > best:
            best, start = len(inside), max(0, hits[first][0] - 40)
            if best == most:
                break  # (only a window with more would move it)
    room = width - 2
    cut = text[start : start + room]
    if start > 0:
        space = cut.find(" ")
        cut = "…" + (cut[space + 1 :] if 0 <= space < 30 else cut)
    if start + room < len(text):
        space = cut.rfind(" ")
        cut = (cut[:space] if space > room - 30 else cut) + "…"
    return cut[:width]
