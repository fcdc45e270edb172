"""Headings from Markdown a site serves (a Markdown twin, a page answering as `text/markdown`,
the pages of an llms-full.txt), for `--outline`.

Why separate from get_page's Markdown reading: the build only needs the ATX headings outside
code fences, in one linear pass. Anchors: a heading's explicit `{#id}` (kramdown, MkDocs
attr_list, Docusaurus, Hugo) first; else, given the `slugger` of the generator that renders
the Markdown (a docs folder's, see generators/slugs.py), the id it makes; else none, since
how a site turns headings into ids is its renderer's business.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Callable, Iterable, Iterator

from pinax.manifest import Heading

from .sections import Cut

_FENCE = re.compile(r"[ \t]{0,3}(`{3,}|~{3,})")
_CANDIDATE = re.compile(r"^[ \t]{0,3}[#`~][^\n]*", re.M)  # a heading or a fence, maybe
MAX_LINE = 2000  # a longer line is no heading worth an outline entry (titles stop at 500)
_ANCHOR_TEXT = re.compile(r"[^\s#{}]{1,500}")
_LINK = re.compile(r"!?\[([^\][]*)\]\([^()]*\)")  # linear: no run rescanned
_MARKS = re.compile(r"`|\*\*|__|<[^>\n]{0,200}>")
_EMPHASIS = re.compile(
    r"(?<![\w*])\*(?=\S)([^*\n]{1,500}?)(?<=\S)\*(?![\w*])|(?<![\w_])_(?=\S)([^_\n]{1,500}?)(?<=\S)_(?![\w_])"
)
_ESCAPE = re.compile(r"\\([!-/:-@\[-`{-~])")


def markdown_outline(
    markdown: str, slugger: Callable[[str], str] | None = None
) -> tuple[str | None, tuple[Heading, ...]]:
    """The first H1's text (None without one) and the h2..h6 below it, in order."""
    title, cuts = outline_cuts(markdown, slugger)
    return title, tuple(cut.heading for cut in cuts if cut.heading is not None)


def outline_cuts(
    markdown: str, slugger: Callable[[str], str] | None = None
) -> tuple[str | None, list[Cut]]:
    """The first H1's text, and every heading line as a `Cut`: the title's, the outline's
    entries, and the headings the outline leaves out (where `--content` cuts the text)."""
    from .outlines import outline_entries

    title: str | None = None
    found: list[tuple[int, str, str | None]] = []
    lines: list[tuple[int, int, bool]] = []  # (start, end, the title's?) of each heading line
    # Only lines that may open a heading or a fence matter: found by one regex scan, so a
    # folder of 10,000 pages is not walked line by line in Python.
    candidates = ((m.group(), m.start()) for m in _CANDIDATE.finditer(markdown))
    for _, line, start in _outside_code(candidates):
        found_heading = _atx(line)
        if found_heading is None:
            continue
        level, text = found_heading
        text, anchor = _custom_id(text)
        text = " ".join(_plain(text).split())
        if slugger is not None:
            made = slugger(text)  # every heading, so repeated texts count as the site counts
            anchor = anchor or made
        is_title = level == 1 and title is None
        if is_title:
            title = text or None
        found.append((0 if is_title else level, text, anchor))
        lines.append((start, start + len(line), is_title))
    entries = dict(outline_entries(tuple(found)))
    cuts = [
        Cut(start, end, entries.get(i), is_title) for i, (start, end, is_title) in enumerate(lines)
    ]
    return title, cuts


def _plain(text: str) -> str:
    """A heading's text without links, code and emphasis marks, tags and escapes (each
    regex run only when its character is there: most headings are plain words)."""
    if "[" in text:
        text = _LINK.sub(r"\1", text)
    if "`" in text or "**" in text or "__" in text or "<" in text:
        text = _MARKS.sub("", text)
    if "*" in text or "_" in text:  # `*em*`, `_em_`; never `snake_case`
        text = _EMPHASIS.sub(lambda m: m.group(1) or m.group(2), text)
    if "\\" in text:
        text = _ESCAPE.sub(r"\1", text)
    return text


def _outside_code(lines: Iterable[tuple[str, int]]) -> Iterator[tuple[int, str, int]]:
    """(number, line, offset of its start) of the (line, offset) pairs outside fenced code
    blocks, fences left out."""
    fence: str | None = None
    for i, (line, start) in enumerate(lines):
        opener = _FENCE.match(line)
        if fence is not None:
            if opener and opener.group(1).startswith(fence) and not line[opener.end() :].strip():
                fence = None
            continue
        if opener:
            fence = opener.group(1)
            continue
        yield i, line, start


def _atx(line: str) -> tuple[int, str] | None:
    """An ATX heading's level and text, or None. By hand, not by regex: a regex with an
    optional closing sequence backtracks quadratically on a long run of spaces."""
    if len(line) > MAX_LINE:
        return None
    stripped = line.lstrip(" ")
    if len(line) - len(stripped) > 3 or not stripped.startswith("#"):
        return None
    level = len(stripped) - len(stripped.lstrip("#"))
    rest = stripped[level:]
    if level > 6 or (rest and rest[0] not in " \t"):
        return None
    text = rest.strip(" \t")
    closed = text.rstrip("#")
    if closed != text and (not closed or closed[-1] in " \t"):
        text = closed.rstrip(" \t")
    return level, text


def _custom_id(text: str) -> tuple[str, str | None]:
    """A heading's text without its trailing attribute list, and the id it names (None
    without one): `{#id}`, and attr_list's `{ #id .class key="v" }` or `{ id="id" }`."""
    if not text.endswith("}"):
        return text, None
    start = text.rfind("{")
    inner = text[start + 1 : -1].strip() if start >= 0 else ""
    if not inner or (not inner.startswith(("#", ".")) and "=" not in inner):
        return text, None
    anchor: str | None = None
    for token in inner.split():
        if token.startswith("#") and anchor is None:
            anchor = token[1:]
        elif token.startswith("id=") and anchor is None:
            anchor = token[3:].strip("\"'")
    if anchor is not None and not _ANCHOR_TEXT.fullmatch(anchor):
        anchor = None
    return text[:start].rstrip(), anchor


_SOURCE_LINE = re.compile(r"(?:source|url)\s*:\s*<?(https?://[^\s>]+)>?\s*$", re.I)
SOURCE_LOOKAHEAD = 4  # lines after a page's H1 where its "Source: <url>" may stand


def full_text_pages(text: str) -> Iterator[tuple[str, str]]:
    """An llms-full.txt cut into its pages: (URL, the page's Markdown), in file order.

    A page starts at an H1 (outside code) followed within `SOURCE_LOOKAHEAD` lines by a
    `Source: <url>` or `URL: <url>` line, as Mintlify and most llms-full.txt generators
    write them; a file without such lines names no pages (none is guessed). The `Source:`
    line is the file's, not the page's: it is left out of the page's Markdown."""
    lines = text.split("\n")
    starts: list[tuple[int, int, str]] = []
    for i, line, _ in _outside_code(zip(lines, itertools.repeat(0))):
        if not line.startswith("# "):
            continue
        for j in range(i + 1, min(len(lines), i + 1 + SOURCE_LOOKAHEAD)):
            if lines[j].startswith("#"):
                break  # another heading: the line is not this one's
            source = _SOURCE_LINE.match(lines[j].strip())
            if source:
                starts.append((i, j, source.group(1)))
                break
    ends = [start for start, _, _ in starts[1:]] + [len(lines)]
    for (start, source_line, url), end in zip(starts, ends[: len(starts)], strict=True):
        yield url, "\n".join(lines[start:source_line] + lines[source_line + 1 : end])
