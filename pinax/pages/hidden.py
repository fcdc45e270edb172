"""What a person reading the page would not see, found without a browser: hiding styles
(inline or by a `<style>` rule for a class or id), the `hidden` attribute, and raw HTML inside
served Markdown. Hidden text is a prompt-injection path (the model reads what people do not),
so it is dropped, and the caller is told how much went.

Pure Python and linear time: the page reader uses it on Markdown without loading the HTML
parser, and extraction uses `hides` and `hiding_rules` on the parsed tree.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable

# A start or end tag's name; the rest of the tag is read by TAG_REST, in one pass.
TAG_NAME = re.compile(r"<(/?)([a-zA-Z][^\t\n\f\r />]*)")
# Up to the tag's `>`: attribute values in quotes may hold `>` and `/>`. Possessive, so a tag
# that never ends is read once, to the end of the text, and never again (linear time).
TAG_REST = re.compile(r"""(?:[^>"'=]++|=[\t\n\f\r ]*+(?:"[^"]*+"|'[^']*+')?|["'])*+>""")
# In Markdown, where `<` also starts prose (`a <b`), a tag holds no `<` outside quotes.
_MARKDOWN_TAG_REST = re.compile(r"""(?:[^<>"'=]++|=[\t\n\f\r ]*+(?:"[^"]*+"|'[^']*+')?|["'])*+>""")
_ATTRIBUTE = re.compile(
    r"""([^\t\n\f\r "'>/=]++)(?:[\t\n\f\r ]*+=[\t\n\f\r ]*+("[^"]*+"|'[^']*+'|[^\t\n\f\r >]*+))?"""
)
_BLANKS = re.compile(r"[\t\n\f\r ]+")
_BRACES = re.compile(r"[{}]")
_LINE_BLANKS = re.compile(r"[ \t]*+")
_FAR_OFF = re.compile(r"-\d{3,}(?:\.\d*)?(?:px|em|rem|pt|vw|vh|%)?$")
_SIMPLE_SELECTOR = re.compile(r"[a-zA-Z0-9_-]*(?:[.#][a-zA-Z0-9_-]+)+$")
_DROPPED_ELEMENTS = frozenset({"script", "style", "template", "noscript", "head", "title"})
_MAX_RULES = 200  # hiding rules read from a page's style sheets; a page needs a handful


def hides(style: str) -> bool:
    """Whether an inline style (or a rule's declarations) makes its element invisible:
    display:none, visibility:hidden|collapse, opacity:0, font-size:0, a transparent colour,
    off-screen positioning or indent, or a zero scale, whatever the spacing, case or
    `!important`."""
    return bool(style) and _hides(style)


@functools.lru_cache(maxsize=4096)  # a table's cells repeat their style, row after row
def _hides(style: str) -> bool:
    declarations: dict[str, str] = {}
    for declaration in style.lower().split(";"):
        name, _, value = declaration.partition(":")
        value = _BLANKS.sub("", value).replace("!important", "")
        declarations[_BLANKS.sub("", name)] = value
    get = declarations.get
    if get("display") == "none" or get("visibility") in ("hidden", "collapse"):
        return True
    if _zero(get("opacity", "1")) or _zero(get("font-size", "1")):
        return True
    colour = get("color", "")
    if colour == "transparent" or _transparent(colour):
        return True
    if get("transform", "").startswith(("scale(0)", "scale(0,", "scale(0.0)")):
        return True
    if _FAR_OFF.match(get("text-indent", "")):
        return True
    if get("position") in ("absolute", "fixed"):
        return any(_FAR_OFF.match(get(side, "")) for side in ("left", "top", "right"))
    return False


def _zero(value: str) -> bool:
    """`0`, `0.0`, `.0px`, `0%`, `-0em`...: a length or number that is zero."""
    digits = value.rstrip("abcdefghijklmnopqrstuvwxyz%").lstrip("+-").replace(".", "", 1)
    return digits != "" and not digits.strip("0")


def _transparent(colour: str) -> bool:
    """rgba(..., 0), hsla(..., 0), rgb(... / 0) and the like."""
    if not colour.endswith(")") or not colour.startswith(("rgb", "hsl")):
        return False
    alpha = colour[:-1].replace("/", ",").rpartition(",")[2]
    return _zero(alpha) and ("," in colour or "/" in colour)


def hiding_rules(css: str) -> list[str]:
    """The simple selectors (`.class`, `#id`, `tag.class`) a style sheet hides at its top
    level (not inside `@media` and other at-rules, which may not apply), at most _MAX_RULES
    of them; read in one pass."""
    found: list[str] = []
    depth = 0
    selectors_from = body_from = 0
    selectors = ""
    for brace in _BRACES.finditer(css):
        at = brace.start()
        if brace.group() == "{":
            if depth == 0:
                selectors, body_from = css[selectors_from:at], at + 1
            depth += 1
            continue
        if depth == 0:  # a stray `}`
            selectors_from = at + 1
            continue
        depth -= 1
        if depth:
            continue
        selectors_from = at + 1
        if selectors.lstrip().startswith("@") or not hides(css[body_from:at]):
            continue
        for selector in selectors.split(","):
            selector = selector.strip()
            if _SIMPLE_SELECTOR.match(selector) and selector not in found:
                found.append(selector)
                if len(found) >= _MAX_RULES:
                    return found
    return found


def attributes(tag: str) -> dict[str, str]:
    """A start tag's attributes (the text after its name), names lowercased."""
    found: dict[str, str] = {}
    for match in _ATTRIBUTE.finditer(tag):
        value = match.group(2) or ""
        if value[:1] in ("'", '"'):
            value = value[1:-1]
        found.setdefault(match.group(1).lower(), value)
    return found


def drop_hidden_markup(text: str, in_code: Callable[[int], bool]) -> tuple[str, int]:
    """Markdown without its raw HTML that would not show once rendered: elements hidden by an
    attribute, an inline style or a `<style>` rule for their class or id, and style, script,
    template, noscript and head elements. `in_code(position)` says where HTML is an example
    (fenced code, code spans) and stays. Returns the text and how many characters went."""
    tags = list(_start_tags(text, in_code))
    rules: list[str] = []
    after = 0
    for start, end, name, _ in tags:
        if name == "style" and start >= after:  # a style inside a style is its text
            close, after = _element_end(text, name, end)
            rules += hiding_rules(text[end:close])
    hidden_classes = {rule[1:] for rule in rules if rule.startswith(".")}
    hidden_ids = {rule[1:] for rule in rules if rule.startswith("#")}
    # Words one of a tag's attributes needs to hide it (its names are read lower-cased).
    needed = (
        "hidden",
        "style",
        *(("class",) if hidden_classes else ()),
        *(("id",) if hidden_ids else ()),
    )
    out: list[str] = []
    position = removed = 0
    for start, end, name, raw in tags:
        if start < position:
            continue  # inside an element already dropped
        if name not in _DROPPED_ELEMENTS:
            lower = raw.lower()
            if not any(word in lower for word in needed):
                continue  # (most tags: no attribute that could hide)
            attrs = attributes(raw)
            if not (
                "hidden" in attrs
                or attrs.get("aria-hidden", "").lower() == "true"
                or hides(attrs.get("style", ""))
                or set(attrs.get("class", "").split()) & hidden_classes
                or attrs.get("id") in hidden_ids
            ):
                continue
        _, stop = _element_end(text, name, end)
        line_start = text.rfind("\n", position, start) + 1 or position
        after = _LINE_BLANKS.match(text, stop).end()
        if not text[line_start:start].strip(" \t") and text[after : after + 1] in ("\n", ""):
            start, stop = line_start, min(after + 1, len(text))  # its lines go with it
        out.append(text[position:start])
        removed += stop - start
        position = stop
    out.append(text[position:])
    return "".join(out), removed


def _start_tags(text: str, in_code: Callable[[int], bool]):
    """(start, end, name, its attributes' text) of each start tag outside code, in one pass."""
    position = 0
    while (start := text.find("<", position)) >= 0:
        tag = TAG_NAME.match(text, start)
        if tag is None or tag.group(1):
            position = start + 1
            continue
        rest = _MARKDOWN_TAG_REST.match(text, tag.end())
        if rest is None:
            position = tag.end()
            continue
        position = rest.end()
        if not in_code(start):
            yield start, position, tag.group(2).lower(), text[tag.end() : position - 1]


_ENDS: dict[str, re.Pattern[str]] = {}


def _element_end(text: str, name: str, after: int) -> tuple[int, int]:
    """(where the element's end tag starts, where it ends), counting nested elements of the
    same name; an element never closed runs to the end of the text, as in a browser."""
    pattern = _ENDS.get(name)
    if pattern is None:
        pattern = _ENDS.setdefault(
            name, re.compile(rf"<(/?){re.escape(name)}(?=[\s/>])[^<>]*+>?", re.I)
        )
    depth = 1
    for match in pattern.finditer(text, after):
        depth += -1 if match.group(1) else 1
        if depth == 0:
            return match.start(), match.end()
    return len(text), len(text)
