"""HTML -> main content -> Markdown.

selectolax (lexbor) finds the main content and drops what is not the page (navigation,
sidebars, scripts); markdownify writes Markdown with fenced code blocks that keep their
language and links made absolute against the page URL.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from urllib.parse import urljoin

from markdownify import MarkdownConverter
from selectolax.lexbor import LexborHTMLParser, LexborNode

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
_REFRESH_URL = re.compile(r"""url\s*=\s*['"]?([^'"\s]+)""", re.IGNORECASE)
_BLANK_LINES = re.compile(r"\n{3,}")
_CHARSET_META = re.compile(rb"""<meta[^>]+charset\s*=\s*["']?([\w-]+)""", re.IGNORECASE)


@dataclass(frozen=True)
class Extracted:
    title: str
    markdown: str
    refresh_url: str | None = None  # absolute meta-refresh target of a redirect stub
    markdown_alternate: str | None = (
        None  # absolute href of <link rel=alternate type=text/markdown>
    )
    js_shell: bool = False  # renders in the browser: almost no main text, but scripts
    word_count: int = 0


def decode_html(body: bytes, charset: str | None = None) -> str:
    """Text of an HTML body: the header's charset, else `<meta charset>`, else UTF-8."""
    candidates = [charset] if charset else []
    match = _CHARSET_META.search(body[:4096])
    if match:
        candidates.append(match.group(1).decode("ascii", "replace"))
    for name in [*candidates, "utf-8"]:
        try:
            return body.decode(name)
        except (LookupError, UnicodeDecodeError):
            continue
    return body.decode("utf-8", errors="replace")


def extract(html: str, url: str) -> Extracted:
    """The page's title and its main content as Markdown."""
    tree = LexborHTMLParser(html)
    alternate = tree.css_first('link[rel~=alternate][type="text/markdown"][href]')
    has_scripts = tree.css_first("script") is not None
    refresh = _refresh_target(tree)
    main = _main(tree)
    title = _title(main) if main is not None else ""
    title = title or _title(tree)
    markdown = ""
    if main is not None:
        for selector in DROP_SELECTORS:
            for node in main.css(selector):
                node.decompose()
        _absolutize(main, url)
        markdown = _tidy(_Converter(heading_style="ATX", bullets="-").convert(main.html or ""))
    words = len(markdown.split())
    return Extracted(
        title,
        markdown,
        refresh_url=urljoin(url, refresh) if refresh and words < 50 else None,
        markdown_alternate=urljoin(url, alternate.attributes["href"] or "") if alternate else None,
        js_shell=words < 20 and has_scripts and not refresh,
        word_count=words,
    )


def _refresh_target(tree: LexborHTMLParser) -> str | None:
    for node in tree.css("meta[http-equiv][content]"):
        if (node.attributes.get("http-equiv") or "").lower() == "refresh":
            match = _REFRESH_URL.search(node.attributes.get("content") or "")
            if match:
                return match.group(1).strip()
    return None


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
