"""API entries of a page (Sphinx: `<dt id="json.dumps">` and its `<dd>`), found in the HTML and
located in the Markdown, so that `get_page(url, section="json.dumps")` reads that entry only.

Why markers: the Markdown conversion keeps no ids, and an entry is no heading. Before
conversion, each entry's term gets a start marker and its description an end marker (private
use characters, which no page text holds and the conversion passes through); after it, the
markers are found, taken out, and each entry's span recorded as whole lines: from the line
its signature starts on to the end of the line its description ends on. A class's entry
holds its methods' entries, as on the page.
"""

from __future__ import annotations

import re

from selectolax.lexbor import LexborNode

START, END = "\ue000", "\ue001"  # marker brackets: START + number + END opens an entry...
CLOSE = "\ue002"  # ...and CLOSE + number + END closes it
MAX_ENTRIES = 5000  # a page documenting more names than this: the rest are not marked
_MARKER = re.compile(f"[{START}{CLOSE}]([0-9]+){END}")
_ID = re.compile(r"[^\s#]{1,500}")

Span = tuple[str, int, int]  # (the entry's id, start, end) in the Markdown


def mark_entries(main: LexborNode) -> list[str]:
    """Put markers around every API entry of the main content (a `<dt id>` followed by its
    `<dd>`); the ids, in marker order."""
    ids: list[str] = []
    for term in main.css("dt[id]"):
        if len(ids) >= MAX_ENTRIES:
            break
        anchor = (term.attributes.get("id") or "").strip()
        description = term.next  # the first <dd> after it (signatures may share one)
        while description is not None and description.tag in ("-text", "-comment", "dt"):
            description = description.next
        if not _ID.fullmatch(anchor) or description is None or description.tag != "dd":
            continue
        number = len(ids)
        ids.append(anchor)
        term.insert_before(f"{START}{number}{END}")
        description.insert_child(f"{CLOSE}{number}{END}")
    return ids


def take_entries(markdown: str, ids: list[str]) -> tuple[str, list[Span]]:
    """The Markdown without markers, as it would be without them, and each entry's span in
    it (whole lines); an entry whose markers did not both come through is left out.

    A marker alone in its paragraph goes with the blank line after it (or, last in the
    text, the one before it): extraction would have left no paragraph there."""
    if not ids or (START not in markdown and CLOSE not in markdown):
        return markdown, []
    out: list[str] = []
    length = at = 0
    opened: dict[int, int] = {}
    closed: dict[int, int] = {}
    for match in _MARKER.finditer(markdown):
        kept = markdown[at : match.start()]
        out.append(kept)
        length += len(kept)
        at = match.end()
        alone_before = length == 0 or _ends_with_blank_line(out)
        if alone_before and markdown.startswith("\n\n", at):
            at += 2  # the marker's paragraph, with the blank line after it
        elif alone_before and markdown[at:] in ("\n", ""):
            length = _trim(out, length)  # last in the text: the blank line before it goes
        number = int(match.group(1))
        (opened if match.group(0)[0] == START else closed)[number] = length
    out.append(markdown[at:])
    clean = "".join(out)
    spans = []
    for number, start in opened.items():
        end = closed.get(number)
        if end is None or end < start or number >= len(ids):
            continue
        # A marker alone at the very end takes the blank line before it: a span that
        # closed there (an outer entry's, after an inner one's) ends with the text.
        start, end = min(start, len(clean)), min(end, len(clean))
        while end > start and clean[end - 1] == "\n":  # end with the description's last line
            end -= 1
        line_start = clean.rfind("\n", 0, start) + 1
        line_end = clean.find("\n", max(start, end))
        spans.append((ids[number], line_start, len(clean) if line_end < 0 else line_end))
    spans.sort(key=lambda span: span[1])
    return clean, spans


def _ends_with_blank_line(out: list[str]) -> bool:
    tail = ""
    for piece in reversed(out):
        tail = piece + tail
        if len(tail) >= 2:
            break
    return tail.endswith("\n\n")


def _trim(out: list[str], length: int) -> int:
    """Take the blank line (two newlines) off the end of the text so far; its new length."""
    text = "".join(out)
    out[:] = [text[:-2]] if text.endswith("\n\n") else [text]
    return length - (2 if text.endswith("\n\n") else 0)
