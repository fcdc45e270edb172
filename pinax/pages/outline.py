"""A page's headings with the anchors its HTML gives them, read during get_page's extraction.

Why here: the build records each page's outline (`pinax build --outline`) and get_page must
open a recorded anchor with `section=anchor`, so both read the same headings from the same
main content. Extraction calls `mark_anchors` on the main content before permalinks are
stripped, then `aligned_headings` pairs each Markdown heading with the heading element it
came from, so get_page knows the page's own ids beside its Markdown slugs.

Where a heading's anchor comes from, first match wins:
1. its `id` (Docusaurus, VitePress, Docsy, just-the-docs, mdBook, MkDocs Material);
2. the `id` of the `<section>` it opens (Sphinx: docutils puts ids on sections, not headings);
3. its own permalink, an `<a href="#...">` inside it, unless that names another heading's id
   (themes that give headings no id; none of the fixture generators needs it);
4. an `<a id>` / `<a name>` target inside it (hand-written and older HTML).
An anchor with whitespace or `#` in it, or longer than `MAX_ANCHOR_LENGTH`, is not kept.
"""

from __future__ import annotations

import re
from typing import NamedTuple
from urllib.parse import unquote

from selectolax.lexbor import LexborNode

from pinax.pages.text import strip_invisible

ANCHOR_ATTRIBUTE = "data-pinax-anchor"
HEADINGS = "h1, h2, h3, h4, h5, h6"
MAX_ANCHOR_LENGTH = 500
LOOKAHEAD = 64  # heading elements skipped at most to find a Markdown heading's element
_ANCHOR = re.compile(rf"[^\s#]{{1,{MAX_ANCHOR_LENGTH}}}")
_WORD = re.compile(r"[^\W_]+")
_LINK = re.compile(r"!?\[([^\][]*)\]\([^()]*\)")  # linear: no run rescanned
_ESCAPE = re.compile(r"\\([!-/:-@\[-`{-~])")
_TAG = re.compile(r"</?[a-z][\w-]*(?:\s[^<>]{0,500})?/?>")
_EMOJI_CODE = re.compile(r"(?<![\w:]):[a-z0-9_+-]{1,40}:(?![\w:])")
_MARKS = re.compile(r"`|\*\*|__")


class PageHeading(NamedTuple):
    """One heading of a page's Markdown: level, clean text, and its anchor on the page."""

    level: int
    title: str
    anchor: str | None


def mark_anchors(main: LexborNode) -> None:
    """Record each heading's anchor on it (rules above), before normalizing drops permalinks."""
    nodes = main.css(HEADINGS)
    taken = {node.attributes.get("id") for node in nodes} - {None}
    for node in nodes:
        anchor = heading_anchor(node, taken)
        if anchor is not None:
            node.attrs[ANCHOR_ATTRIBUTE] = anchor


def heading_anchor(node: LexborNode, taken: set[str] | None = None) -> str | None:
    """The anchor a link to this heading uses, by the rules in the module docstring."""
    return anchor_and_rule(node, taken)[0]


def anchor_and_rule(
    node: LexborNode, taken: set[str] | None = None
) -> tuple[str | None, str | None]:
    """The heading's anchor and the rule that found it ("id", "section", "permalink",
    "target"), or (None, None): the benchmark reports which rules each generator needs.
    A permalink to another heading's id (`taken`) is not this heading's: just-the-docs links
    the demo headings of its typography page to the section they stand in."""
    parent = node.parent
    candidates = [("id", node.attributes.get("id"))]
    if parent is not None and parent.tag == "section" and _first_heading(parent, node):
        candidates.append(("section", parent.attributes.get("id")))
    for link in node.css("a[href]"):
        href = (link.attributes.get("href") or "").strip()
        target = unquote(href[1:])
        if href.startswith("#") and target and target not in (taken or ()):
            candidates.append(("permalink", target))
    for link in node.css("a[id], a[name]"):
        candidates.append(("target", link.attributes.get("id") or link.attributes.get("name")))
    for rule, candidate in candidates:
        if candidate and _ANCHOR.fullmatch(candidate.strip()):
            return candidate.strip(), rule
    return None, None


def _first_heading(section: LexborNode, node: LexborNode) -> bool:
    """Whether `node` is the section's own title (its first heading), not one inside it."""
    child = section.child
    while child is not None:
        if child.tag in ("h1", "h2", "h3", "h4", "h5", "h6"):
            return child.mem_id == node.mem_id
        if child.tag not in ("-text", "-comment", "a", "span"):
            return False
        child = child.next
    return False


def aligned_headings(main: LexborNode, titles: list[tuple[int, str]]) -> tuple[PageHeading, ...]:
    """Each Markdown heading (`titles`: level and text, in order) with the text and anchor of
    the heading element it came from; a heading no element matches keeps its Markdown text
    and no anchor. Matching walks both lists once, by the headings' words."""
    elements = [
        (key(text), " ".join(text.split()), node.attributes.get(ANCHOR_ATTRIBUTE))
        for node in main.css(HEADINGS)
        if (text := strip_invisible(node.text(separator=" ")))
    ]
    found: list[PageHeading] = []
    at = 0
    for level, markdown_title in titles:
        wanted = key(markdown_title)
        match = next(
            (i for i in range(at, min(at + LOOKAHEAD, len(elements))) if elements[i][0] == wanted),
            None,
        )
        if match is None or not wanted:
            found.append(PageHeading(level, plain_title(markdown_title), None))
            continue
        _, text, anchor = elements[match]
        found.append(PageHeading(level, _clean(text) or plain_title(markdown_title), anchor))
        at = match + 1
    return tuple(found)


def key(text: str) -> str:
    """A heading's words, lower case: what both sides of the matching compare. Inline HTML
    (`<a id="x"></a>` in served Markdown) and emoji shortcodes (`:warning:`, a glyph on the
    rendered page) are not words, unless nothing else is (a heading that names `<form>`)."""
    text = _LINK.sub(r"\1", text).casefold()
    words = _WORD.findall(_EMOJI_CODE.sub(" ", _TAG.sub(" ", text)))
    return " ".join(words or _WORD.findall(text))


def plain_title(markdown: str) -> str:
    """A Markdown heading's text as a reader sees it: links, code and emphasis marks out."""
    text = _ESCAPE.sub(r"\1", _MARKS.sub("", _LINK.sub(r"\1", markdown)))
    return _clean(text)


def _clean(text: str) -> str:
    text = " ".join(strip_invisible(text).replace("\u00a0", " ").split())
    return text.rstrip("¶#§🔗").strip()


def ids_for(titles: list[str], headings: tuple[PageHeading, ...]) -> list[str | None] | None:
    """The page's own ids for the headings of another Markdown rendering of it (`titles`, in
    order: the Markdown version a page advertises), matched by words as `aligned_headings`
    does; None when no heading gets one."""
    ids: list[str | None] = []
    at = 0
    for title in titles:
        wanted = key(title)
        match = next(
            (
                i
                for i in range(at, min(at + LOOKAHEAD, len(headings)))
                if wanted and key(headings[i].title) == wanted
            ),
            None,
        )
        ids.append(None if match is None else headings[match].anchor)
        if match is not None:
            at = match + 1
    return ids if any(ids) else None
