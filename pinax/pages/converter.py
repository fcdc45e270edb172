"""Cleaned main content (a lexbor node) -> Markdown, with markdownify's conversion rules.

markdownify converts a BeautifulSoup tree. Building that tree means parsing the HTML a second
time with Python's html.parser, and on the 5.5 MB CPython changelog that parse plus
markdownify's own tree walk (an ancestor search per element) took 4-12 s on this machine.
So this subclass walks lexbor's tree itself: `process_node` is markdownify's `process_tag`
(the same whitespace and newline rules) over lexbor nodes, and each element still goes
through markdownify's `convert_<tag>` methods, with overrides where get_page wants something
else (code fences with their language, GFM tables, admonitions as blockquotes, no escaping).
The tree also stays the HTML5 tree lexbor built: the one a browser shows.

The DOM arrives prepared by `pinax.pages.normalize`: code blocks are plain text in a `<pre>`
with `data-lang`; admonitions, their titles, tab labels and API signatures carry a
`data-pinax` role, converted by the `convert_pinax_*` methods.
"""

from __future__ import annotations

import re
from typing import Any

from markdownify import MarkdownConverter
from selectolax.lexbor import LexborNode

_BACKTICK_RUN = re.compile(r"`{3,}")
_BLANK_RUNS = re.compile(r"\n{3,}")
_LINE_CONTENT = re.compile(r"^(.*)", re.M)
# Starts only where a run of blanks starts, so a long run without a newline is read once.
_NEWLINE_WHITESPACE = re.compile(r"(?<![\t ])[\t ]*+[\r\n][\t \r\n]*+")
_WHITESPACE = re.compile(r"[\t ]+")
_EDGE_NEWLINES = re.compile(r"^(\n*)((?:.*[^\n])?)(\n*)$", re.S)
_HEADINGS = frozenset({"h1", "h2", "h3", "h4", "h5", "h6"})

# markdownify's block elements (whitespace around and inside them is not content) + ours.
BLOCK = frozenset(
    "p blockquote article div section ol ul li dl dt dd table thead tbody tfoot tr td th "
    "h1 h2 h3 h4 h5 h6 main header aside figure figcaption details summary hr "
    "pinax-admonition pinax-title pinax-tab pinax-signature pinax-body".split()
)
_LABELS = frozenset({"span", "label", "time", "small"})
SKIP = frozenset({"script", "style", "template", "head", "title", "noscript"})


def to_markdown(root: LexborNode) -> str:
    """Markdown for the content under `root` (prepared by `normalize`)."""
    return _Converter().convert_node(root)


def fence(code: str, language: str = "") -> str:
    """A fenced block that survives backtick runs inside the code."""
    longest = max((len(run) for run in _BACKTICK_RUN.findall(code)), default=2)
    marks = "`" * max(3, longest + 1)
    return f"{marks}{language}\n{code}\n{marks}"


def _quote(text: str) -> str:
    return _LINE_CONTENT.sub(lambda m: "> " + m.group(1) if m.group(1) else ">", text)


class Element:
    """The slice of a BeautifulSoup Tag that markdownify's converters read."""

    __slots__ = ("attrs", "name", "node", "parent_name")

    def __init__(self, node: LexborNode, name: str, parent_name: str) -> None:
        self.node = node
        self.name = name
        self.attrs = node.attributes
        self.parent_name = parent_name

    def get(self, key: str, default: Any = None) -> Any:
        value = self.attrs.get(key)
        return default if value is None else value


def _name(node: LexborNode) -> str:
    tag = node.tag
    if tag.startswith("-"):
        return tag
    role = node.attributes.get("data-pinax")
    return f"pinax-{role}" if role else tag


class _Converter(MarkdownConverter):
    """markdownify's rules on lexbor's tree, with get_page's conventions."""

    def __init__(self) -> None:
        super().__init__(
            heading_style="ATX",
            bullets="-",
            escape_underscores=False,
            escape_asterisks=False,
            strong_em_symbol="*",
        )
        self._counters: dict[int, int] = {}

    # -- the walk (markdownify's process_tag / process_text over lexbor nodes)

    def convert_node(self, root: LexborNode) -> str:
        return self.process_node(root, _name(root), "", frozenset()).strip("\n")

    def process_node(
        self, node: LexborNode, name: str, parent_name: str, parent_tags: frozenset[str]
    ) -> str:
        if name == "table":
            return self.convert_whole_table(node, parent_tags)
        children = [(c, _name(c)) for c in node.iter(include_text=True)]
        inside_block = name in BLOCK
        tags = parent_tags | {name}
        if name in _HEADINGS:
            tags |= {"_inline"}
        if name in ("pre", "code", "kbd", "samp"):
            tags |= {"_noformat"}
        strings: list[str] = []
        last = len(children) - 1
        for index, (child, child_name) in enumerate(children):
            if child_name == "-text":
                text = child.text_content or ""
                before = children[index - 1][1] if index else None
                after = children[index + 1][1] if index < last else None
                if not text.strip():
                    if inside_block and (before is None or after is None):
                        continue
                    if before in BLOCK or before == "pre" or after in BLOCK or after == "pre":
                        continue
                strings.append(self.process_string(text, name, before, after, tags))
            elif child_name.startswith("-") or child_name in SKIP:
                continue
            else:
                text = self.process_node(child, child_name, name, tags)
                if (
                    index
                    and strings
                    and _laid_apart(children[index - 1][1], child_name, tags)
                    and _glued(strings[-1], text, child_name)
                ):
                    text = " " + text
                strings.append(text)
        text = "".join(strings) if "pre" in tags else _join_collapsing_newlines(strings)
        convert = self.get_conv_fn_cached(name)
        if convert is None:
            return text
        return convert(Element(node, name, parent_name), text, parent_tags=parent_tags)

    def process_string(
        self, text: str, parent: str, before: str | None, after: str | None, tags: frozenset[str]
    ) -> str:
        if "pre" not in tags:
            text = _NEWLINE_WHITESPACE.sub("\n", text)
            text = _WHITESPACE.sub(" ", text)
        if before in BLOCK or before == "pre" or (parent in BLOCK and before is None):
            text = text.lstrip(" \t\r\n")
        if after in BLOCK or after == "pre" or (parent in BLOCK and after is None):
            text = text.rstrip()
        return text

    # -- blocks

    def convert_pre(self, el: Element, text: str, parent_tags: frozenset[str]) -> str:
        code = text.strip("\n")
        if not code.strip():
            return ""
        if "_inline" in parent_tags:
            return " `" + " ".join(code.split()) + "` "
        return "\n\n" + fence(code, el.get("data-lang", "")) + "\n\n"

    def convert_br(self, el: Element, text: str, parent_tags: frozenset[str]) -> str:
        return " " if "_inline" in parent_tags else "\n"

    def convert_list(self, el: Element, text: str, parent_tags: frozenset[str]) -> str:
        if "_inline" in parent_tags:
            return " " + text.strip().removesuffix(";") + " "
        if "li" in parent_tags:
            return "\n" + text.rstrip()
        return "\n\n" + text + "\n"

    convert_ul = convert_list
    convert_ol = convert_list

    def convert_div(self, el: Element, text: str, parent_tags: frozenset[str]) -> str:
        if "_inline" in parent_tags:
            return " " + text.strip() + " "
        text = text.strip("\n")
        return f"\n\n{text}\n\n" if text.strip() else ""

    convert_article = convert_section = convert_main = convert_header = convert_div
    # Table parts reach these only as the root of the content (a layout cell): see
    # convert_whole_table for tables.
    convert_tbody = convert_thead = convert_tfoot = convert_tr = convert_td = convert_th = (
        convert_div
    )
    convert_aside = convert_figure = convert_nav = convert_footer = convert_div
    convert_center = convert_form = convert_fieldset = convert_address = convert_div

    def convert_li(self, el: Element, text: str, parent_tags: frozenset[str]) -> str:
        text = (text or "").strip()
        if not text:
            return "\n"
        if "_inline" in parent_tags:  # a list in a table cell: items in a row
            return " ".join(text.split()) + "; "
        bullet = f"{self._ordinal(el.node)}. " if el.parent_name == "ol" else "- "
        indent = " " * len(bullet)
        body = _LINE_CONTENT.sub(lambda m: indent + m.group(1) if m.group(1) else "", text)
        return bullet + body[len(indent) :] + "\n"

    def convert_video(self, el: Element, text: str, parent_tags: frozenset[str]) -> str:
        src = el.get("src") or ""
        return f"[{text.strip() or 'video'}]({src})" if src else text

    def convert_img(self, el: Element, text: str, parent_tags: frozenset[str]) -> str:
        """An image is a reference to it, without its alt text: that text stands in for the
        image for readers who cannot see it, it is not text the page shows (a figure's
        caption is, and stays). It stays where it is all there is: the label of a link that
        is just the image (a video's thumbnail), or where an image cannot be Markdown (a
        table cell, a heading, an inline data: URL: "Yes", a logo's name)."""
        alt = " ".join((el.get("alt") or "").split())
        src = el.get("src") or ""
        if not src or src.startswith("data:") or "_inline" in parent_tags:
            return alt
        return f"![{alt if _labels_link(el.node) else ''}]({src})"

    def convert_a(self, el: Element, text: str, parent_tags: frozenset[str]) -> str:
        href = el.get("href") or ""
        stripped = text.strip()
        if "_noformat" in parent_tags or not href or not stripped:
            return text if stripped else ""
        prefix = " " if text[:1].isspace() else ""
        suffix = " " if text[-1:].isspace() else ""
        return f"{prefix}[{stripped}]({href}){suffix}"

    def convert_summary(self, el: Element, text: str, parent_tags: frozenset[str]) -> str:
        """A disclosure's label: its heading when it holds one, else bold text."""
        text = text.strip()
        if text.startswith("#"):
            return f"\n\n{text}\n\n"
        title = " ".join(text.split())
        return f"\n\n**{title}**\n\n" if title else ""

    def convert_blockquote(self, el: Element, text: str, parent_tags: frozenset[str]) -> str:
        return _blockquote(text, parent_tags)

    def convert_pinax_admonition(self, el: Element, text: str, parent_tags: frozenset[str]) -> str:
        return _blockquote(text, parent_tags)

    def convert_pinax_title(self, el: Element, text: str, parent_tags: frozenset[str]) -> str:
        title = " ".join(text.split()).strip("*: ")
        return f"\n\n**{title}**\n\n" if title else ""

    convert_pinax_tab = convert_pinax_title

    def convert_pinax_signature(self, el: Element, text: str, parent_tags: frozenset[str]) -> str:
        signature = " ".join(el.node.text(separator="").split())
        if not signature:
            return ""
        ticks = "``" if "`" in signature else "`"
        return f"\n\n{ticks}{signature}{ticks}\n\n"

    def convert_pinax_body(self, el: Element, text: str, parent_tags: frozenset[str]) -> str:
        text = text.strip("\n")
        return f"\n\n{text}\n\n" if text.strip() else ""

    def convert_dt(self, el: Element, text: str, parent_tags: frozenset[str]) -> str:
        term = " ".join(text.split())
        if "_inline" in parent_tags:
            return " " + term + " "
        return f"\n\n{term}\n" if term else ""

    def convert_dd(self, el: Element, text: str, parent_tags: frozenset[str]) -> str:
        text = (text or "").strip("\n")
        if "_inline" in parent_tags:
            return " " + " ".join(text.split()) + " "
        if not text.strip():
            return "\n"
        body = _LINE_CONTENT.sub(lambda m: "    " + m.group(1) if m.group(1) else "", text)
        return ":" + body[1:] + "\n\n"

    def _ordinal(self, li: LexborNode) -> int:
        """The number of an <ol> item (items are converted in document order)."""
        parent = li.parent
        key = parent.mem_id if parent is not None else 0
        if key not in self._counters:
            start = (parent.attributes.get("start") or "1") if parent is not None else "1"
            self._counters[key] = int(start) - 1 if start.strip().isdigit() else 0
        self._counters[key] += 1
        return self._counters[key]

    # -- tables

    def convert_whole_table(self, table: LexborNode, parent_tags: frozenset[str]) -> str:
        """A GFM table; a layout table (one cell, nested tables, headings) as its cells'
        blocks."""
        rows = [r for r in table.css("tr") if _nearest_table(r) == table.mem_id]
        if not rows:
            return ""
        cells = [c for r in rows for c in r.iter() if c.tag in ("td", "th")]
        nested = any(n.mem_id != table.mem_id for n in table.css("table, h1, h2, h3, h4, h5, h6"))
        if nested or len(cells) == 1 or "_inline" in parent_tags:
            blocks = [self.process_node(c, "div", "tr", parent_tags) for c in cells]
            return "\n\n" + "\n\n".join(b.strip("\n") for b in blocks if b.strip()) + "\n\n"
        cell_tags = parent_tags | {"_inline", "td"}
        grid: list[list[str]] = []
        header_rows = 0
        for row in rows:
            cells: list[str] = []
            for cell in row.iter():
                if cell.tag not in ("td", "th"):
                    continue
                text = self.process_node(cell, "pinax-cell", "tr", cell_tags)
                text = " ".join(text.split()).replace("|", "\\|")
                span = cell.attributes.get("colspan") or "1"
                cells.extend(
                    [text] + [""] * (max(1, min(50, int(span))) - 1 if span.isdigit() else 0)
                )
            grid.append(cells)
            in_head = row.parent is not None and row.parent.tag == "thead"
            all_th = all(c.tag == "th" for c in row.iter() if c.tag in ("td", "th"))
            if header_rows == len(grid) - 1 and (in_head or all_th):
                header_rows += 1
        width = max(len(r) for r in grid)
        if width == 0:
            return ""
        lines = []
        for index, cells in enumerate(grid):
            cells = cells + [""] * (width - len(cells))
            lines.append("| " + " | ".join(cells) + " |")
            if index == max(header_rows, 1) - 1:
                lines.append("|" + "|".join(["---"] * width) + "|")
        caption = table.css_first("caption")
        title = " ".join(caption.text().split()) if caption is not None else ""
        head = f"{title}\n\n" if title else ""
        return "\n\n" + head + "\n".join(lines) + "\n\n"


def _laid_apart(previous: str, name: str, tags: frozenset[str]) -> bool:
    """Sibling elements with no space between them that CSS lays apart, so they stay apart as
    words: label spans ("customer" "string") and links (a row of endpoints, tags, buttons)."""
    if "_noformat" in tags:
        return False
    return (previous in _LABELS and name in _LABELS) or previous == name == "a"


def _glued(before: str, text: str, name: str) -> bool:
    """Whether `text` would run into the text before it ("string" after "customer", or
    "[POST](b)" after "[GET](a)")."""
    if name == "a":
        return before.endswith(")") and text.startswith("[")
    return before[-1:].isalnum() and text[:1].isalnum()


def _labels_link(image: LexborNode) -> bool:
    """Whether the image is the only content of the link around it."""
    link = image.parent
    while link is not None and link.tag != "a":
        link = link.parent
    return link is not None and not link.text().strip()


def _blockquote(text: str, parent_tags: frozenset[str]) -> str:
    text = _BLANK_RUNS.sub("\n\n", text.strip("\n"))
    if not text.strip():
        return ""
    if "_inline" in parent_tags:
        return " " + " ".join(text.split()) + " "
    return "\n\n" + _quote(text) + "\n\n"


def _join_collapsing_newlines(strings: list[str]) -> str:
    """markdownify's rule: at a child boundary, keep the larger newline run, at most two."""
    if len(strings) == 1:
        return strings[0]
    out = [""]
    for string in strings:
        if not string:
            continue
        leading, content, trailing = _EDGE_NEWLINES.match(string).groups()
        if out[-1] and leading:
            previous = out.pop()
            leading = "\n" * min(2, max(len(previous), len(leading)))
        out.extend((leading, content, trailing))
    return "".join(out)


def _nearest_table(node: LexborNode) -> int | None:
    parent = node.parent
    while parent is not None and parent.tag != "table":
        parent = parent.parent
    return parent.mem_id if parent is not None else None
