"""A page's Markdown as headings and sections: where each starts and ends, its anchor, its
size in tokens, and which one a `section` argument names.

Sections come from ATX headings (`## Title`) outside code fences. A section runs to the next
heading of the same or a higher level; its anchor is the page's own `{#id}` when the Markdown
carries one, else a GitHub-style slug (`-1`, `-2` for repeats). A path `Heading > Subheading`
names a heading inside another, so a title that repeats under every release of a changelog
("Library", "Bug fixes") is addressable without its numbered anchor.

Its own module (budget cuts a page to a token budget with it; extraction, the reST writer
and the plain-text reader use the same headings): finding sections is one job, spending a
budget another.
"""

from __future__ import annotations

import copy
import json
import re
import threading
from bisect import bisect_left, bisect_right
from collections import OrderedDict
from dataclasses import dataclass, replace
from functools import cached_property
from typing import Any

TOKEN_BYTES = 3  # the token estimate: one token per 3 bytes of UTF-8 (see budget)
_FENCE = re.compile(r"[ \t]*(`{3,}|~{3,})")
# ATX heading: up to 3 spaces, 1-6 '#', then whitespace and the text. The optional closing
# '#'s and trailing blanks are cut in `_atx_text`, not by the regex: a lazy `(.*?)` before an
# optional `[ \t]+#+[ \t]*$` backtracks quadratically on a long run of spaces (a hostile page's
# `<h2>` full of &nbsp;).
_HEADING = re.compile(r" {0,3}(#{1,6})(?:[ \t]+(.*))?$")
_CUSTOM_ID = re.compile(r"\{#([\w.:-]+)\}$")  # the blanks before it: stripped after
_LINK = re.compile(r"!?\[([^\][]*)\]\([^()]*\)")  # linear: no run rescanned
_NOT_SLUG = re.compile(r"[^\w\- ]")
PATH_SEPARATOR = ">"
# A page entry's list of the page's own heading ids (None where a heading has none), one per
# Markdown heading, from extraction: `section` may name a heading by the id the site gives it.
HEADING_IDS = "heading_ids"
# A page entry's API entries (Sphinx `<dt id>` + `<dd>`), from extraction: [id, start, end]
# spans of its Markdown (see entries.py); `section` may name one by its id or name.
ENTRIES = "entries"


@dataclass(frozen=True, slots=True)
class HeadingSpan:
    start: int  # where the heading line starts in the Markdown
    end: int  # where its section ends
    level: int
    title: str
    anchor: str
    tokens: int  # estimated tokens of the whole section, subsections included

    def entry(self) -> dict[str, Any]:
        return {
            "level": self.level,
            "heading": self.title,
            "anchor": self.anchor,
            "tokens": self.tokens,
        }


class Document:
    """The headings and code fences of one page's Markdown."""

    def __init__(self, markdown: str) -> None:
        self.markdown = markdown
        self.outlines: dict[tuple[int, int, int, int], Any] = {}  # _outline's, by arguments
        found: list[tuple[int, int, str, str]] = []
        self.fences: list[tuple[int, int]] = []
        fence: tuple[str, int] | None = None  # (marker, start) of the open fence
        seen: dict[str, int] = {}
        offset = 0
        for line in markdown.split("\n"):
            opener = _FENCE.match(line)
            if fence is not None:
                marker, begun = fence
                closes = opener and opener.group(1).startswith(marker)
                if closes and not line[opener.end() :].strip():
                    self.fences.append((begun, offset + len(line)))
                    fence = None
            elif opener:
                fence = (opener.group(1), offset)
            elif line.startswith(("#", " ")):
                heading = _HEADING.match(line)
                text = _atx_text(heading.group(2)) if heading else ""
                if heading and text:
                    title, anchor = _title_and_anchor(text, seen, len(found))
                    found.append((offset, len(heading.group(1)), title, anchor))
            offset += len(line) + 1
        if fence is not None:
            self.fences.append((fence[1], len(markdown)))
        starts = [start for start, _, _, _ in found]
        self._heading_starts = starts
        # UTF-8 bytes before each heading (and before the end), so a section's size is a
        # subtraction instead of encoding the same text once per enclosing section.
        bytes_before = [0]
        for low, high in zip([0, *starts], [*starts, len(markdown)], strict=True):
            bytes_before.append(bytes_before[-1] + len(markdown[low:high].encode("utf-8")))
        self.tokens = -(-bytes_before[-1] // TOKEN_BYTES)
        position = {start: bytes_before[i + 1] for i, start in enumerate(starts)}
        position[len(markdown)] = bytes_before[-1]
        self.headings = [
            HeadingSpan(
                start,
                end,
                level,
                title,
                anchor,
                -(-(position[end] - position[start]) // TOKEN_BYTES),
            )
            for (start, level, title, anchor), end in zip(
                found, _ends(found, len(markdown)), strict=True
            )
        ]
        self._fence_starts = [begun for begun, _ in self.fences]

    def find(self, section: str) -> HeadingSpan | None:
        """The heading `section` names: first one whose anchor or text is exactly it, then a path
        `Heading > Subheading` (each step searched inside the previous one's section), then the
        first heading whose text starts with it, then whose text contains it."""
        everything = range(len(self.headings))
        found = self._match(section, everything, loose=False)
        if found is None and PATH_SEPARATOR in section:
            found = self._follow(section.split(PATH_SEPARATOR))
        return found if found is not None else self._match(section, everything, loose=True)

    def _follow(self, steps: list[str]) -> HeadingSpan | None:
        """The heading at the end of a path, each step found inside the one before."""
        numbers = range(len(self.headings))
        found = None
        for step in steps:
            found = self._match(step, numbers, loose=True)
            if found is None:
                return None
            numbers = self.inside(found.start + 1, found.end)
        return found

    def _match(self, section: str, numbers: range, loose: bool) -> HeadingSpan | None:
        """The first heading of `numbers` whose anchor is `section`, else whose text is it;
        when `loose`, else whose text starts with it, else contains it (all case-insensitive)."""
        anchor, text = looked_up(section)
        if not text:
            return None
        plains = self.plains
        tests = [
            lambda i: self.headings[i].anchor.lower() == anchor,
            lambda i: plains[i] == text,
        ]
        if loose:
            tests += [lambda i: plains[i].startswith(text), lambda i: text in plains[i]]
        for test in tests:
            for i in numbers:
                if test(i):
                    return self.headings[i]
        return None

    @cached_property
    def plains(self) -> list[str]:
        """Each heading's text as `find` compares it."""
        return [_plain(h.title) for h in self.headings]

    @cached_property
    def parents(self) -> list[int]:
        """Each heading's parent (the nearest heading above it of a higher level), or -1."""
        parents: list[int] = []
        open_headings: list[int] = []
        for i, heading in enumerate(self.headings):
            while open_headings and self.headings[open_headings[-1]].level >= heading.level:
                open_headings.pop()
            parents.append(open_headings[-1] if open_headings else -1)
            open_headings.append(i)
        return parents

    def inside(self, start: int, end: int) -> range:
        """The numbers of the headings that start in [start, end)."""
        starts = self._heading_starts
        return range(bisect_left(starts, start), bisect_left(starts, end))

    @cached_property
    def entries(self) -> list[tuple[dict[str, Any], int]]:
        """Each heading's outline entry and its size in bytes of JSON (with a comma)."""
        return [(entry, json_size(entry) + 1) for entry in (h.entry() for h in self.headings)]

    def last_heading_in(self, low: int, high: int) -> int | None:
        """The start of the last heading in (low, high]."""
        i = bisect_right(self._heading_starts, high) - 1
        return self._heading_starts[i] if i >= 0 and self._heading_starts[i] > low else None

    def in_fence(self, position: int) -> bool:
        i = bisect_right(self._fence_starts, position - 1) - 1
        return i >= 0 and self.fences[i][1] > position


def heading_lines(markdown: str) -> list[tuple[int, int, int]]:
    """(start, end, level) of each heading line, in the order (and by the rules) of
    `extract`'s `headings`: the same i-th heading, so a build can cut the page's text where
    its outline's headings stand."""
    found = []
    for heading in Document(markdown).headings:
        end = markdown.find("\n", heading.start)
        found.append((heading.start, len(markdown) if end < 0 else end, heading.level))
    return found


_documents: OrderedDict[str, Document] = OrderedDict()
_documents_lock = threading.Lock()  # pages are cut on worker threads, several at once


def page_document(page: dict[str, Any]) -> Document:
    """A page's document as get_page shows it: its headings with the page's own ids."""
    doc = document(page["markdown"], page["content_hash"])
    return _with_page_ids(doc, page.get(HEADING_IDS), page["content_hash"])


def _with_page_ids(doc: Document, ids: Any, content_hash: str) -> Document:
    """The document with each heading's anchor the page's own id where the page gives one
    (an HTML page's `<h2 id="env">`), not a slug of its text: the anchor a link opens, in
    the outline and the section get_page reports, and counted in the budget as shown."""
    if not isinstance(ids, list) or len(ids) != len(doc.headings):
        return doc
    own = [i if isinstance(i, str) and i and len(i) <= 500 else None for i in ids]
    if not any(own) or all(
        i is None or i == h.anchor for h, i in zip(doc.headings, own, strict=True)
    ):
        return doc
    key = f"{content_hash} ids:{hash(tuple(own))}"
    with _documents_lock:
        found = _documents.get(key)
    if found is None or found.markdown != doc.markdown:
        found = copy.copy(doc)
        for name in ("entries", "plains", "parents"):
            found.__dict__.pop(name, None)  # cached from the slugs' headings
        found.outlines = {}
        found.headings = [
            replace(h, anchor=i) if i else h for h, i in zip(doc.headings, own, strict=True)
        ]
    with _documents_lock:
        _documents[key] = found
        _documents.move_to_end(key)
        while len(_documents) > 16:
            _documents.popitem(last=False)
    return found


def document(markdown: str, content_hash: str) -> Document:
    """The parsed page, kept for the last few pages so repeated reads skip the scan."""
    with _documents_lock:
        found = _documents.get(content_hash)
    if found is None or found.markdown != markdown:
        found = Document(markdown)  # the scan itself outside the lock
    with _documents_lock:
        _documents[content_hash] = found
        _documents.move_to_end(content_hash)
        while len(_documents) > 16:
            _documents.popitem(last=False)
    return found


def json_size(data: Any) -> int:
    """Bytes of `data` as compact JSON, as the server sends it."""
    return len(json.dumps(data, ensure_ascii=False, separators=(",", ":")).encode("utf-8"))


def _ends(found: list[tuple[int, int, str, str]], length: int) -> list[int]:
    """Each section's end: the start of the next heading at the same or a higher level."""
    ends = [length] * len(found)
    open_sections: list[int] = []
    for i, (start, level, _, _) in enumerate(found):
        while open_sections and found[open_sections[-1]][1] >= level:
            ends[open_sections.pop()] = start
        open_sections.append(i)
    return ends


def _atx_text(rest: str | None) -> str:
    """A heading's text without its closing '#'s and trailing blanks (in linear time)."""
    text = (rest or "").rstrip(" \t")
    closed = text.rstrip("#")
    if closed != text and (not closed or closed[-1] in " \t"):
        text = closed.rstrip(" \t")
    return text


def _title_and_anchor(text: str, seen: dict[str, int], index: int) -> tuple[str, str]:
    custom = _CUSTOM_ID.search(text)
    title = _LINK.sub(r"\1", text[: custom.start()] if custom else text).strip()
    anchor = custom.group(1) if custom else _slug(title) or f"section-{index + 1}"
    count = seen.get(anchor, 0)
    seen[anchor] = count + 1
    return title, anchor if count == 0 else f"{anchor}-{count}"


def _slug(text: str) -> str:
    """GitHub's heading anchor: lower case, punctuation dropped, spaces to hyphens."""
    plain = _LINK.sub(r"\1", text).strip().lower()
    return _NOT_SLUG.sub("", plain).replace(" ", "-")


def page_entries(value: Any, length: int) -> dict[str, tuple[int, int]]:
    """A page entry's API entries by id (spans checked: a cache file is not trusted)."""
    found: dict[str, tuple[int, int]] = {}
    if not isinstance(value, list):
        return found
    for item in value:
        if isinstance(item, list) and len(item) == 3:
            anchor, start, end = item
            ints = type(start) is int and type(end) is int
            if isinstance(anchor, str) and ints and 0 <= start <= end <= length:
                found.setdefault(anchor, (start, end))
    return found


def find_section(
    doc: Document,
    page: dict[str, Any],
    entries: dict[str, tuple[int, int]],
    section: str,
    names: dict[str, str],
) -> HeadingSpan | tuple[str, tuple[int, int]] | None:
    """What `section` names (see `page_slice` for the order): a heading, or an entry's id and
    span."""
    heading = _by_page_id(doc, page.get(HEADING_IDS), section)
    if heading is not None:
        return heading
    wanted = section.strip().lstrip("#").strip()
    if wanted in entries:
        return wanted, entries[wanted]
    everything = range(len(doc.headings))
    heading = doc._match(section, everything, loose=False)
    if heading is None and PATH_SEPARATOR in section:
        heading = doc._follow(section.split(PATH_SEPARATOR))
    if heading is not None:
        return heading
    bare = wanted.removesuffix("()")
    anchor = names.get(bare) or names.get(wanted)
    if anchor is None and entries:
        folded = bare.lower()
        anchor = next((a for a in entries if a.lower() == folded), None) or next(
            (a for a in entries if a.lower().endswith("." + folded)), None
        )
    if anchor is not None and anchor in entries:
        return anchor, entries[anchor]
    return doc._match(section, everything, loose=True)


def _by_page_id(doc: Document, ids: Any, section: str) -> HeadingSpan | None:
    """The heading whose id on the page (its HTML id, as recorded in a manifest's outline)
    is exactly `section` (a leading '#' allowed)."""
    if not isinstance(ids, list) or len(ids) != len(doc.headings):
        return None
    wanted = section.strip().lstrip("#")
    for heading, anchor in zip(doc.headings, ids, strict=True):
        if anchor == wanted:
            return heading
    return None


def looked_up(section: str) -> tuple[str, str]:
    """What `section` is compared as: an anchor (lower-case) and a heading text (`_plain`)."""
    wanted = section.strip().lstrip("#").strip()
    return wanted.lower(), _plain(wanted)


def _plain(text: str) -> str:
    return " ".join(_LINK.sub(r"\1", text).replace("`", "").replace("*", "").split()).casefold()
