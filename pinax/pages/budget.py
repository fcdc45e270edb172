"""get_page within a token budget: a cheap token estimate, the page's outline, sections, slices.

Token estimate: one token per 3 bytes of UTF-8, rounded up. Tokenizers average about 4
characters per token on English prose and about 3 on code and Markdown punctuation, and a
non-ASCII character costs 2 to 4 bytes, so CJK text (about a token per character) is not
underestimated either. The budget holds for the whole result as the server sends it (compact
JSON, so escapes, the outline and the metadata count), not only for the Markdown.

Sections, their anchors and which one a `section` names: pinax.pages.headings.

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
import json
from typing import Any

from pinax.errors import InvalidArgs, NotFound
from pinax.pages.headings import (
    ENTRIES,
    HEADING_IDS,
    PATH_SEPARATOR,
    TOKEN_BYTES,
    Document,
    HeadingSpan,
    find_section,
    json_size,
    looked_up,
    page_document,
    page_entries,
)

DEFAULT_MAX_TOKENS = 8000
MIN_MAX_TOKENS = 500
MAX_MAX_TOKENS = 20000
OUTLINE_SHARE = 0.5  # at most this part of the budget goes to the outline
CROWDED_SLICE_BYTES = 1000  # ...unless naming every heading needs more: then all but this
MIN_SLICE_BYTES = 200  # a slice smaller than this cannot make progress worth a call


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


def page_slice(
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
        entries = page_entries(page.get(ENTRIES), len(markdown))
        found = find_section(doc, page, entries, section, names or {})
        if found is None:
            choices = [h.title for h in doc.headings] + [h.anchor for h in doc.headings]
            pairs = [(h.title, h.anchor) for h in doc.headings]
            ids = list(entries)
            message = f"no section {section!r} on {page['url']}"
            raise SectionNotFound(message, choices + ids, pairs, ids)
        if isinstance(found, HeadingSpan):
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
        meta_size = json_size(heads[0])
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
    room = max_tokens * TOKEN_BYTES - json_size(longest)
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
            if json_size(outline) <= limit:
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
        if json_size(outline) <= room:
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
    anchor, text = looked_up(title)
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
        size = json_size(text[start : start + length]) - 2
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
