"""Headings from Markdown a site serves (a Markdown twin, a page answering as `text/markdown`,
the pages of an llms-full.txt), for `--outline`.

Why separate from get_page's Markdown reading: the build only needs the ATX headings outside
code fences, in one linear pass. Anchors: only a heading's explicit `{#id}` (kramdown, MkDocs
attr_list, Docusaurus, Hugo), since how a site turns other headings into ids is its renderer's
business, unknown from the Markdown alone.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from pinax.manifest import Heading

_FENCE = re.compile(r"[ \t]{0,3}(`{3,}|~{3,})")
_HEADING = re.compile(r" {0,3}(#{1,6})[ \t]+(.*?)(?:[ \t]+#+)?[ \t]*$")
_CUSTOM_ID = re.compile(r"\s*\{#([^\s#}]{1,500})\}\s*$")
_LINK = re.compile(r"!?\[([^\]]*)\]\([^)]*\)")
_MARKS = re.compile(r"`|\*\*|__|<[^>\n]{0,200}>")
_ESCAPE = re.compile(r"\\([!-/:-@\[-`{-~])")


def markdown_outline(markdown: str) -> tuple[str | None, tuple[Heading, ...]]:
    """The first H1's text (None without one) and the h2..h6 below it, in order."""
    from .outlines import outline_of

    title: str | None = None
    found: list[tuple[int, str, str | None]] = []
    fence: str | None = None
    for line in markdown.split("\n"):
        opener = _FENCE.match(line)
        if fence is not None:
            if opener and opener.group(1).startswith(fence) and not line[opener.end() :].strip():
                fence = None
            continue
        if opener:
            fence = opener.group(1)
            continue
        match = _HEADING.match(line) if line.lstrip(" ").startswith("#") else None
        if match is None:
            continue
        text, anchor = match.group(2), None
        custom = _CUSTOM_ID.search(text)
        if custom:
            text, anchor = text[: custom.start()], custom.group(1)
        text = " ".join(_ESCAPE.sub(r"\1", _MARKS.sub("", _LINK.sub(r"\1", text))).split())
        level = len(match.group(1))
        if level == 1 and title is None:
            title = text or None
        elif text:
            found.append((level, text, anchor))
    return title, outline_of(tuple(found))


_SOURCE_LINE = re.compile(r"(?:source|url)\s*:\s*<?(https?://[^\s>]+)>?\s*$", re.I)
SOURCE_LOOKAHEAD = 4  # lines after a page's H1 where its "Source: <url>" may stand


def full_text_pages(text: str) -> Iterator[tuple[str, str]]:
    """An llms-full.txt cut into its pages: (URL, the page's Markdown), in file order.

    A page starts at an H1 (outside code) followed within `SOURCE_LOOKAHEAD` lines by a
    `Source: <url>` or `URL: <url>` line, as Mintlify and most llms-full.txt generators
    write them; a file without such lines names no pages (none is guessed)."""
    lines = text.split("\n")
    starts: list[tuple[int, str]] = []
    fence: str | None = None
    for i, line in enumerate(lines):
        opener = _FENCE.match(line)
        if fence is not None:
            if opener and opener.group(1).startswith(fence) and not line[opener.end() :].strip():
                fence = None
            continue
        if opener:
            fence = opener.group(1)
            continue
        if not line.startswith("# "):
            continue
        for follow in lines[i + 1 : i + 1 + SOURCE_LOOKAHEAD]:
            if follow.startswith("#"):
                break  # another heading: the line is not this one's
            source = _SOURCE_LINE.match(follow.strip())
            if source:
                starts.append((i, source.group(1)))
                break
    for (start, url), end in zip(starts, [s for s, _ in starts[1:]] + [len(lines)], strict=True):
        yield url, "\n".join(lines[start:end])
