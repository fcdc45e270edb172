"""Where a page's main content is, and what inside it is not content.

Three steps on the lexbor tree, all in place:
1. `drop_invisible`: what a reader never sees (scripts, templates, comments, `hidden`,
   `aria-hidden`, `display:none`, screen-reader-only text, form controls). Hidden ARIA tab
   panels are kept: Docusaurus hides unselected tabs that way and their content is real.
2. `find_main`: the documentation generators' content containers first (their markup is
   stable and known), then the HTML5 landmarks, then a text-density search for pages
   that have neither.
3. `drop_boilerplate`: navigation, tables of contents, permalinks, edit links, feedback
   widgets, copy buttons and the like that live inside the main container.
"""

from __future__ import annotations

import re

from selectolax.lexbor import LexborHTMLParser, LexborNode

INVISIBLE = (
    "script, style, noscript, template, link, meta, svg, canvas, iframe, object, embed, "
    "dialog, input, select, textarea, button, map, audio, video source",
    '[hidden]:not([role="tabpanel"]), [aria-hidden="true"]',
    ".sr-only, .visually-hidden, .screen-reader-text, .visuallyhidden, .skip-link, "
    ".skip-to-content",
)
_HIDDEN_STYLE = re.compile(r"display\s*:\s*none|visibility\s*:\s*hidden", re.I)

# Content containers of documentation generators, most specific first.
GENERATOR_MAIN = (
    "article.md-content__inner",  # MkDocs Material
    "article#furo-main-content",  # Sphinx furo
    "article.bd-article",  # Sphinx pydata / book theme
    'div[itemprop="articleBody"]',  # Sphinx Read the Docs theme
    'div.body[role="main"]',  # Sphinx alabaster, classic, python-docs-theme
    ".theme-doc-markdown",  # Docusaurus
    ".vp-doc",  # VitePress
    "main .td-content",  # Hugo Docsy
    "#main-content > main",  # Jekyll just-the-docs
    ".sl-markdown-content",  # Astro Starlight
    "#content > main",  # mdBook
    "main#main-content .main-page-content",  # MDN
    'main[role="main"] .markdown-body',  # GitHub-style renderers
    "article.doc",  # Antora
    ".markdown-section",  # docsify (rendered)
    'div[role="main"].document',  # MkDocs readthedocs theme
)
LANDMARKS = ("main", '[role="main"]', "article", "#main-content", "#content", "#main")

# Boilerplate inside the main container, by generator and in general.
BOILERPLATE = (
    # permalinks and heading anchors
    "a.headerlink, a.hash-link, a.header-anchor, a.anchor-heading, a.td-heading-self-link, "
    "a.anchorjs-link, a.heading-anchor, a.anchor-link, a.autolink-anchor",
    # navigation, tables of contents, breadcrumbs, pagination
    'nav, [role="navigation"], .toc, #toc, .table-of-contents, .breadcrumb, .breadcrumbs, '
    ".pagination, .pager, .prev-next, .related-pages, .md-source-file, .page-nav",
    # edit / feedback / share widgets
    ".md-content__button, .theme-doc-footer, .theme-edit-this-page, .edit-this-page, "
    ".VPDocFooter, .td-page-meta, .feedback, .page-feedback, .td-content .d-print-none, "
    ".theme-doc-toc-mobile, .theme-doc-version-badge, .theme-doc-version-banner, "
    "header.article-meta, .copy-button, .copybtn, .clipboard, .code-copy, .md-clipboard, "
    ".headerlink, .viewcode-link, .viewcode-back",
    # just-the-docs: the collapsible in-page table of contents
    "#markdown-toc, details:has(> summary.text-delta)",
)


def drop_invisible(tree: LexborHTMLParser) -> None:
    """Remove what a reader cannot see, so it can never reach the agent."""
    root = tree.root
    if root is None:
        return
    for selector in INVISIBLE:
        for node in root.css(selector):
            node.decompose()
    for node in root.css("[style]"):
        if _HIDDEN_STYLE.search(node.attributes.get("style") or ""):
            node.decompose()


def find_main(tree: LexborHTMLParser) -> LexborNode | None:
    """The element holding the page's main content (the body when nothing better is found)."""
    for selector in GENERATOR_MAIN:
        node = tree.css_first(selector)
        if node is not None and _words(node) >= 5:
            return node
    body = tree.body
    if body is None:
        return None
    total = _words(body)
    for selector in LANDMARKS:
        nodes = tree.css(selector)
        if len(nodes) == 1 and _words(nodes[0]) >= max(20, 0.3 * total):
            return nodes[0]
    return body


def drop_boilerplate(main: LexborNode) -> None:
    for selector in BOILERPLATE:
        for node in main.css(selector):
            node.decompose()
    # just-the-docs: the footer (and the <hr> before it) share #main-content with <main>.
    # Footers elsewhere inside the content container are page chrome too.
    for node in main.css("footer"):
        node.decompose()


def _words(node: LexborNode) -> int:
    return len(node.text(separator=" ").split())
