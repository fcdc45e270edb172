"""get_page within a token budget: a cheap token estimate, the page's outline, sections, slices.

Token estimate: one token per 3 bytes of UTF-8, rounded up. Tokenizers average about 4
characters per token on English prose and about 3 on code and Markdown punctuation, and a
non-ASCII character costs 2 to 4 bytes, so CJK text (about a token per character) is not
underestimated either. The budget holds for the whole result as the server sends it (compact
JSON, so escapes, the outline and the metadata count), not only for the Markdown.

Sections come from ATX headings (`## Title`) outside code fences. A section runs to the next
heading of the same or a higher level; its anchor is the page's own `{#id}` when the Markdown
carries one, else a GitHub-style slug (`-1`, `-2` for repeats).
"""

from __future__ import annotations

import base64
import binascii
import json
import re
from bisect import bisect_left, bisect_right
from collections import OrderedDict
from dataclasses import dataclass
from functools import cached_property
from typing import Any

from pinax.errors import InvalidArgs, NotFound

TOKEN_BYTES = 3
DEFAULT_MAX_TOKENS = 8000
MIN_MAX_TOKENS = 500
MAX_MAX_TOKENS = 20000
OUTLINE_SHARE = 0.5  # at most this part of the budget goes to the outline
MIN_SLICE_BYTES = 200  # a slice smaller than this cannot make progress worth a call

_FENCE = re.compile(r"[ \t]*(`{3,}|~{3,})")
_HEADING = re.compile(r" {0,3}(#{1,6})(?:[ \t]+(.*?))?(?:[ \t]+#+)?[ \t]*$")
_CUSTOM_ID = re.compile(r"\s*\{#([\w.:-]+)\}$")
_LINK = re.compile(r"!?\[([^\]]*)\]\([^)]*\)")
_NOT_SLUG = re.compile(r"[^\w\- ]")


class SectionNotFound(NotFound):
    """No heading matches; `choices` are the page's headings, for a "did you mean" hint."""

    def __init__(self, message: str, choices: list[str]) -> None:
        super().__init__(message)
        self.choices = choices


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
                if heading and heading.group(2):
                    title, anchor = _title_and_anchor(heading.group(2), seen, len(found))
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
        """The first heading, in page order, whose anchor is `section`, else whose text is it,
        else whose text starts with it, else contains it (all case-insensitive)."""
        wanted = section.strip().lstrip("#").strip()
        anchor = wanted.lower()
        text = _plain(wanted)
        if not text:
            return None
        for test in (
            lambda h: h.anchor.lower() == anchor,
            lambda h: _plain(h.title) == text,
            lambda h: _plain(h.title).startswith(text),
            lambda h: text in _plain(h.title),
        ):
            for heading in self.headings:
                if test(heading):
                    return heading
        return None

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


_documents: OrderedDict[str, Document] = OrderedDict()


def document(markdown: str, content_hash: str) -> Document:
    """The parsed page, kept for the last few pages so repeated reads skip the scan."""
    found = _documents.get(content_hash)
    if found is None or found.markdown != markdown:
        found = _documents[content_hash] = Document(markdown)
        while len(_documents) > 16:
            _documents.popitem(last=False)
    _documents.move_to_end(content_hash)
    return found


def window(
    page: dict[str, Any], max_tokens: int, section: str | None = None, cursor: str | None = None
) -> dict[str, Any]:
    """The part of `page` to return: all of it, one section, or a slice, within `max_tokens`.

    A cursor wins over a section (it already says where to go on).
    """
    markdown: str = page["markdown"]
    content_hash: str = page["content_hash"]
    doc = document(markdown, content_hash)
    meta = {k: v for k, v in page.items() if k != "markdown"}
    meta["total_tokens"] = doc.tokens
    inner: range | None = None  # the outline's headings, on a first call only
    if cursor is not None:
        start, end = decode_cursor(cursor, content_hash, len(markdown))
    elif section is not None:
        heading = doc.find(section)
        if heading is None:
            choices = [h.title for h in doc.headings] + [h.anchor for h in doc.headings]
            raise SectionNotFound(f"no section {section!r} on {page['url']}", choices)
        start, end = heading.start, heading.end
        meta["section"] = {"heading": heading.title, "anchor": heading.anchor}
        inner = doc.inside(start + 1, end)  # below the section's own heading
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
        room = int(budget * OUTLINE_SHARE) - _size(heads[0])
        entries, complete = _outline(doc, inner, room)
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


def _outline(doc: Document, numbers: range, room: int) -> tuple[list[dict[str, Any]], bool]:
    """The outline of headings `numbers` that fits in `room` bytes, and whether it is whole.

    Shallow headings first: every heading down to the deepest level that fits whole, then the
    next level's headings in page order while they fit.
    """
    levels = doc.headings
    kept: list[int] = []
    used = 0
    for i in sorted(numbers, key=lambda i: (levels[i].level, i)):
        size = doc.entries[i][1]
        if used + size > room:
            break
        kept.append(i)
        used += size
    return [doc.entries[i][0] for i in sorted(kept)], len(kept) == len(numbers)


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


def _plain(text: str) -> str:
    return " ".join(_LINK.sub(r"\1", text).replace("`", "").replace("*", "").split()).casefold()
