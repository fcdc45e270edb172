"""get_page within a token budget: a cheap token estimate, the page's outline, sections, slices.

Token estimate: one token per 3 bytes of UTF-8, rounded up. Tokenizers average about 4
characters per token on English prose and about 3 on code and Markdown punctuation, and a
non-ASCII character costs 2 to 4 bytes, so CJK text (about a token per character) is not
underestimated either. The budget holds for the whole result as the server sends it (compact
JSON, so escapes, the outline and the metadata count), not only for the Markdown.

Sections come from ATX headings (`## Title`) outside code fences. A section runs to the next
heading of the same or a higher level; its anchor is the page's own `{#id}` when the Markdown
carries one, else a GitHub-style slug (`-1`, `-2` for repeats). A path `Heading > Subheading`
names a heading inside another, so a title that repeats under every release of a changelog
("Library", "Bug fixes") is addressable without its numbered anchor.

At the default budget every heading is two calls away, whatever the page: the first call's
outline lists each heading as an entry when they all fit; on a crowded page (hundreds of
headings, a changelog) the shallow levels get entries and each deeper heading is named, text
only, in its listed ancestor's `subheadings`, so the second call asks for `anchor > name`.
Naming every heading wins over the first slice's length there: one reads such a page by its
outline, not from the top.
"""

from __future__ import annotations

import base64
import binascii
import copy
import json
import re
import threading
from bisect import bisect_left, bisect_right
from collections import OrderedDict
from dataclasses import dataclass, replace
from functools import cached_property
from typing import Any

from pinax.errors import InvalidArgs, NotFound

TOKEN_BYTES = 3
DEFAULT_MAX_TOKENS = 8000
MIN_MAX_TOKENS = 500
MAX_MAX_TOKENS = 20000
OUTLINE_SHARE = 0.5  # at most this part of the budget goes to the outline
CROWDED_SLICE_BYTES = 1000  # ...unless naming every heading needs more: then all but this
MIN_SLICE_BYTES = 200  # a slice smaller than this cannot make progress worth a call

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


class SectionNotFound(NotFound):
    """No heading matches; `choices` are the page's headings (titles and anchors) and API
    entries, for a "did you mean" hint, `headings` the (title, anchor) pairs and `symbols`
    the entries' ids, to list them."""

    def __init__(
        self,
        message: str,
        choices: list[str],
        headings: list[tuple[str, str]] | None = None,
        symbols: list[str] | None = None,
    ) -> None:
        super().__init__(message)
        self.choices = choices
        self.headings = headings or []
        self.symbols = symbols or []


def estimate_tokens(text: str) -> int:
    return -(-len(text.encode("utf-8")) // TOKEN_BYTES)


def result_tokens(result: dict[str, Any]) -> int:
    """Tokens of a result as the server sends it."""
    return estimate_tokens(json.dumps(result, ensure_ascii=False, separators=(",", ":")))


@dataclass(frozen=True, slots=True)
class Heading:
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
            Heading(
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

    def find(self, section: str) -> Heading | None:
        """The heading `section` names: first one whose anchor or text is exactly it, then a path
        `Heading > Subheading` (each step searched inside the previous one's section), then the
        first heading whose text starts with it, then whose text contains it."""
        everything = range(len(self.headings))
        found = self._match(section, everything, loose=False)
        if found is None and PATH_SEPARATOR in section:
            found = self._follow(section.split(PATH_SEPARATOR))
        return found if found is not None else self._match(section, everything, loose=True)

    def _follow(self, steps: list[str]) -> Heading | None:
        """The heading at the end of a path, each step found inside the one before."""
        numbers = range(len(self.headings))
        found = None
        for step in steps:
            found = self._match(step, numbers, loose=True)
            if found is None:
                return None
            numbers = self.inside(found.start + 1, found.end)
        return found

    def _match(self, section: str, numbers: range, loose: bool) -> Heading | None:
        """The first heading of `numbers` whose anchor is `section`, else whose text is it;
        when `loose`, else whose text starts with it, else contains it (all case-insensitive)."""
        anchor, text = _looked_up(section)
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
        return [(entry, _size(entry) + 1) for entry in (h.entry() for h in self.headings)]

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


def window(
    page: dict[str, Any],
    max_tokens: int,
    section: str | None = None,
    cursor: str | None = None,
    names: dict[str, str] | None = None,
) -> dict[str, Any]:
    """The part of `page` to return: all of it, one section, or a slice, within `max_tokens`.

    A cursor wins over a section (it already says where to go on). A section is looked for
    as an exact id first (a heading's id on the page, then an API entry's, dots kept), then
    as a heading's anchor or text, then as an API name (`names`: the manifest's symbol
    names and their anchors; else an entry whose id ends with it), then loosely in heading
    texts. An API entry's section is its entry only (its signature and description).
    """
    markdown: str = page["markdown"]
    content_hash: str = page["content_hash"]
    doc = page_document(page)
    meta = {k: v for k, v in page.items() if k not in ("markdown", HEADING_IDS, ENTRIES)}
    meta["total_tokens"] = doc.tokens
    inner: range | None = None  # the outline's headings, on a first call only
    if cursor is not None:
        start, end = decode_cursor(cursor, content_hash, len(markdown))
    elif section is not None:
        entries = _entries(page.get(ENTRIES), len(markdown))
        found = _find_section(doc, page, entries, section, names or {})
        if found is None:
            choices = [h.title for h in doc.headings] + [h.anchor for h in doc.headings]
            pairs = [(h.title, h.anchor) for h in doc.headings]
            ids = list(entries)
            message = f"no section {section!r} on {page['url']}"
            raise SectionNotFound(message, choices + ids, pairs, ids)
        if isinstance(found, Heading):
            start, end = found.start, found.end
            meta["section"] = {"heading": found.title, "anchor": found.anchor}
            inner = doc.inside(start + 1, end)  # below the section's own heading
        else:
            anchor, (start, end) = found
            meta["section"] = {"symbol": anchor, "anchor": anchor}
    else:
        start, end = 0, len(markdown)
        inner = doc.inside(start, end)
    budget = max_tokens * TOKEN_BYTES
    if end - start <= budget:  # else it cannot fit: a character is at least one byte
        whole = {**meta, "truncated": False, "markdown": markdown[start:end]}
        if result_tokens(whole) <= max_tokens:
            return whole
    heads = [{**meta, "truncated": True}]
    if inner is not None:
        meta_size = _size(heads[0])
        room = int(budget * OUTLINE_SHARE) - meta_size
        most = budget - meta_size - CROWDED_SLICE_BYTES
        entries, complete = _outline(doc, inner, room, most)
        outlined = {**heads[0], "outline": entries}
        if not complete:
            outlined["outline_truncated"] = True
        heads.insert(0, outlined)  # without the outline only if it leaves no room for text
    for head in heads:
        result = _slice(doc, head, start, end, max_tokens, content_hash)
        if result is not None:
            return result
    raise InvalidArgs(
        f"max_tokens={max_tokens} leaves no room for the page text after its metadata; "
        f"use a larger max_tokens (at most {MAX_MAX_TOKENS})"
    )


def _slice(
    doc: Document, head: dict[str, Any], start: int, end: int, max_tokens: int, content_hash: str
) -> dict[str, Any] | None:
    """`head` with the longest slice from `start` that keeps the result within budget."""
    # Size the room against the longest cursor the result could carry, then check for real.
    longest = {**head, "next_cursor": encode_cursor(end, end, content_hash), "markdown": ""}
    room = max_tokens * TOKEN_BYTES - _size(longest)
    while room >= MIN_SLICE_BYTES:
        cut = _cut(doc, start, end, room)
        result = {**head, "markdown": doc.markdown[start:cut]}
        if cut < end:
            result["next_cursor"] = encode_cursor(cut, end, content_hash)
        else:
            result["truncated"] = False
        if result_tokens(result) <= max_tokens:
            return result
        room = int(room * 0.9)
    return None


def encode_cursor(start: int, end: int, content_hash: str) -> str:
    raw = f"{start}.{end}.{_short(content_hash)}".encode("ascii")
    return base64.urlsafe_b64encode(raw).decode("ascii").rstrip("=")


def decode_cursor(cursor: str, content_hash: str, length: int) -> tuple[int, int]:
    """(start, end) of the slice a cursor points at; refuse cursors of another page version."""
    try:
        raw = base64.urlsafe_b64decode(cursor + "=" * (-len(cursor) % 4)).decode("ascii")
        start_text, end_text, version = raw.split(".")
        start, end = int(start_text), int(end_text)
    except (ValueError, binascii.Error, UnicodeDecodeError):
        raise InvalidArgs(f"cursor {cursor[:40]!r} is not a cursor get_page returned") from None
    if version != _short(content_hash):
        raise InvalidArgs(
            "the page changed since this cursor was returned; "
            "call get_page again without a cursor (or with a section)"
        )
    if not 0 <= start < end <= length:
        raise InvalidArgs(f"cursor {cursor[:40]!r} is not a cursor get_page returned")
    return start, end


def _short(content_hash: str) -> str:
    return content_hash.rsplit(":", 1)[-1][:12]


def _size(data: Any) -> int:
    return len(json.dumps(data, ensure_ascii=False, separators=(",", ":")).encode("utf-8"))


def _outline(
    doc: Document, numbers: range, room: int, most: int
) -> tuple[list[dict[str, Any]], bool]:
    """The outline of headings `numbers` and whether it names them all.

    Every heading its own entry when that fits in `room` bytes. Else entries for the deepest
    levels that fit, each deeper heading named in its listed ancestor's `subheadings`: within
    `room` if some depth fits, else within `most` (the first call to a crowded page is for
    finding one's way, not for its first lines). Else, on a tiny budget, the shallow entries
    that fit, and the outline is not whole.
    """
    if sum(doc.entries[i][1] for i in numbers) <= room:
        return [doc.entries[i][0] for i in numbers], True
    key = (numbers.start, numbers.stop, room, most)
    if key not in doc.outlines:  # folding a crowded outline to size takes a few ms: once
        if len(doc.outlines) >= 64:
            doc.outlines.clear()
        doc.outlines[key] = _crowded(doc, numbers, room, most)
    return doc.outlines[key]


def _crowded(
    doc: Document, numbers: range, room: int, most: int
) -> tuple[list[dict[str, Any]], bool]:
    levels = sorted({doc.headings[i].level for i in numbers})
    roots = {i for i in numbers if doc.parents[i] not in numbers}  # always listed
    for limit in (room, most):
        for depth in reversed([0, *levels[:-1]]):
            listed = {i for i in numbers if doc.headings[i].level <= depth} | roots
            outline = _folded(doc, numbers, listed)
            if _size(outline) <= limit:
                if limit == room:  # the room left goes to entries for the next level
                    below = next(level for level in levels if level > depth)
                    outline = _promoted(doc, numbers, listed, below, room) or outline
                return outline, True
    return _shallow(doc, numbers, room), False


def _promoted(
    doc: Document, numbers: range, listed: set[int], level: int, room: int
) -> list[dict[str, Any]] | None:
    """The outline with entries for as many `level` headings as fit in `room` bytes, in page
    order (a binary search: each one promoted adds about an entry's size)."""
    candidates = [i for i in numbers if doc.headings[i].level == level and i not in listed]
    best = None
    low, high = 1, len(candidates)
    while low <= high:
        middle = (low + high) // 2
        outline = _folded(doc, numbers, listed | set(candidates[:middle]))
        if _size(outline) <= room:
            best, low = outline, middle + 1
        else:
            high = middle - 1
    return best


def _folded(doc: Document, numbers: range, listed: set[int]) -> list[dict[str, Any]]:
    """Entries for the `listed` headings of `numbers`, each other heading named in the
    subheadings of its nearest listed ancestor."""
    parents = doc.parents
    names: dict[int, list[str]] = {i: [] for i in sorted(listed)}
    known: dict[int, tuple[dict[str, int], dict[str, int]]] = {}
    for i in numbers:
        if i in names:
            continue
        holder = parents[i]
        while holder not in names:
            holder = parents[holder]
        if holder not in known:
            known[holder] = _first_matches(doc, holder)
        names[holder].append(_name(doc, i, known[holder]))
    return [
        {**doc.entries[i][0], "subheadings": found} if found else doc.entries[i][0]
        for i, found in names.items()
    ]


def _first_matches(doc: Document, holder: int) -> tuple[dict[str, int], dict[str, int]]:
    """The first heading inside `holder` for each anchor and each text, as `find` looks."""
    heading = doc.headings[holder]
    anchors: dict[str, int] = {}
    texts: dict[str, int] = {}
    for i in doc.inside(heading.start + 1, heading.end):
        anchors.setdefault(doc.headings[i].anchor.lower(), i)
        texts.setdefault(doc.plains[i], i)
    return anchors, texts


def _name(doc: Document, i: int, first: tuple[dict[str, int], dict[str, int]]) -> str:
    """How heading `i` is named after `holder >`: its text, or `#anchor` when its text would
    find an earlier heading there (or cannot be a path step)."""
    title = doc.headings[i].title
    anchors, texts = first
    anchor, text = _looked_up(title)
    found = anchors.get(anchor, texts.get(text))
    if text and found == i and PATH_SEPARATOR not in title:
        return title
    return "#" + doc.headings[i].anchor


def _shallow(doc: Document, numbers: range, room: int) -> list[dict[str, Any]]:
    """Entries for the headings of `numbers` that fit in `room` bytes, shallow levels first:
    every heading down to the deepest level that fits whole, then the next level's headings
    in page order while they fit."""
    levels = doc.headings
    kept: list[int] = []
    used = 0
    for i in sorted(numbers, key=lambda i: (levels[i].level, i)):
        size = doc.entries[i][1]
        if used + size > room:
            break
        kept.append(i)
        used += size
    return [doc.entries[i][0] for i in sorted(kept)]


def _cut(doc: Document, start: int, end: int, room: int) -> int:
    """Where a slice from `start` ends: within `room` bytes of JSON, at a heading, a paragraph
    break outside code, or a line break, whichever comes last in the slice's second half."""
    text = doc.markdown
    length = min(end - start, room)  # a character is at least one byte
    while length > 0:
        size = _size(text[start : start + length]) - 2
        if size <= room:
            break
        length = min(length - 1, int(length * room / size * 0.98))
    if length <= 0:
        return start + 1
    stop = start + length
    if stop >= end:
        return end
    floor = start + length // 2
    heading = doc.last_heading_in(floor, stop)
    if heading is not None:
        return heading
    position = text.rfind("\n\n", floor, stop)
    while position != -1 and doc.in_fence(position):
        position = text.rfind("\n\n", floor, position)
    if position != -1:
        return position + 2
    position = text.rfind("\n", floor, stop)
    return position + 1 if position != -1 else stop


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


def _entries(value: Any, length: int) -> dict[str, tuple[int, int]]:
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


def _find_section(
    doc: Document,
    page: dict[str, Any],
    entries: dict[str, tuple[int, int]],
    section: str,
    names: dict[str, str],
) -> Heading | tuple[str, tuple[int, int]] | None:
    """What `section` names (see `window` for the order): a heading, or an entry's id and
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


def _by_page_id(doc: Document, ids: Any, section: str) -> Heading | None:
    """The heading whose id on the page (its HTML id, as recorded in a manifest's outline)
    is exactly `section` (a leading '#' allowed)."""
    if not isinstance(ids, list) or len(ids) != len(doc.headings):
        return None
    wanted = section.strip().lstrip("#")
    for heading, anchor in zip(doc.headings, ids, strict=True):
        if anchor == wanted:
            return heading
    return None


def _looked_up(section: str) -> tuple[str, str]:
    """What `section` is compared as: an anchor (lower-case) and a heading text (`_plain`)."""
    wanted = section.strip().lstrip("#").strip()
    return wanted.lower(), _plain(wanted)


def _plain(text: str) -> str:
    return " ".join(_LINK.sub(r"\1", text).replace("`", "").replace("*", "").split()).casefold()
