"""Text a reader cannot see, found and removed: used on extracted and on served Markdown.

Kept apart from extract.py so the page reader can clean served Markdown without importing
the HTML toolchain.
"""

from __future__ import annotations

import re

# Zero-width and bidirectional control characters: invisible, and a classic way to smuggle
# text past a human reviewer. U+00AD (soft hyphen) is invisible too. A zero-width joiner
# between two emoji is part of the emoji and stays.
_INVISIBLE = re.compile("[\u00ad\u180e\u200b-\u200f\u202a-\u202e\u2060-\u2064\u2066-\u2069\ufeff]")
_EMOJI = re.compile("[\u2600-\u27bf\ufe0f\U0001f000-\U0001faff]")


def strip_invisible(text: str) -> str:
    """`text` without zero-width and bidirectional control characters (see above)."""
    return _INVISIBLE.sub(_unless_emoji_joiner, text) if _INVISIBLE.search(text) else text


def _unless_emoji_joiner(match: re.Match[str]) -> str:
    if match.group(0) != "\u200d":
        return ""
    text, at = match.string, match.start()
    joins_emoji = (
        0 < at < len(text) - 1 and _EMOJI.match(text[at - 1]) and _EMOJI.match(text[at + 1])
    )
    return "\u200d" if joins_emoji else ""
