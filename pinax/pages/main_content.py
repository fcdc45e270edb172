"""Where a page's main content is, and what inside it is not content.

Three steps on the lexbor tree, all in place:
1. `drop_invisible`: what a reader never sees (scripts, templates, `hidden`, `aria-hidden`,
   `display:none`, screen-reader-only text, form controls). Hidden ARIA tab panels are kept:
   Docusaurus hides unselected tabs that way and their content is real.
2. `find_main`: the documentation generators' content containers first (their markup is
   stable and known). Other pages lose their page chrome (navigation, banners, footers,
   sidebars: by ARIA role, element and class/id names) and then the search walks down from
   <body> into the child holding nearly all of the remaining prose (text outside links),
   preferring the HTML5 landmarks <main> and <article>.
3. `drop_boilerplate`: permalinks, tables of contents, edit links, feedback widgets, copy
   buttons and the like that live inside the main container.
"""

from __future__ import annotations

import re

from selectolax.lexbor import LexborHTMLParser, LexborNode

from pinax.pages.hidden import hides, hiding_rules

INVISIBLE = (
    "script, style, noscript, template, link, meta, svg, canvas, iframe, object, embed, "
    "dialog, input, select, textarea, button, map, audio, video source",
)
# Hidden text: counted as removed (a page hiding text from people is worth telling about).
HIDDEN = (
    '[hidden]:not([role="tabpanel"]), [aria-hidden="true"]:not([role="tabpanel"])',
    ".sr-only, .visually-hidden, .screen-reader-text, .visuallyhidden, .skip-link, "
    ".skip-to-content",
)
_MAX_STYLE_SHEETS = 50

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
    "#content > main, #mdbook-content > main",  # mdBook
    "section#main-content.content",  # rustdoc
    "article.doc",  # Antora
    ".markdown-section",  # docsify (rendered)
)

# Page chrome outside the main content, removed before the search for it.
CHROME = (
    'nav, footer, [role="navigation"], [role="banner"], [role="contentinfo"], '
    '[role="search"], [role="complementary"]'
)


class _NameRule:
    """Elements named for `words` by their class (a whole word of it: "md-sidebar",
    "feedback--prompt") or their id (one that starts with it, "pre-footer", or, with
    `ids_start=False`, holds it as a whole word, "main-sidebar"). lexbor
    preselects by substring; the regexes decide. Document sections that start with a
    heading are never matched by id: their ids are made from the heading's text ("Cookies",
    "SQL-FOR-UPDATE-SHARE")."""

    def __init__(self, words: str, ids_start: bool = True) -> None:
        alternatives = "|".join(map(re.escape, words.split()))
        self.in_class = re.compile(rf"(?:^|[\s_-])(?:{alternatives})(?:$|[\s_-])", re.I)
        start = "^" if ids_start else r"(?:^|[_-])"
        self.id_start = re.compile(rf"{start}(?:{alternatives})(?:$|[_-])", re.I)
        self.selector = ", ".join(
            f'[class*="{word}" i], [id*="{word}" i]' for word in words.split()
        )

    def find(self, root: LexborNode) -> list[LexborNode]:
        return [n for n in root.css(self.selector) if n.tag in _CONTAINERS and self.named(n)]

    def named(self, node: LexborNode) -> bool:
        attributes = node.attributes
        classes = attributes.get("class") or ""
        if self.in_class.search(classes):
            return True
        if not self.id_start.search(attributes.get("id") or ""):
            return False
        section = node.tag == "section" or any(
            c.startswith(("sect", "refsect")) for c in classes.lower().split()
        )
        first = next(iter(node.iter()), None)
        return not (section and first is not None and first.tag in _HEADINGS)


_CONTAINERS = frozenset("div section aside header footer nav ul ol li details form table".split())
_HEADINGS = frozenset({"h1", "h2", "h3", "h4", "h5", "h6"})
# Page chrome, by name (removed before the search for the main content).
_CHROME_NAMES = _NameRule(
    "breadcrumb breadcrumbs sidebar side-bar sidenav side-nav navbar nav-bar navigation menu "
    "menubar toc table-of-contents pagination pager prev-next prevnext related share sharing "
    "social comment comments disqus feedback rating helpful newsletter subscribe cookie "
    "cookies consent gdpr banner announcement advert advertisement ads ad-slot sponsor promo "
    "skip edit-page editpage edit-link page-nav site-header site-footer masthead footer "
    "header-nav navheader navfooter toolbar search signup popup modal",
    ids_start=False,
)
# ... of which these are tables of contents (see _chapter_contents).
_TOC_NAMES = _NameRule("toc table-of-contents", ids_start=False)
# ... of which these are never content, even inside the content container.
_BOILERPLATE_NAMES = _NameRule(
    "breadcrumb breadcrumbs pagination pager prev-next prevnext feedback rating helpful "
    "was-this-helpful newsletter subscribe cookie cookies consent advert advertisement ad-slot "
    "sponsor promo edit-page editpage edit-link edit-this page-meta last-modified lastmodified "
    "last-updated lastupdated lastmod pre-footer prefooter share sharing social"
)
# Short blocks that say they are page furniture, whatever their markup (looked for near the
# start and the end of the content, where such furniture sits).
_BOILERPLATE_TEXT = re.compile(
    r"^(?:(?:was|is|did) this (?:page |article |doc |content |section )?"
    r"(?:helpful|useful|help(?: you)?)\??.*|"
    r"last (?:updated|modified|reviewed|edited)\b.{0,200}|"
    r"(?:updated|modified|published) (?:on )?"
    r"(?:\d{4}-\d\d-\d\d|[a-z]+ \d{1,2},? \d{4}|\d{1,2} [a-z]+ \d{4}).{0,40}|"
    r"edit (?:this )?page(?: on github)?|edit on github|improve this (?:page|doc)|"
    r"(?:report|file) (?:an issue|a problem|a bug|a doc issue)|"
    r"open table of contents panel\.?|back to top|on this page|in this (?:article|page))$",
    re.I,
)
# Links to the previous or next page ("Previous Tutorial: Tic-Tac-Toe  Next Installation").
_PAGER_TEXT = re.compile(r"^\W{0,2}(?:previous|prev|next)\b", re.I)
_EDGE_BLOCKS = 40
_LANDMARK = frozenset({"main", "article"})
# What the search may walk into: wrappers, not content blocks (a page of one code block is
# that block inside its page).
_WRAPPERS = frozenset(
    {"div", "section", "main", "article", "center", "form", "span", "table", "tbody", "tr", "td"}
)
_DESCEND_SHARE = 0.9  # a child holding this share of its parent's prose is the better root
_LANDMARK_SHARE = 0.6  # ... or this share, for <main> and <article>

# Boilerplate inside the main container, by generator and in general.
BOILERPLATE = (
    # navigation (tables of contents: TOC; breadcrumbs, pagers: _BOILERPLATE_NAMES)
    'nav, [role="navigation"], .related-pages, .md-source-file, .page-nav',
    # edit links, version banners, copy buttons, source links of generators
    ".md-content__button, .theme-doc-footer, .theme-edit-this-page, .edit-this-page, "
    ".VPDocFooter, .td-page-meta, .d-print-none, .theme-doc-toc-mobile, "
    ".theme-doc-version-badge, .theme-doc-version-banner, header.article-meta, .copy-button, "
    ".copybtn, .clipboard, .code-copy, .md-clipboard, .viewcode-link, .viewcode-back",
    # just-the-docs: the collapsible in-page table of contents
    "#markdown-toc, details:has(> summary.text-delta)",
    # rustdoc: source links, stability versions, "Expand description" toggles
    "a.src, .rightside, .out-of-band, summary.hideme",
    # MediaWiki: jump links, notices, edit links, categories
    "#siteNotice, #siteSub, #contentSub, #jump-to-nav, .mw-jump-link, .mw-editsection, "
    "#catlinks, .printfooter, .mw-indicators",
)


# Tables of contents inside the main container (kept when they are its text: _chapter_contents).
TOC = ".toc, #toc, .table-of-contents"


def drop_invisible(tree: LexborHTMLParser) -> int:
    """Remove what a reader cannot see, so it can never reach the agent; return how many
    characters of hidden text went (scripts and the like are not counted: they are not text)."""
    root = tree.root
    if root is None:
        return 0
    _reveal_streamed(tree)
    # Read before scripts and styles go: the selectors the page's style sheets hide.
    rules = [
        rule
        for sheet in root.css("style")[:_MAX_STYLE_SHEETS]
        for rule in hiding_rules(sheet.text())
    ]
    removed = 0

    def drop(node: LexborNode) -> None:
        nonlocal removed
        removed += len(node.text(separator=" ").strip())
        node.decompose()

    for node in root.css(INVISIBLE[0]):
        node.decompose()
    for selector in HIDDEN:
        for node in root.css(selector):
            drop(node)
    for node in root.css('[hidden][role="tabpanel"], [aria-hidden="true"][role="tabpanel"]'):
        if not _in_tab_set(node):  # a hidden tab of a tab set is content; alone, it is not
            drop(node)
    # An inline-hidden wrapper around most of the page is an anti-flicker veil that a script
    # lifts (Next.js and others), not hidden text: it stays.
    body = tree.body
    veil = 0.5 * len(body.text()) if body is not None else 0
    for node in root.css('[style]:not([role="tabpanel"])'):
        if hides(node.attributes.get("style") or "") and len(node.text()) < veil:
            drop(node)
    for rule in rules:
        try:
            nodes = root.css(rule)
        except Exception:  # a selector lexbor does not take: not a rule to apply
            continue
        for node in nodes:
            if len(node.text()) < veil:
                drop(node)
    return removed


def _in_tab_set(panel: LexborNode) -> bool:
    parent = panel.parent
    return parent is not None and (
        parent.css_first('[role="tablist"]') is not None or len(parent.css('[role="tabpanel"]')) > 1
    )


def _reveal_streamed(tree: LexborHTMLParser) -> None:
    """React streaming rendering sends late content as `<div hidden id="S:n">` and a script
    moves it into its placeholder `<template id="B:n">` on load: do that move, since the
    reader sees that content."""
    for segment in tree.css('div[hidden][id^="S:"]'):
        key = (segment.attributes.get("id") or "")[2:]
        placeholder = tree.css_first(f'template[id="B:{key}"]')
        if placeholder is None:
            continue
        for child in list(segment.iter(include_text=True)):
            placeholder.insert_before(child, move=True)
        placeholder.decompose()
        segment.decompose()


def find_main(tree: LexborHTMLParser) -> LexborNode | None:
    """The element holding the page's main content (the body when nothing better is found)."""
    for selector in GENERATOR_MAIN:
        node = tree.css_first(selector)
        if node is not None and len(node.text(separator=" ").split()) >= 5:
            return node
    body = tree.body
    if body is None:
        return None
    try:
        _drop_chrome(body, Prose(body))
        return _densest(body, Prose(body))
    except RecursionError:  # markup nested thousands deep: no search, the whole body
        return body


def drop_boilerplate(main: LexborNode) -> None:
    """Chrome inside the content container: by selector, by name, by wording at the edges."""
    for selector in BOILERPLATE:
        for node in main.css(selector):
            node.decompose()
    for node in main.css(TOC):
        if not _chapter_contents(node):
            node.decompose()
    # Footers inside the content container are page chrome (just-the-docs puts its site
    # footer beside <main> inside #main-content).
    for node in main.css("footer"):
        node.decompose()
    limit = 0.25 * len(main.text())
    for node in _BOILERPLATE_NAMES.find(main):
        if _prose_length(node) < limit:
            node.decompose()
    blocks = main.css("p, div, span, li, small, time, a")
    if len(blocks) > 2 * _EDGE_BLOCKS:
        blocks = blocks[:_EDGE_BLOCKS] + blocks[-_EDGE_BLOCKS:]
    for node in blocks:
        if any(child.tag in _CONTAINERS or child.tag == "p" for child in node.iter()):
            continue
        text = " ".join(node.text(separator=" ").split())
        if len(text) >= 250:
            continue
        if _BOILERPLATE_TEXT.match(text) or (
            _PAGER_TEXT.match(text) and _prose_length(node) <= 0.1 * len(text)
        ):
            node.decompose()
    # Rows of call-to-action buttons ("Get it on ...", "Try it free").
    for button in main.css("a.button, a.btn, a[role=button]"):
        row = button.parent
        if row is None or row.tag not in ("p", "div"):
            continue
        labels = sum(len(b.text()) for b in row.css("a.button, a.btn, a[role=button]"))
        if labels >= 0.9 * len(row.text().strip()):
            row.decompose()


def _prose_length(node: LexborNode) -> int:
    """Characters of text outside links."""
    return len(node.text()) - sum(len(link.text()) for link in node.css("a"))


class Prose:
    """Characters of text per element, all and inside links, from one walk of the tree."""

    def __init__(self, root: LexborNode) -> None:
        self.text: dict[int, int] = {}
        self.links: dict[int, int] = {}
        self._measure(root)

    def _measure(self, node: LexborNode) -> tuple[int, int]:
        text = links = 0
        for child in node.iter(include_text=True):
            tag = child.tag
            if tag == "-text":
                text += len((child.text_content or "").strip())
            elif not tag.startswith("-"):
                child_text, child_links = self._measure(child)
                text += child_text
                links += child_text if tag == "a" else child_links
        self.text[node.mem_id] = text
        self.links[node.mem_id] = links
        return text, links

    def outside_links(self, node: LexborNode) -> int:
        key = node.mem_id
        return self.text.get(key, 0) - self.links.get(key, 0)

    def link_density(self, node: LexborNode) -> float:
        text = self.text.get(node.mem_id, 0)
        return self.links.get(node.mem_id, 0) / text if text else 0.0


def _drop_chrome(body: LexborNode, prose: Prose) -> None:
    """Navigation, banners, footers and sidebars, unless they hold the bulk of the prose."""
    limit = 0.25 * prose.outside_links(body)
    for node in body.css(CHROME):
        if prose.outside_links(node) < limit:
            node.decompose()
    for node in body.css("header, aside"):
        if prose.link_density(node) > 0.5 and prose.outside_links(node) < limit:
            node.decompose()
    for node in _CHROME_NAMES.find(body):
        if (
            prose.outside_links(node) < limit
            and node.css_first("h1, pre") is None  # code: a code block's toolbar wrapper
            and not (_TOC_NAMES.named(node) and _chapter_contents(node))
        ):
            node.decompose()


def _chapter_contents(node: LexborNode) -> bool:
    """A table of contents that is the page's own text: one of other pages, set among the
    page's paragraphs (the opening of a chapter or a section index). One of the page's own
    sections (links to #anchors) repeats its headings, and one beside the paragraphs (a
    sidebar) is the site's navigation."""
    parent = node.parent
    if parent is None or not any(child.tag == "p" for child in parent.iter()):
        return False
    hrefs = [(link.attributes.get("href") or "").strip() for link in node.css("a[href]")]
    return len(hrefs) >= 2 and sum(not h.startswith("#") for h in hrefs) > len(hrefs) / 2


def _densest(node: LexborNode, prose: Prose) -> LexborNode:
    """Walk down into the child that holds nearly all of the prose, while there is one,
    but not past the page's title (its first H1 that is not a link)."""
    titles = node.css("main h1, article h1") or node.css("h1")
    title = next((h for h in titles if prose.link_density(h) <= 0.5), None)
    while True:
        total = prose.outside_links(node)
        if total <= 0:
            return node
        best, best_prose = None, 0
        for child in node.iter():
            if child.tag not in _WRAPPERS and "-" not in child.tag:  # custom elements wrap too
                continue
            amount = prose.outside_links(child)
            if amount > best_prose:
                best, best_prose = child, amount
        if best is None:
            return node
        share = _LANDMARK_SHARE if best.tag in _LANDMARK else _DESCEND_SHARE
        if best_prose < share * total:
            return node
        if title is not None and _contains(node, title) and not _contains(best, title):
            return node
        node = best


def _contains(node: LexborNode, descendant: LexborNode) -> bool:
    ancestor: LexborNode | None = descendant
    while ancestor is not None:
        if ancestor.mem_id == node.mem_id:
            return True
        ancestor = ancestor.parent
    return False
