"""Which headings an outline keeps: levels 1-6 with a title, titles and anchors cut to the
manifest's limits, at most `MAX_HEADINGS` of them.

Its own module because both readers of headings apply it: the HTML one (outlines) and the
Markdown one (markdown_outline), which the HTML one uses in turn.
"""

from __future__ import annotations

import re

from pinax.manifest import HEADING_LEVELS, MAX_HEADING_LENGTH, MAX_HEADINGS, Heading

_ANCHOR = re.compile(rf"[^\s#]{{1,{MAX_HEADING_LENGTH}}}")


def outline_entries(headings: tuple) -> list[tuple[int, Heading]]:
    """`outline_of`'s entries, each with the position in `headings` it came from."""
    outline = []
    for i, (level, title, anchor) in enumerate(headings):
        title = title.strip()[:MAX_HEADING_LENGTH].strip()
        if level not in HEADING_LEVELS or not title:
            continue
        if anchor is not None and not _ANCHOR.fullmatch(anchor):
            anchor = None
        outline.append((i, Heading(level, title, anchor)))
        if len(outline) == MAX_HEADINGS:
            break
    return outline
