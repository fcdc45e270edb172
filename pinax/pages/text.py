"""Text a reader cannot see, found and removed: used on extracted and on served Markdown.

Kept apart from extract.py so the page reader can clean served Markdown without importing
the HTML toolchain.
"""

from __future__ import annotations

import re

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


_COMMENT = re.compile(r"<!--.*?(?:-->|$)", re.S)
_TAG = re.compile(r"</?[A-Za-z][^<>]{0,2000}>")
# What hiding needs: a tag with a hiding attribute (hidden, aria-hidden, style), a style sheet,
# or an element that never shows (script, template, noscript, head, title). Text without any
# of these has only tags to drop, which is much cheaper than looking at every element.
_NEVER_SHOWN = ("<style", "<script", "<template", "<noscript", "<head", "<title")
_HIDING_TAG = re.compile(r"<[A-Za-z][^<>]{0,2000}?(?i:hidden|style)")
_CONTROL = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f]")


def visible_text(markdown: str) -> str:
    """What a reader of rendered Markdown sees of it, as plain text for a search snippet:
    comments, hidden elements (by get_page's rules) and every tag dropped, invisible and
    control characters removed. Lines are kept."""
    from pinax.pages.hidden import drop_hidden_markup  # the tag scanner; light, no parser

    text = _COMMENT.sub("", markdown) if "<!--" in markdown else markdown
    if "<" in text:
        lower = text.lower()
        if any(tag in lower for tag in _NEVER_SHOWN) or _HIDING_TAG.search(text):
            text = drop_hidden_markup(text, lambda _: False)[0]
        text = _TAG.sub("", text)
    return _CONTROL.sub("", strip_invisible(text))
