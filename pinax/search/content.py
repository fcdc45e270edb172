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
import itertools
import math
import re
import threading
import zlib
from bisect import bisect_left
from collections import OrderedDict
from collections.abc import Iterable
from dataclasses import dataclass
from typing import NamedTuple

import numpy as np

from pinax.content import PageText
from pinax.pages import visible_text
from pinax.search.indexing import idf, ragged
from pinax.search.pagetable import PageTable, Strings
from pinax.search.tokens import STOP_WORDS, chunks, split_chunks, stem, stemmer, words

K1 = 1.2
B = 0.75
POSTINGS_READ = 8192  # a term's strongest sections read per query
SECTIONS_RANKED = 1000  # best sections turned into pages
BATCH = 20_000  # sections analysed at a time while building
SNIPPET = 240  # characters
SNIPPET_SCAN = 8192  # bytes of a section looked through for a snippet
MAX_SNIPPET_HITS = 2000
MAX_PAGE_TEXT = 1 << 24  # bytes of one page's text, decompressed at most
RECENT_TEXT_BYTES = 8 << 20  # pages' texts kept decompressed
FULL_MATCH = 2.3  # a section holding every query word once (at average length) scores 0.9
FORMAT = 2

_LINK_TARGET = re.compile(r"\]\([^)\s]{0,2000}\)")  # a link's or image's target (text stays)
_ICON = re.compile(r":[a-z][a-z0-9_]*(?:-[a-z0-9_]+)+:")  # an icon's short code (:octicons-x-24:)
_FENCE = re.compile(r"^ {0,3}(?:```|~~~)[^\n]*$", re.M)  # a code fence line and its language
_MARKS = str.maketrans("", "", "*`|[]!")  # emphasis, code, tables, links: marks, not text


class ContentHit(NamedTuple):
    doc: int  # the page in its manifest
    score: float  # 0..1
    section: int  # the section that scored it


@dataclass
class Built:
    """What a build found besides the index: pages not in the manifest, sections that did not
    match the outline."""

    arrays: dict[str, np.ndarray]
    skipped_pages: int = 0
    unmatched_sections: int = 0


def plain(markdown: str) -> str:
    """A section's text as a reader sees it, one line: hidden text and markup gone."""
    text = visible_text(markdown)
    if "](" in text:
        text = _LINK_TARGET.sub("", text)
    if "```" in text or "~~~" in text:
        text = _FENCE.sub("", text)
    if ":" in text:
        text = _ICON.sub("", text)
    return " ".join(text.translate(_MARKS).split())


def build(pages: Iterable[PageText], table: PageTable) -> Built:
    """The arrays of the content index of a manifest's pages (`table`): sections joined to
    their page by URL and to its outline by position (a page whose sections differ from its
    outline keeps its own headings, without anchors)."""
    builder = _Builder(table)
    for page in pages:
        builder.add(page)
    return builder.finish()


class _Builder:
    def __init__(self, table: PageTable) -> None:
        self.table = table
        self.result = Built({})
        self.seen: set[int] = set()
        self.stems: dict[str, int] = {}  # stem -> term
        self.word_term: dict[str, int] = {}
        self.stem_all = stemmer()
        self.texts: list[str] = []  # the batch being gathered: what each section is found by
        self.parts: list[tuple[np.ndarray, np.ndarray, np.ndarray]] = []  # section, term, tf
        self.lengths: list[np.ndarray] = []
        self.section_page: list[int] = []
        self.section_heading: list[int] = []  # the outline heading (global number), -1 none
        self.headings: list[str] = []
        self.offsets: list[int] = []  # where each section starts in its page's text
        self.blobs: list[bytes] = []
        self.page_doc: list[int] = []
        self.page_first: list[int] = []
        self.fetched: list[str] = []

    def add(self, page: PageText) -> None:
        doc = self.table.find(page.url)
        if doc < 0:
            doc = self.table.find(page.url.rstrip("/") + "/") if page.url[-1:] != "/" else -1
        if doc < 0 or doc in self.seen:
            self.result.skipped_pages += 1
            return
        self.seen.add(doc)
        outline = self.table.outline(doc)
        start = self.table.outline_start.item(doc)
        sections = page.sections
        matched = len(sections) == len(outline) + 1 and all(
            s.level == h.level and s.heading == h.title
            for s, h in zip(sections[1:], outline, strict=True)
        )
        if outline and not matched:  # (a page without an outline has only its own headings)
            self.result.unmatched_sections += len(sections) - 1
        title = self.table.title(doc)
        self.page_doc.append(doc)
        self.page_first.append(len(self.section_page))
        self.fetched.append(page.fetched_at or "")
        text_parts: list[str] = []
        at = 0
        for i, section in enumerate(sections):
            heading = title if i == 0 else section.heading
            shown = plain(section.text)
            self.section_page.append(doc)
            self.section_heading.append(start + i - 1 if matched and i else -1)
            self.headings.append("" if i == 0 or matched else heading)  # else the outline's
            self.offsets.append(at)
            text_parts.append(shown)
            at += len(shown.encode()) + 1
            found_by = f"{title}\n{heading}\n{shown}" if i else f"{title}\n{shown}"
            self.texts.append(found_by)
        self.blobs.append(zlib.compress("\n".join(text_parts).encode(), 6))
        if len(self.texts) >= BATCH:
            self._analyse()

    def _analyse(self) -> None:
        """Term frequencies of the gathered sections, a batch at a time."""
        texts, self.texts = self.texts, []
        if not texts:
            return
        first = len(self.section_page) - len(texts)
        lists = list(map(chunks, texts))
        per_text = np.fromiter(map(len, lists), dtype=np.int64, count=len(lists))
        every = list(itertools.chain.from_iterable(lists))
        del lists
        distinct = dict.fromkeys(every)
        for number, chunk in enumerate(distinct):
            distinct[chunk] = number
        which = np.fromiter(map(distinct.__getitem__, every), dtype=np.int64, count=len(every))
        del every
        found, half, count = split_chunks(list(distinct))
        new = [w for w in dict.fromkeys(found) if w not in self.word_term]
        for word, stemmed in zip(new, self.stem_all(new), strict=True):
            self.word_term[word] = self.stems.setdefault(stemmed, len(self.stems))
        term = np.fromiter(map(self.word_term.__getitem__, found), dtype=np.int64, count=len(found))
        weight = np.where(half, 0.5, 1.0)
        weight[np.fromiter(map(STOP_WORDS.__contains__, found), dtype=bool, count=len(found))] = 0
        chunk_start = np.cumsum(count) - count
        at = ragged(chunk_start[which], count[which])
        owner = np.repeat(np.repeat(np.arange(len(texts), dtype=np.int64), per_text), count[which])
        tokens = weight[at] > 0
        owner, term_of, weight_of = owner[tokens], term[at][tokens], weight[at][tokens]
        keys, inverse = np.unique((owner << 32) | term_of, return_inverse=True)
        tf = np.bincount(inverse, weights=weight_of).astype(np.float32)
        self.parts.append(((keys >> 32).astype(np.int32) + first, (keys & 0xFFFFFFFF), tf))
        self.lengths.append(np.bincount(owner, weights=weight_of, minlength=len(texts)))

    def finish(self) -> Built:
        self._analyse()
        size = len(self.section_page)
        arrays = self.result.arrays
        if self.parts:
            section, term, tf = (np.concatenate(p) for p in zip(*self.parts, strict=True))
        else:
            section = np.zeros(0, np.int32)
            term = np.zeros(0, np.int64)
            tf = np.zeros(0, np.float32)
        self.parts = []
        lengths = np.concatenate(self.lengths) if self.lengths else np.zeros(0)
        # Terms numbered in sorted order of their text, so a query finds one by bisection.
        texts = sorted(self.stems)
        rank = np.empty(len(texts), dtype=np.int64)
        rank[np.fromiter(map(self.stems.__getitem__, texts), dtype=np.int64, count=len(texts))] = (
            np.arange(len(texts))
        )
        term = rank[term] if len(term) else term
        df = np.bincount(term, minlength=len(texts))
        term_idf = idf(df, max(size, 1)).astype(np.float32)
        average = float(lengths.mean()) if size else 1.0
        norm = K1 * (1 - B + B * lengths / max(average, 1e-9))
        impact = term_idf[term] * tf * (K1 + 1) / (tf + norm[section])
        # By term, then by descending weight: one sort of (term, inverted weight bits) keys
        # (a positive float32's bits order as the float does).
        weight_bits = impact.astype(np.float32).view(np.uint32).astype(np.int64)
        order = np.argsort((term.astype(np.int64) << 32) | (0xFFFFFFFF - weight_bits))
        post_start = np.zeros(len(texts) + 1, dtype=np.int64)
        np.cumsum(np.bincount(term, minlength=len(texts)), out=post_start[1:])
        # A weight in a byte: 1..255 of its term's strongest (the first of its postings).
        impact = impact[order].astype(np.float32)
        term_max = np.zeros(len(texts), dtype=np.float32)
        posted = post_start[:-1] < post_start[1:]
        term_max[posted] = impact[post_start[:-1][posted]]
        quantum = term_max[term[order]] / 255
        levels = np.clip(np.rint(impact / np.maximum(quantum, 1e-30)), 1, 255).astype(np.uint8)
        arrays.update(Strings.arrays(texts, "content_terms"))
        # Each term's first 8 bytes, sorted as the terms are (UTF-8 sorts as the text does):
        # a query term's few candidates are found by one search in C.
        arrays["content_term_prefix"] = np.array([text.encode()[:8] for text in texts], dtype="S8")
        arrays.update(Strings.arrays(self.headings, "content_heading"))
        arrays.update(
            {
                "content_idf": term_idf,
                "content_post_start": post_start,
                "content_post_section": section[order].astype(_index_type(size)),
                "content_post_level": levels,
                "content_term_quantum": (term_max / 255).astype(np.float32),
                "content_section_page": np.array(self.section_page, dtype=np.int32),
                "content_section_heading": np.array(self.section_heading, dtype=np.int32),
                "content_section_offset": np.array(self.offsets, dtype=np.uint32),
                "content_page_doc": np.array(self.page_doc, dtype=np.int32),
                "content_page_first": np.array([*self.page_first, size], dtype=np.int64),
                "content_page_fetched": _strings_array(self.fetched),
            }
        )
        blob_start = np.zeros(len(self.blobs) + 1, dtype=np.int64)
        np.cumsum([len(b) for b in self.blobs], out=blob_start[1:])
        arrays["content_blob_start"] = blob_start
        arrays["content_blob"] = np.frombuffer(b"".join(self.blobs), dtype=np.uint8)
        self.blobs = []
        return self.result


def _index_type(count: int) -> type[np.integer]:
    """The narrowest type that numbers `count` things (postings are most of the index)."""
    return np.uint16 if count <= 1 << 16 else np.int32


def _strings_array(values: list[str]) -> np.ndarray:
    return np.array(values, dtype="S40") if values else np.zeros(0, dtype="S40")


class ContentIndex:
    """Sections found by BM25 over their page title, heading and text; pages by their best."""

    def __init__(self, arrays: dict[str, np.ndarray]) -> None:
        self.terms = Strings(arrays["content_terms_data"], arrays["content_terms_offsets"])
        self._prefix = arrays["content_term_prefix"]
        self.headings = Strings(arrays["content_heading_data"], arrays["content_heading_offsets"])
        self._idf = arrays["content_idf"]
        self._post_start = arrays["content_post_start"]
        self._post_section = arrays["content_post_section"]
        self._post_level = arrays["content_post_level"]
        self._quantum = arrays["content_term_quantum"]
        self._section_page = arrays["content_section_page"]
        self._section_heading = arrays["content_section_heading"]
        self._section_offset = arrays["content_section_offset"]
        self._page_doc = arrays["content_page_doc"]
        self._page_first = arrays["content_page_first"]
        self._fetched = arrays["content_page_fetched"]
        self._blob_start = arrays["content_blob_start"]
        self._blob = arrays["content_blob"]
        self.sections = len(self._section_page)
        self.pages = len(self._page_doc)
        terms = len(self._idf)
        if not len(self.terms) == len(self._quantum) == terms == len(self._post_start) - 1:
            raise ValueError("content arrays of different lengths")
        self._local = threading.local()
        self._lock = threading.Lock()
        self._recent: OrderedDict[int, bytes] = OrderedDict()  # page -> its text
        self._recent_bytes = 0

    def check(self, pages: int, headings: int) -> None:
        """ValueError unless every number points inside its array (an index read from the
        untrusted cache folder is checked once, whole, before any search reads it)."""
        sections, postings = self.sections, len(self._post_section)

        def within(values: np.ndarray, low: int, high: int) -> bool:
            return not len(values) or (int(values.min()) >= low and int(values.max()) < high)

        def rising(values: np.ndarray, last: int) -> bool:
            return (
                len(values) > 0
                and values[0] == 0
                and values[-1] == last
                and bool(np.all(np.diff(values) >= 0))
            )

        checks = {
            "postings": rising(self._post_start, postings) and len(self._post_level) == postings,
            "terms": len(self._prefix) == len(self._idf) and self._prefix.dtype.kind == "S",
            "posted sections": within(self._post_section, 0, sections),
            "section pages": within(self._section_page, 0, pages),
            "section headings": within(self._section_heading, -1, headings),
            "page sections": rising(self._page_first, sections)
            and len(self._page_first) == self.pages + 1,
            "page numbers": within(self._page_doc, 0, pages),
            "texts": rising(self._blob_start, len(self._blob))
            and len(self._blob_start) == self.pages + 1
            and len(self._fetched) == self.pages,
            "section offsets": len(self._section_offset) == sections
            and len(self.headings) == sections,
        }
        broken = [name for name, ok in checks.items() if not ok]
        if broken:
            raise ValueError(f"content index inconsistent: {', '.join(broken)}")

    def search(self, query: str, limit: int) -> list[ContentHit]:
        """The best `limit` pages by their best section, best first."""
        weights = query_terms(query)
        if not weights or not self.sections:
            return []
        found = [(self._term(text), weight) for text, weight in weights.items()]
        reference = sum(
            weight * (float(self._idf[term]) if term >= 0 else float(idf(0.0, self.sections)))
            for term, weight in found
        )
        scores = self._scratch()
        touched = []
        for term, weight in found:
            if term < 0:
                continue
            start = int(self._post_start[term])
            end = min(int(self._post_start[term + 1]), start + POSTINGS_READ)
            sections = self._post_section[start:end]
            step = np.float32(weight * float(self._quantum[term]))
            scores[sections] += self._post_level[start:end] * step
            touched.append(sections)
        if not touched:
            return []
        every = np.concatenate(touched) if len(touched) > 1 else touched[0]
        raw = scores[every]
        scores[every] = 0.0
        if len(every) > SECTIONS_RANKED:  # a section read for several terms is there twice
            best = np.argpartition(-raw, SECTIONS_RANKED)[:SECTIONS_RANKED]
            every, raw = every[best], raw[best]
        order = np.lexsort((every, -raw))
        sections, raw = every[order], raw[order]
        pages = self._section_page[sections]
        _, first = np.unique(pages, return_index=True)  # each page's best section
        first.sort()
        first = first[:limit]
        scale = FULL_MATCH / max(reference, 1e-9)
        return [
            ContentHit(
                int(pages[i]), round(1.0 - math.exp(-float(raw[i]) * scale), 4), int(sections[i])
            )
            for i in first
        ]

    def _term(self, text: str) -> int:
        head = text.encode()[:8]
        low = int(np.searchsorted(self._prefix, head, "left"))
        high = int(np.searchsorted(self._prefix, head, "right"))
        at = bisect_left(self.terms, text, low, high)
        return at if at < high and self.terms[at] == text else -1

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
        value = self._fetched[self._page_of_section(section)]
        return value.decode() or None

    def text(self, section: int, limit: int = 1 << 24) -> str:
        """A section's plain text (its first `limit` bytes)."""
        page = self._page_of_section(section)
        start = int(self._section_offset[section])
        last = int(self._page_first[page + 1]) - 1
        end = int(self._section_offset[section + 1]) - 1 if section < last else MAX_PAGE_TEXT
        end = min(end, start + limit)
        return self._page_text(page, end)[start:end].decode(errors="replace")

    def _page_text(self, page: int, end: int) -> bytes:
        """A page's text up to `end` bytes. Recent pages are kept decompressed (a few MB):
        an agent's searches keep finding the same pages."""
        with self._lock:
            kept = self._recent.get(page)
            if kept is not None:
                self._recent.move_to_end(page)
                return kept
        blob = bytes(self._blob[self._blob_start[page] : self._blob_start[page + 1]])
        try:
            whole = zlib.decompressobj().decompress(blob, MAX_PAGE_TEXT)  # never more
        except zlib.error:
            return b""  # a damaged store: no text rather than an error
        with self._lock:
            self._recent[page] = whole
            self._recent_bytes += len(whole)
            while self._recent_bytes > RECENT_TEXT_BYTES and len(self._recent) > 1:
                self._recent_bytes -= len(self._recent.popitem(last=False)[1])
        return whole

    def snippet(self, section: int, query: str) -> str:
        return snippet(self.text(section, SNIPPET_SCAN), query)

    def _page_of_section(self, section: int) -> int:
        return int(np.searchsorted(self._page_first, section, side="right")) - 1


def query_terms(query: str) -> dict[str, float]:
    """The stems a question looks up, with their weights (stop words left out while other
    words remain)."""
    return dict(_query_terms(query))


@functools.lru_cache(maxsize=256)  # one search asks several times: ranking, share, snippets
def _query_terms(query: str) -> tuple[tuple[str, float], ...]:
    weights: dict[str, float] = {}
    tokens = words(query)
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
    lower = text.lower()
    hits: list[tuple[int, str]] = []
    for stemmed in {s for s in query_terms(query) if s.isalnum()}:
        at = lower.find(stemmed)
        while at >= 0 and len(hits) < MAX_SNIPPET_HITS:
            if at == 0 or not lower[at - 1].isalnum():  # the start of a word
                hits.append((at, stemmed))
            at = lower.find(stemmed, at + 1)
    hits.sort()
    start, best = 0, -1
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
    room = width - 2
    cut = text[start : start + room]
    if start > 0:
        space = cut.find(" ")
        cut = "…" + (cut[space + 1 :] if 0 <= space < 30 else cut)
    if start + room < len(text):
        space = cut.rfind(" ")
        cut = (cut[:space] if space > room - 30 else cut) + "…"
    return cut[:width]
