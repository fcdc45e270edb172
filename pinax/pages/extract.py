"""HTML -> main content -> Markdown.

selectolax (lexbor) finds the main content and drops what is not the page (navigation,
sidebars, scripts); markdownify writes Markdown with fenced code blocks that keep their
language and links made absolute against the page URL.

Pages are hostile input: lexbor's tree building slows down quadratically with nesting depth
and markdownify recurses once per level, so a page nested deeper than `MAX_NESTING` is refused
before parsing, and content deeper than `MAX_TREE_DEPTH` is kept as plain text.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from urllib.parse import urljoin

from markdownify import MarkdownConverter
from selectolax.lexbor import LexborHTMLParser, LexborNode

from pinax.errors import FetchFailed
from pinax.pages.fetch import usable_charset

# Where the main content lives, most specific first (documentation generators, then HTML5).
MAIN_SELECTORS = (
    "article.md-content__inner",  # MkDocs Material
    "article#furo-main-content",  # Sphinx furo
    "div.body[role=main]",  # Sphinx alabaster, python-docs-theme
    ".theme-doc-markdown",  # Docusaurus
    ".vp-doc",  # VitePress
    ".td-content",  # Hugo Docsy
    "#main-content > main",  # Jekyll just-the-docs
    "main",
    "article",
    "[role=main]",
)
DROP_SELECTORS = (
    "script, style, noscript, template, iframe, svg, form, button, nav, aside, header, footer",
    "[hidden], [aria-hidden=true]",
    "a.headerlink, a.hash-link, a.header-anchor, a.anchor-heading, a.td-heading-self-link",
)
_LANGUAGE = re.compile(r"(?:^|\s)(?:language|lang|highlight)-([\w+#.-]+)")
_BLANK_LINES = re.compile(r"\n{3,}")
_CHARSET_META = re.compile(rb"""<meta[^>]+charset\s*=\s*["']?([\w-]+)""", re.IGNORECASE)

MAX_NESTING = 512  # real docs pages nest 20 to 30 deep (see tests/test_limits.py)
NESTING_CHECK_FROM = 10_000  # tags; fewer parse in well under a second however they nest
MAX_TREE_DEPTH = 100  # below the main element, where markdownify stays far from the stack limit
_TAG = re.compile(r"<(/?)([a-zA-Z][a-zA-Z0-9:-]*)[^>]*?(/?)>")
# Elements that never wrap content, or whose end tag may be left out (the parser closes them).
_NOT_NESTING = frozenset(
    "area base br col embed hr img input link meta param source track wbr keygen frame "
    "p li dt dd tr td th option optgroup thead tbody tfoot colgroup caption rb rt rtc rp "
    "html head body".split()
)


@dataclass(frozen=True)
class Extracted:
    title: str
    markdown: str


def decode_html(body: bytes, charset: str | None = None) -> str:
    """Text of an HTML body: the header's charset, else `<meta charset>`, else UTF-8."""
    candidates = [charset] if charset else []
    match = _CHARSET_META.search(body[:4096])
    if match:
        candidates.append(match.group(1).decode("ascii", "replace"))
    for name in [*candidates, "utf-8"]:
        usable = usable_charset(name)
        if usable is None:
            continue
        try:
            return body.decode(usable)
        except UnicodeDecodeError:
            continue
    return body.decode("utf-8", errors="replace")


def nesting(html: str) -> int:
    """How deep the page's elements nest, counted from its tags (an estimate, in linear time)."""
    depth = deepest = 0
    for closing, name, self_closing in _TAG.findall(html):
        if self_closing or name.lower() in _NOT_NESTING:
            continue
        if closing:
            depth = max(0, depth - 1)
        else:
            depth += 1
            deepest = max(deepest, depth)
    return deepest


def extract(html: str, url: str) -> Extracted:
    """The page's title and its main content as Markdown."""
    depth = nesting(html) if html.count("<") > NESTING_CHECK_FROM else 0
    if depth > MAX_NESTING:
        raise FetchFailed(
            f"{url}: the page nests elements {depth:,} deep (the limit is {MAX_NESTING}); "
            "refused to parse it"
        )
    tree = LexborHTMLParser(html)
    main = _main(tree)
    title = _title(main) if main is not None else ""
    title = title or _title(tree)
    if main is None:
        return Extracted(title, "")
    for selector in DROP_SELECTORS:
        for node in main.css(selector):
            node.decompose()
    _absolutize(main, url)
    _flatten(main, MAX_TREE_DEPTH)
    markdown = _Converter(heading_style="ATX", bullets="-").convert(main.html or "")
    return Extracted(title, _tidy(markdown))


def _flatten(root: LexborNode, max_depth: int) -> None:
    """Replace elements deeper than `max_depth` below `root` by their text."""
    level = [root]
    for _ in range(max_depth):
        level = [child for node in level for child in node.iter()]
        if not level:
            return
    for node in level:
        node.replace_with(node.text(deep=True))


def _title(tree: LexborHTMLParser | LexborNode) -> str:
    for selector in ("h1", "title"):
        node = tree.css_first(selector)
        if node is not None:
            text = " ".join(node.text(deep=True).replace("\u200b", "").split()).rstrip("¶#").strip()
            if text:
                return text
    return ""


def _main(tree: LexborHTMLParser) -> LexborNode | None:
    for selector in MAIN_SELECTORS:
        node = tree.css_first(selector)
        if node is not None:
            return node
    return tree.body


def _absolutize(root: LexborNode, base: str) -> None:
    for node in root.css("a[href]"):
        href = node.attributes.get("href") or ""
        if not href.startswith(("#", "javascript:", "mailto:")):
            node.attrs["href"] = urljoin(base, href)
    for node in root.css("img[src]"):
        node.attrs["src"] = urljoin(base, node.attributes.get("src") or "")


def _tidy(markdown: str) -> str:
    lines = [line.rstrip() for line in markdown.replace("\u200b", "").splitlines()]
    return _BLANK_LINES.sub("\n\n", "\n".join(lines)).strip() + "\n"


def _language(element) -> str:
    """The code language from `language-*`/`highlight-*` classes on the block or its wrappers."""
    node = element
    for _ in range(4):
        if node is None:
            break
        for cls in (node.get("class") or [])[::-1] if isinstance(node.get("class"), list) else []:
            match = _LANGUAGE.search(cls)
            if match and match.group(1) not in ("default", "none", "text"):
                return match.group(1)
        code = node.find("code") if hasattr(node, "find") else None
        if code is not None and code is not node:
            for cls in code.get("class") or []:
                match = _LANGUAGE.search(cls)
                if match:
                    return match.group(1)
        node = node.parent
    return ""


class _Converter(MarkdownConverter):
    def __init__(self, **options) -> None:
        super().__init__(code_language_callback=_language, **options)
