"""Text a reader cannot see, found and removed: used on extracted and on served Markdown.

Kept apart from extract.py so the page reader can clean served Markdown without importing
the HTML toolchain.
"""

from __future__ import annotations

import re
from bisect import bisect_right

from pinax.pages.headings import Document
from pinax.pages.hidden import drop_hidden_markup

# Zero-width and bidirectional control characters: invisible, and a classic way to smuggle
# text past a human reviewer. U+00AD (soft hyphen) is invisible too. A zero-width joiner
# between two emoji is part of the emoji and stays.
# Also: the combining grapheme joiner, Hangul fillers, Mongolian variation selectors, the
# interlinear annotation marks, invisible musical format marks, Unicode tag characters
# (U+E0000..E007F, which can spell out a hidden ASCII message) and variation selectors (which
# can carry a byte each); U+FE0E/FE0F right after an emoji choose its look and stay.
_INVISIBLE = re.compile(
    "[\u00ad\u034f\u115f\u1160\u180b-\u180f\u200b-\u200f\u202a-\u202e\u2060-\u2064"
    "\u2066-\u206f\u3164\ufe00-\ufe0f\ufeff\uffa0\ufff9-\ufffb\U0001d173-\U0001d17a"
    "\U000e0000-\U000e007f\U000e0100-\U000e01ef]"
)
_EMOJI = re.compile("[\u2600-\u27bf\ufe0f\U0001f000-\U0001faff]")


def strip_invisible(text: str) -> str:
    """`text` without zero-width and bidirectional control characters (see above)."""
    if text.isascii():  # (known at once: none of them is ASCII)
        return text
    return _INVISIBLE.sub(_unless_emoji_joiner, text) if _INVISIBLE.search(text) else text


def count_invisible(text: str) -> int:
    """How many characters `strip_invisible` would remove."""
    return len(text) - len(strip_invisible(text))


def _unless_emoji_joiner(match: re.Match[str]) -> str:
    text, at = match.string, match.start()
    if match.group(0) in "\ufe0e\ufe0f":  # an emoji's presentation, right after it
        after_emoji = at > 0 and _EMOJI.match(text[at - 1]) and text[at - 1] not in "\ufe0e\ufe0f"
        return match.group(0) if after_emoji else ""
    if match.group(0) != "\u200d":
        return ""
    joins_emoji = (
        0 < at < len(text) - 1 and _EMOJI.match(text[at - 1]) and _EMOJI.match(text[at + 1])
    )
    return "\u200d" if joins_emoji else ""


_TAG = re.compile(r"</?[A-Za-z][^<>]{0,2000}>")
# What hiding needs (see `may_hide`). The tag scan stops at the tag's end or the next "<":
# no text is scanned twice.
_NEVER_SHOWN = re.compile("<(?:style|script|template|noscript|head|title)")  # (lower case)
_HIDING_WORDS = ("hidden", "style")  # what `_HIDING_TAG` needs, looked for first
_HIDING_TAG = re.compile(r"<[A-Za-z][^<>]*?(?i:hidden|style)")
_CONTROL = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f]")
_ASCII_CONTROL = bytes([*range(0x00, 0x09), *range(0x0B, 0x20), 0x7F])  # `_CONTROL`'s ASCII
_BLANKS = re.compile(r"[ \t]*+")
_FENCE_MARKS = ("```", "~~~")


def visible_text(markdown: str) -> str:
    """What a reader of rendered Markdown sees of it, for a search snippet: get_page's
    cleaning (`clean_markdown`), then the tags outside code dropped (inside code they are
    the example) and control characters removed. Lines are kept. The code fences found
    while cleaning serve the tags too when the cleaning removed nothing (most text)."""
    text, _, fences = _cleaned(markdown)
    if "<" in text:
        if "`" in text or "~~~" in text:  # code, maybe: its tags are the example
            in_code = code_test(text, fences or Fences(text))
            text = _TAG.sub(lambda tag: tag.group() if in_code(tag.start()) else "", text)
        else:
            text = _TAG.sub("", text)
    if text.isascii():  # (a byte table, several times faster than the expression)
        return text.encode("ascii").translate(None, _ASCII_CONTROL).decode("ascii")
    return _CONTROL.sub("", text)


def clean_markdown(text: str) -> str:
    """Served Markdown as get_page keeps it (see `clean_markdown_counted`): what `pinax build
    --content` records of a Markdown twin or a page served as Markdown."""
    return _cleaned(text)[0]


def clean_markdown_counted(text: str) -> tuple[str, int]:
    """Served Markdown without what its rendered page would not show, and how many characters
    went: invisible characters, HTML comments, and raw HTML that hides its content (outside
    code, where they are the example)."""
    cleaned, removed, _ = _cleaned(text)
    return cleaned, removed


def _cleaned(text: str) -> tuple[str, int, Fences | None]:
    """`clean_markdown_counted`, and the cleaned text's code fences where they were found
    (None where none were looked for or the text changed after)."""
    cleaned = strip_invisible(text)
    removed = len(text) - len(cleaned)
    if "<" not in cleaned:
        return cleaned, removed, None
    fences = None  # the text's code fences, while the text is as they were found in
    if "<!--" in cleaned:
        fences = Fences(cleaned)
        dropped = _drop_comments(cleaned, fences)
        if len(dropped) < len(cleaned):  # comments went (only ever removed): fences moved
            removed += len(cleaned) - len(dropped)
            cleaned, fences = dropped, None
    if not may_hide(cleaned):
        return cleaned, removed, fences
    fences = fences or Fences(cleaned)
    kept, hidden = drop_hidden_markup(cleaned, code_test(cleaned, fences))
    return kept, removed + hidden, fences if not hidden else None


def may_hide(text: str) -> bool:
    """Whether raw HTML in `text` could hide anything: an element that never shows (a style
    sheet, a script...), or a tag with a hiding attribute (`hidden`, `aria-hidden`,
    `style`). Most Markdown has neither, and looking at each element costs far more."""
    lower = text.lower()
    if _NEVER_SHOWN.search(lower):
        return True
    return any(word in lower for word in _HIDING_WORDS) and bool(_HIDING_TAG.search(text))


class Fences:
    """The code fences of Markdown, found as `budget.Document` finds them (a line of up to
    any blanks, then three or more backticks or tildes, opens a fence; one of at least as
    many of the same closes it when nothing but blanks follows), without the headings and
    sizes a Document works out: what the hidden-text passes need. Only the lines holding a
    fence mark are looked at."""

    def __init__(self, text: str) -> None:
        self.fences: list[tuple[int, int]] = []  # (start of the opening line, end of the closing)
        opened: tuple[str, int] | None = None  # (marks, line start) of the open fence
        for line, marks, after in fence_lines(text):
            if opened is None:
                opened = (marks, line)
            elif marks.startswith(opened[0]):
                end = text.find("\n", after)
                end = len(text) if end < 0 else end
                if not text[after:end].strip():
                    self.fences.append((opened[1], end))
                    opened = None
        if opened is not None:
            self.fences.append((opened[1], len(text)))
        self._starts = [start for start, _ in self.fences]

    def in_fence(self, position: int) -> bool:
        i = bisect_right(self._starts, position - 1) - 1
        return i >= 0 and self.fences[i][1] > position


def fence_lines(text: str) -> list[tuple[int, str, int]]:
    """(line start, its run of fence marks, where the run ends) of each line that begins,
    after spaces and tabs, with three or more backticks or tildes, in order. A line is
    looked at once, from its first mark (any later one follows text): linear time, however
    many marks a long line holds."""
    found = []
    for mark in _FENCE_MARKS:
        at = text.find(mark)
        while at >= 0:
            line = text.rfind("\n", 0, at) + 1  # (back over this line only: see below)
            end = at + 3
            while end < len(text) and text[end] == mark[0]:
                end += 1
            if not text[line:at].strip(" \t"):
                found.append((line, text[at:end], end))
            next_line = text.find("\n", end)
            at = -1 if next_line < 0 else text.find(mark, next_line)
    found.sort()
    return found


def code_test(text: str, fences: Fences | Document):
    """A position -> "inside code?" test for positions asked in increasing order: fenced
    code, or an odd number of backticks before it on its line (a code span)."""
    start = ticks = 0  # where the count of the current line's backticks has reached

    def in_code(position: int) -> bool:
        nonlocal start, ticks
        if fences.in_fence(position):
            return True
        newline = text.rfind("\n", start, position)
        if newline >= 0:  # a new line: its own code spans
            start, ticks = newline + 1, 0
        ticks += text.count("`", start, position)
        start = position
        return ticks % 2 == 1

    return in_code


def _drop_comments(text: str, fences: Fences) -> str:
    """`text` without its HTML comments outside fenced code and code spans, in one pass; an
    unclosed comment runs to the end, as it does in a browser. A line left with nothing but
    comments and blanks goes too."""
    out: list[str] = []
    position = ticks = 0
    line_mark, line_blank = 0, True  # where the current line starts in `out`; blank so far?
    while (start := text.find("<!--", position)) >= 0:
        newline = text.rfind("\n", position, start)
        if newline >= 0:
            out.append(text[position : newline + 1])
            position, ticks, line_mark, line_blank = newline + 1, 0, len(out), True
        ticks += text.count("`", position, start)
        line_blank = line_blank and not text[position:start].strip(" \t")
        if ticks % 2 or fences.in_fence(start):  # inside code: the comment is the example
            out.append(text[position : start + 4])
            position, line_blank = start + 4, False
            continue
        out.append(text[position:start])
        end = text.find("-->", start + 4)
        position = len(text) if end < 0 else end + 3
        after = _BLANKS.match(text, position).end()
        if line_blank and text[after : after + 1] in ("\n", ""):
            del out[line_mark:]  # the whole line goes
            position = min(after + 1, len(text))
    out.append(text[position:])
    return "".join(out)
