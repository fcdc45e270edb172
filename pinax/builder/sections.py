"""A page's text cut into sections at its outline's headings, for `pinax build --content`.

Why here and not in the reader: the build records an outline and the text must follow it
by position (`sections[1:]` are the outline's headings), so the text is cut exactly where
the outline's headings stand in the Markdown the outline was read from. `sections[0]` is
the lead: the text before the first outline heading, headed by the page title (filled in
once the build has settled the titles). A heading the outline leaves out (a second H1, one
past the outline's limit) stays in its section's text as a plain line; the page title's own
H1 line goes. The text is Markdown as get_page returns it (hidden text already dropped by
its extraction), with trailing blanks and runs of blank lines squeezed; a page's text is
capped at `MAX_PAGE_TEXT` bytes, shared so that every section keeps its beginning (see
`capped`), and no section is ever dropped, so the positions still match the outline. One
pass over the text (and a sort of the section sizes when capped).
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from datetime import UTC
from email.utils import parsedate_to_datetime

from pinax.manifest import MAX_SECTION_HEADING, Heading, Section, is_date

# UTF-8 bytes of one page's text. A docs page has 10 to 30 KB; the cap is for the few with
# hundreds (a changelog, a whole library's reference): on the fixture pages of
# bench/bench_content_build.py, 64 KB loses too much of such pages (Sphinx's word F1 .935),
# 128 KB costs 5.3 KB gzipped a page on average.
MAX_PAGE_TEXT = 88 * 1024
MAX_URL = 8192  # a longer page URL gets no text: a content file's reader refuses the line


@dataclass(frozen=True, slots=True)
class Cut:
    """One heading line of the Markdown: where it stands and what it becomes."""

    start: int
    end: int  # the end of the heading's line (its newline not included)
    heading: Heading | None  # the outline entry it starts; None: left out of the outline
    title: bool = False  # the page title's H1: the lead's heading, its line dropped


@dataclass(frozen=True, slots=True)
class Sections:
    """A page's sections (the lead's heading still empty), whether the cap cut them, and
    when the text was current where the file that gave it says so (an llms-full.txt)."""

    sections: tuple[Section, ...]
    capped: bool = False
    fetched_at: str | None = None

    def titled(self, title: str) -> tuple[Section, ...]:
        """The sections with the lead headed by the page title (cut to what a content
        file's heading may hold: a manifest's titles have no such limit)."""
        if not self.sections:
            return ()
        heading = " ".join(title.split())[:MAX_SECTION_HEADING].strip()
        return (replace(self.sections[0], heading=heading), *self.sections[1:])


def split(markdown: str, cuts: list[Cut]) -> Sections:
    """The sections of `markdown` cut at `cuts` (in order, not overlapping)."""
    found: list[Section] = []
    level, heading, anchor = 1, "", None
    parts: list[str] = []
    position = 0
    for cut in cuts:
        if cut.start < position:
            continue  # not in order: never produced, but never a reason to repeat text
        parts.append(markdown[position : cut.start])
        position = min(len(markdown), cut.end + 1)
        if cut.heading is None:
            if not cut.title:
                parts.append(plain_heading(markdown[cut.start : cut.end]) + "\n")
            continue
        found.append(Section(level, heading, tidy("".join(parts)), anchor))
        parts = []
        level, heading, anchor = cut.heading.level, cut.heading.title, cut.heading.anchor
    parts.append(markdown[position:])
    found.append(Section(level, heading, tidy("".join(parts)), anchor))
    return capped(found)


def capped(found: list[Section], limit: int = MAX_PAGE_TEXT) -> Sections:
    """The sections with at most `limit` bytes of text in all: when a page has more, every
    section keeps its beginning (the small ones whole, the big ones cut to one same size,
    at a line's or word's end), so each section can still be found by what it opens with."""
    sizes = [len(section.text.encode("utf-8")) for section in found]
    if sum(sizes) <= limit:
        return Sections(tuple(found))
    share = _share(sizes, limit)
    out = [
        replace(section, text=_head(section.text, share)) if size > share else section
        for section, size in zip(found, sizes, strict=True)
    ]
    return Sections(tuple(out), True)


def _share(sizes: list[int], limit: int) -> int:
    """The most bytes a section may keep so that all of them fit in `limit`."""
    room, left = limit, len(sizes)
    for size in sorted(sizes):
        fair = room // left
        if size > fair:
            return fair
        room -= size
        left -= 1
    return max(sizes, default=0)


def _head(text: str, size: int) -> str:
    """The first `size` bytes of `text`, ended at a line's end (else a word's) when one is
    in the second half."""
    head = text.encode("utf-8")[:size].decode("utf-8", errors="ignore")
    for stop in ("\n", " "):
        end = head.rfind(stop)
        if end > len(head) // 2:
            return head[:end].rstrip()
    return head.rstrip()


def tidy(text: str) -> str:
    """Trailing blanks off every line, runs of blank lines squeezed to one, no blank lines
    at either end (indentation kept: it is a list's nesting or a code block's)."""
    lines: list[str] = []
    blank = False
    for line in text.split("\n"):
        line = line.rstrip()
        if not line:
            blank = bool(lines)
            continue
        if blank:
            lines.append("")
            blank = False
        lines.append(line)
    return "\n".join(lines)


def plain_heading(line: str) -> str:
    """An ATX heading line's text, without its marks (`## Title ##` -> `Title`)."""
    text = line.strip().lstrip("#").strip()
    closed = text.rstrip("#")
    if closed != text and (not closed or closed[-1] in " \t"):
        text = closed.rstrip()
    return text


def fetched_at(last_modified: str | None, lastmod: str | None) -> str | None:
    """When the text was current: the answer's Last-Modified (as ISO 8601, UTC), else the
    sitemap's lastmod as given; None when neither is known (never the build's clock: a
    rebuild of an unchanged site writes the same bytes)."""
    if last_modified:
        try:
            when = parsedate_to_datetime(last_modified[:64])
        except (TypeError, ValueError, IndexError, OverflowError):
            when = None
        if when is not None and when.tzinfo is not None:
            return when.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
    if lastmod and is_date(lastmod):  # what a content file may hold (a sitemap's is untrusted)
        return lastmod
    return None
