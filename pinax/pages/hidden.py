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
_SIMPLE_SELECTOR = re.compile(r"[a-zA-Z0-9_-]*(?:[.#][a-zA-Z0-9_-]+)+$")
_DROPPED_ELEMENTS = frozenset({"script", "style", "template", "noscript", "head", "title"})
_MAX_RULES = 200  # hiding rules read from a page's style sheets; a page needs a handful


def hides(style: str) -> bool:
    """Whether an inline style (or a rule's declarations) makes its element invisible,
    whatever the spacing, case or `!important`: every way CSS hides text that one element's
    own declarations can say (a colour against an ancestor's background cannot be seen from
    here). See `_HIDING` for the list, held against Readability, trafilatura and the
    browsers' accessibility tree."""
    return bool(style) and _hides(style)


# The ways one element's declarations hide its text, each checked by `_hides` (issue 38
# item 9). Readability (`_isProbablyVisible`) and trafilatura look at display:none,
# visibility:hidden, the `hidden` attribute and aria-hidden only; the browsers' accessibility
# tree also leaves out `content-visibility: hidden` and a `<dialog>` that is not open. The rest
# are the ways pages hide text from sight while keeping it in the document (image
# replacement, "visually hidden" and cloaking patterns):
_HIDING = (
    "display: none",
    "visibility: hidden | collapse",
    "content-visibility: hidden",
    "opacity: 0 (or all but 0), filter: opacity(0)",
    "font-size: 0 or under a pixel, font: 0/0 shorthand",
    "color: transparent, alpha 0 (rgba, hsla, #rgba, #rrggbbaa), -webkit-text-fill-color "
    "transparent (unless background-clip: text paints it)",
    "color equal to the element's own background colour",
    "transform / scale / translate: a zero scale or a move far off screen",
    "text-indent far off (negative; or positive with overflow hidden)",
    "position absolute | fixed | relative with left/top/right (fixed: bottom) far off, or a "
    "negative margin far off",
    "clip: rect() of a pixel or less; clip-path: inset(50%) or more, circle(0), ellipse(0), "
    "a polygon of zeros",
    "width or height (or max-) of a pixel or less, or line-height 0 with height 0, with "
    "overflow hidden | clip",
)
_NUMBER = re.compile(r"-?(?:\d+\.?\d*|\.\d+)")
_FAR = 200.0  # pixels (or points) past which a move puts text off the screen
_NAMED = {"white": "#ffffff", "black": "#000000"}


@functools.lru_cache(maxsize=4096)  # a table's cells repeat their style, row after row
def _hides(style: str) -> bool:
    declarations: dict[str, str] = {}
    clip = ""
    for declaration in style.lower().split(";"):
        name, _, value = declaration.partition(":")
        name = _BLANKS.sub("", name)
        if name == "clip":  # rect(0 0 0 0): its blanks separate numbers
            clip = " ".join(value.replace("!important", "").split())
        declarations[name] = _BLANKS.sub("", value).replace("!important", "")
    get = declarations.get
    if get("display") == "none" or get("visibility") in ("hidden", "collapse"):
        return True
    if get("content-visibility") == "hidden":
        return True
    if _tiny(get("opacity", "1"), 0.01):
        return True
    if (pass_filter := get("filter", "")).startswith("opacity(") and _tiny(pass_filter[8:], 0):
        return True
    if _small_font(get("font-size", "")) or _small_font(get("font", "").split("/")[0]):
        return True
    painted_by_background = "text" in (
        get("background-clip", ""),
        get("-webkit-background-clip", ""),
    )
    for colour in (get("color", ""), get("-webkit-text-fill-color", "")):
        if _see_through(colour) and not painted_by_background:
            return True
    colour = _colour(get("color", ""))
    background = _colour(get("background-color", "") or get("background", ""))
    if colour is not None and colour == background:
        return True
    if _transformed_away(get("transform", "")) or _tiny(get("scale", "1").split(",")[0], 0):
        return True
    if _far(get("translate", "").split(",")[0]):
        return True
    overflow_hidden = any(
        get(name, "") in ("hidden", "clip") for name in ("overflow", "overflow-x", "overflow-y")
    )
    indent = get("text-indent", "")
    if _far(indent, negative=True) or (_far(indent) and overflow_hidden):
        return True
    position = get("position")
    sides = ("left", "top", "right", "bottom") if position == "fixed" else ("left", "top", "right")
    if position in ("absolute", "fixed", "relative") and any(_far(get(side, "")) for side in sides):
        return True
    if any(_far(get(side, ""), negative=True) for side in ("margin-left", "margin-top")):
        return True
    if _clipped(clip, get("clip-path", "")):
        return True
    if overflow_hidden:
        boxes = ("width", "height", "max-width", "max-height")
        if any(_tiny(get(box, ""), 1) for box in boxes):
            return True
    return False


def _length(value: str) -> float | None:
    """The number a length or number starts with (`-9999px` is -9999), or None."""
    match = _NUMBER.match(value)
    return float(match.group()) if match else None


def _tiny(value: str, at_most: float) -> bool:
    """A length or number of at most `at_most` (and not negative): `0`, `.0px`, `1px`."""
    number = _length(value)
    return number is not None and 0 <= number <= at_most and not value.startswith("-")


def _small_font(value: str) -> bool:
    """A font size under a pixel: `0`, `0.5px`, `0.01em`."""
    number = _length(value)
    if number is None or value.startswith("-"):
        return False
    unit = value[len(_NUMBER.match(value).group()) :]  # type: ignore[union-attr]
    return number == 0 or (unit in ("px", "pt") and number < 1) or number < 0.05


def _far(value: str, negative: bool = False) -> bool:
    """A move far off the screen (`-9999px`, `-100em`, `100%`; with `negative` only
    leftward or up)."""
    match = _NUMBER.match(value)
    if match is None:
        return False
    number, unit = float(match.group()), value[match.end() :]
    limit = 100.0 if unit in ("%", "vw", "vh") else 60.0 if unit in ("em", "rem") else _FAR
    return number <= -limit if negative else abs(number) >= limit


def _zero(value: str) -> bool:
    """`0`, `0.0`, `.0px`, `0%`, `-0em`...: a length or number that is zero."""
    digits = value.rstrip("abcdefghijklmnopqrstuvwxyz%").lstrip("+-").replace(".", "", 1)
    return digits != "" and not digits.strip("0")


def _see_through(colour: str) -> bool:
    """`transparent`, or an alpha of zero: rgba(..., 0), hsl(... / 0), #rgb0, #rrggbb00."""
    if colour == "transparent":
        return True
    if colour.startswith("#") and len(colour) in (5, 9):
        return not colour[-(len(colour) // 4) :].strip("0")
    return _transparent(colour)


def _transparent(colour: str) -> bool:
    """rgba(..., 0), hsla(..., 0), rgb(... / 0) and the like."""
    if not colour.endswith(")") or not colour.startswith(("rgb", "hsl")):
        return False
    alpha = colour[:-1].replace("/", ",").rpartition(",")[2]
    return _zero(alpha) and ("," in colour or "/" in colour)


def _colour(value: str) -> str | None:
    """A solid colour as `#rrggbb` (hex, rgb() or black/white), else None."""
    value = _NAMED.get(value, value)
    if (
        value.startswith("#")
        and len(value) in (4, 7)
        and all(c in "0123456789abcdef" for c in value[1:])
    ):
        return "#" + "".join(c * 2 for c in value[1:]) if len(value) == 4 else value
    if value.startswith("rgb(") and value.endswith(")"):
        parts = value[4:-1].replace("/", ",").split(",")
        if len(parts) == 3 and all(p.isdigit() for p in parts):
            return "#" + "".join(f"{min(int(p), 255):02x}" for p in parts)
    return None


def _transformed_away(transform: str) -> bool:
    """A transform that scales to zero or moves far off: scale(0), scalex(0), scale(1,0),
    scale3d(0,...), matrix(0,0,0,0,...), translate(-9999px), translatex(-9999px)..."""
    for function in transform.split(")"):
        name, _, arguments = function.partition("(")
        values = arguments.split(",")
        if name.startswith("scale") and any(_tiny(v, 0) for v in values[:2]):
            return True
        if name == "matrix" and len(values) >= 4 and _tiny(values[0], 0) and _tiny(values[3], 0):
            return True
        if name.startswith("translate") and any(_far(v) for v in values[:2]):
            return True
    return False


def _clipped(clip: str, clip_path: str) -> bool:
    """clip: rect() a pixel or less across; clip-path inset(50%+), circle(0), ellipse(0), or
    a polygon of zeros."""
    if clip.startswith("rect(") and clip.endswith(")"):
        sides = [_length(p) for p in clip[5:-1].replace(",", " ").split()]
        if len(sides) == 4 and None not in sides:
            top, right, bottom, left = sides  # type: ignore[misc]
            if right - left <= 1 or bottom - top <= 1:
                return True
    shape, _, inside = clip_path.partition("(")
    if shape in ("circle", "ellipse") and _tiny(inside, 0):
        return True
    if clip_path.startswith("inset("):
        first = clip_path[6:].split(")")[0].split(",")[0]
        number = _length(first)
        return number is not None and first.endswith("%") and number >= 50
    if shape == "polygon":
        numbers = _NUMBER.findall(inside)
        return bool(numbers) and all(float(n) == 0 for n in numbers)
    return False


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
