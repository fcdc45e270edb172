"""Rewrite the main content's structure into what the Markdown converter expects.

- code blocks: one `<pre data-lang>` holding the plain code text (line numbers, copy buttons
  and language labels out; the language from `language-*`, `lang-*`, `highlight-*`,
  `brush:` classes or `data-lang` on the block or its wrappers; a title beside the block
  stays, as a line of text above it);
- tabs (ARIA tab lists, MkDocs Material tabbed sets, VitePress code groups, Docsy tab panes):
  every panel kept, each preceded by its label;
- admonitions and callouts: marked, with their title, for a blockquote;
- headings: permalink symbols out, the text of self-links kept;
- links and images absolute; API signatures (Sphinx `dt.sig`) as code.
"""

from __future__ import annotations

import contextlib
import re
from urllib.parse import urljoin

from selectolax.lexbor import LexborHTMLParser, LexborNode

_LANGUAGE_CLASS = re.compile(
    r"^(?:highlight-source|language|lang|highlight|brush)[-:]\s*([\w+#.-]+)$", re.I
)
_NOT_A_LANGUAGE = frozenset({"none", "plain", "plaintext", "nohighlight", "notranslate"})
_LANGUAGE_ALIASES = {"default": "python", "python3": "python", "ipython3": "python"}
_CODE_CHROME = (
    ".linenos, .lineno, .linenodiv, td.linenos, .gutter, .line-numbers-rows, "
    ".line-numbers-wrapper, .rouge-gutter, .lnt, .ln, .hljs-ln-numbers, .code-line-number, "
    "span.lang, .copy, .copy-button, [class*=codeLineNumber], [class*=buttonGroup]"
)
_BLOCK_TAGS = frozenset({"div", "p", "li", "tr", "table", "section", "ul", "ol"})
_ADMONITION_TYPES = (
    "note abstract summary tldr info todo tip hint important success check done question help "
    "faq warning caution attention failure fail missing danger error bug example quote cite "
    "seealso alert"
).split()
_ADMONITION = (
    ", ".join(f"details.{kind}" for kind in _ADMONITION_TYPES) + ", "
    "div.admonition, details.admonition, aside.admonition, .theme-admonition, "
    ".custom-block:not(.code-group), div.alert, aside.callout, div.callout, .notecard, "
    "div.hint, div.note, div.warning, div.tip, div.important, div.caution, "
    "p.note, p.warning, p.important, p.new, p.highlight, "
    "blockquote.note, blockquote.warning, blockquote.important, blockquote.new, "
    "blockquote.highlight, blockquote.note-title, blockquote.warning-title, "
    "blockquote.important-title, blockquote.new-title, blockquote.highlight-title"
)
_ADMONITION_TITLE = (
    ".admonition-title, .custom-block-title, .alert-heading, [class*=admonitionHeading], "
    ".callout-title, .notecard-title, .hint-title"
)
_WHITESPACE = re.compile(r"\s")
_PERMALINK = (
    "h1 a, h2 a, h3 a, h4 a, h5 a, h6 a, a.headerlink, a.hash-link, a.header-anchor, "
    "a.anchor-heading, a.td-heading-self-link, a.anchorjs-link, a.heading-anchor, "
    "a.anchor-link, a.autolink-anchor, a.anchor"
)
_PERMALINK_CLASSES = frozenset(re.findall(r"a\.([\w-]+)", _PERMALINK))
_PERMALINK_TEXT = frozenset({"", "¶", "#", "§", "🔗", "link", "permalink", "\u200b"})


def normalize(tree: LexborHTMLParser, main: LexborNode, base_url: str) -> None:
    _code_blocks(tree, main)
    _tabs(tree, main)
    _admonitions(main)
    _permalinks(main)
    _signatures(main)
    _links(main, base_url)


# ---------------------------------------------------------------- code


def _code_blocks(tree: LexborHTMLParser, main: LexborNode) -> None:
    # Line-number tables: keep the code cell only.
    for table in main.css("table.highlighttable, table.lntable, table.rouge-table"):
        pre = table.css_first("td.code pre, td.lntd:last-child pre, td.rouge-code pre")
        if pre is not None:
            table.insert_before(pre, move=True)
            table.decompose()
    for pre in main.css("pre"):
        if _inside_pre(pre):
            continue
        language = code_language(pre)
        for chrome in _chrome_around(pre):
            chrome.decompose()
        for node in pre.css(_CODE_CHROME):
            node.decompose()
        _drop_line_numbers(pre)
        text = _code_text(pre).replace("\u00a0", " ").rstrip()
        if _in_terminal_animation(pre) and "<" in text:
            text = _rendered_markup(text)
        for attr in list(pre.attributes):
            del pre.attrs[attr]
        pre.inner_html = ""
        pre.insert_child(text)
        if language:
            pre.attrs["data-lang"] = language


def _in_terminal_animation(pre: LexborNode) -> bool:
    """Inside a terminal animation (termynal and its `.termy` wrapper): a script types the
    block out as HTML, so the tags in its text (colours of the program's output) are markup
    the reader never sees."""
    node = pre.parent
    for _ in range(3):
        if node is None:
            return False
        if "data-termynal" in node.attributes or {"termy", "termynal"} & set(_classes(node)):
            return True
        node = node.parent
    return False


def _rendered_markup(text: str) -> str:
    """The text of `text` read as HTML, the way the terminal animation shows it."""
    rendered = LexborHTMLParser(f"<pre>{text}</pre>")
    pre = rendered.css_first("pre")
    return pre.text(deep=True) if pre is not None else text


def _drop_line_numbers(pre: LexborNode) -> None:
    """Line numbers in markup without telling class names: elements holding only 1, 2, 3, ...
    (in order, no gaps), each starting a line, most of them followed by code."""
    numbers = [n for n in pre.css("span, div, td, a, li, em") if _is_number(n) and _starts_line(n)]
    if len(numbers) < 2:
        return
    values = [int(n.text().strip()) for n in numbers]
    if values != list(range(values[0], values[0] + len(values))):
        return
    if sum(1 for n in numbers if _has_text_after(n)) * 2 >= len(numbers):
        for node in numbers:
            node.decompose()


def _has_text_after(node: LexborNode) -> bool:
    """Whether code follows the node on its line."""
    following = node.next
    while following is not None:
        if following.tag == "-text":
            text = following.text_content or ""
            head, newline, _ = text.partition("\n")
            if head.strip():
                return True
            if newline:
                return False
        elif following.tag == "br":
            return False
        elif following.text().strip():
            return True
        following = following.next
    return False


def _is_number(node: LexborNode) -> bool:
    text = node.text().strip()
    return text.isdigit() and len(text) <= 6 and next(iter(node.iter()), None) is None


def _starts_line(node: LexborNode) -> bool:
    """Nothing but whitespace between the node and the previous line break or block start."""
    while node is not None and node.tag != "pre":
        previous = node.prev
        while previous is not None:
            if previous.tag == "-text":
                text = previous.text_content or ""
                if text.strip(" \t"):
                    return text.endswith("\n")
            elif previous.tag in _BLOCK_TAGS or previous.tag == "br":
                return True
            elif previous.text().strip():
                return False
            previous = previous.prev
        node = node.parent
        if node is not None and node.tag in _BLOCK_TAGS:
            return True
    return True


def _inside_pre(node: LexborNode) -> bool:
    parent = node.parent
    while parent is not None:
        if parent.tag == "pre":
            return True
        parent = parent.parent
    return False


def _chrome_around(pre: LexborNode) -> list[LexborNode]:
    """Copy buttons and language labels next to the <pre> inside its code-block wrapper."""
    found = []
    parent = pre.parent
    for _ in range(3):
        if parent is None or parent.tag not in ("div", "figure"):
            break
        chrome = parent.css("button, span.lang, .copy, .code-block-header")
        found.extend(n for n in chrome if n.css_first("pre") is None)
        parent = parent.parent
    return found


def code_language(pre: LexborNode) -> str:
    """The language a code block declares on itself, its <code> or its wrappers."""
    candidates = [pre]
    code = pre.css_first("code")
    if code is not None:
        candidates.insert(0, code)
    node = pre.parent
    for _ in range(3):
        if node is None or node.tag not in ("div", "figure", "section"):
            break
        candidates.append(node)
        node = node.parent
    for node in candidates:
        attributes = node.attributes
        for name in ("data-lang", "data-language"):
            value = (attributes.get(name) or "").strip().lower()
            if value and value not in _NOT_A_LANGUAGE:
                return _LANGUAGE_ALIASES.get(value, value)
        classes = (attributes.get("class") or "").replace("brush: ", "brush:").split()
        for cls in classes:
            match = _LANGUAGE_CLASS.match(cls)
            if match:
                value = match.group(1).lower().rstrip(";")
                if value not in _NOT_A_LANGUAGE:
                    return _LANGUAGE_ALIASES.get(value, value)
    return ""


def _code_text(pre: LexborNode) -> str:
    """The code as the reader sees it: <br>, block-level elements and per-line elements
    (a `span.line` and kin right under <pre>/<code>, which CSS makes blocks) end lines."""
    if pre.css_first("br, div, p, li, tr, [class*=line]") is None:
        return pre.text(deep=True)
    parts: list[str] = []
    _walk_code(pre, parts)
    return "".join(parts).replace(_BREAK, "\n")


def _walk_code(node: LexborNode, parts: list[str]) -> None:
    """Append the text under `node`; a block ends its line unless its text already did."""
    for child in node.iter(include_text=True):
        tag = child.tag
        if tag == "-text":
            text = child.text_content or ""
            if parts and parts[-1] == _BREAK:
                parts.pop()
                if not text.startswith("\n"):
                    parts.append("\n")
            parts.append(text)
        elif tag == "br":
            if parts and parts[-1] == _BREAK:
                parts.pop()
            parts.append("\n")
        elif tag in _BLOCK_TAGS or (node.tag in ("pre", "code") and _is_line(child)):
            if parts and parts[-1] not in (_BREAK, "\n") and not parts[-1].endswith("\n"):
                parts.append(_BREAK)
            _walk_code(child, parts)
            if parts and parts[-1] != _BREAK and not parts[-1].endswith("\n"):
                parts.append(_BREAK)
        elif not child.is_comment_node:
            _walk_code(child, parts)


_BREAK = "\x00"  # a line break owed by a block, written only if text follows without one


def _is_line(node: LexborNode) -> bool:
    return any(cls == "line" or cls.endswith(("-line", "_line")) for cls in _classes(node))


# ---------------------------------------------------------------- tabs


def _tabs(tree: LexborHTMLParser, main: LexborNode) -> None:
    # MkDocs Material: labels in .tabbed-labels (older: in the set), blocks in .tabbed-content.
    for tabbed in reversed(main.css("div.tabbed-set")):
        label_box = _child(tabbed, "tabbed-labels") or tabbed
        labels = [n for n in label_box.iter() if n.tag == "label"]
        blocks = _children(_child(tabbed, "tabbed-content") or tabbed, "tabbed-block")
        _label_panels(tree, labels, blocks)
        for label in labels:
            label.decompose()
    # VitePress code groups: labels in .tabs, one code block per label in .blocks.
    for group in main.css("div.vp-code-group"):
        tabs = _child(group, "tabs")
        blocks = _child(group, "blocks")
        if tabs is None or blocks is None:
            continue
        labels = [n for n in tabs.iter() if n.tag == "label"]
        _label_panels(tree, labels, list(blocks.iter()))
        tabs.decompose()
    # ARIA tabs (Docusaurus, Docsy, Bootstrap, ...): tab -> panel by aria-controls, else order.
    for tablist in main.css('[role="tablist"]'):
        tabs = tablist.css('[role="tab"]')
        container = tablist.parent
        if container is None:
            continue
        ordered = container.css('[role="tabpanel"], .tab-pane')
        by_id = {p.attributes.get("id"): p for p in ordered if p.attributes.get("id")}
        panels = []
        for index, tab in enumerate(tabs):
            target = tab.attributes.get("aria-controls") or (
                tab.attributes.get("data-bs-target") or tab.attributes.get("href") or ""
            ).lstrip("#")
            panel = by_id.get(target) or (ordered[index] if index < len(ordered) else None)
            panels.append(panel)
        pairs = [(t, p) for t, p in zip(tabs, panels, strict=False) if p is not None]
        _label_panels(tree, [t for t, _ in pairs], [p for _, p in pairs])
        tablist.decompose()


def _child(node: LexborNode, cls: str) -> LexborNode | None:
    return next((c for c in node.iter() if cls in _classes(c)), None)


def _children(node: LexborNode, cls: str) -> list[LexborNode]:
    return [c for c in node.iter() if cls in _classes(c)]


def _classes(node: LexborNode) -> list[str]:
    return (node.attributes.get("class") or "").split()


def _label_panels(
    tree: LexborHTMLParser, labels: list[LexborNode], panels: list[LexborNode]
) -> None:
    """Put each tab's label above its panel; empty panels go."""
    for label, panel in zip(labels, panels, strict=False):
        if not panel.text(deep=True).strip():
            panel.decompose()
            continue
        text = " ".join(label.text(separator=" ").split())
        if not text:
            continue
        marker = tree.create_node("p")
        marker.attrs["data-pinax"] = "tab"
        marker.insert_child(text)
        panel.insert_before(marker, move=True)


# ---------------------------------------------------------------- admonitions


def _admonitions(main: LexborNode) -> None:
    for node in main.css(_ADMONITION):
        node.attrs["data-pinax"] = "admonition"
        title = node.css_first(_ADMONITION_TITLE)
        if title is None and node.tag == "details":
            title = node.css_first("summary")
        if title is not None:
            title.attrs["data-pinax"] = "title"


# ---------------------------------------------------------------- API signatures


def _signatures(main: LexborNode) -> None:
    for dt in main.css("dt.sig, dt.sig-object"):
        text = " ".join(dt.text(separator="").split())
        dt.inner_html = ""
        dt.insert_child(text)
        dt.attrs["data-pinax"] = "signature"
        dd = dt.next
        while dd is not None and dd.tag != "dd":
            dd = dd.next if dd.tag in ("-text", "dt") else None
        if dd is not None:
            dd.attrs["data-pinax"] = "body"


# ---------------------------------------------------------------- headings, lists, links


def _permalinks(main: LexborNode) -> None:
    """Permalink symbols out; self-links that carry the heading's text unwrapped."""
    for link in main.css(_PERMALINK):
        text = link.text(deep=True).strip().lower()
        if text in _PERMALINK_TEXT:
            link.decompose()
        elif (link.attributes.get("href") or "").startswith("#") or set(
            _classes(link)
        ) & _PERMALINK_CLASSES:
            link.unwrap()


def mark_task_lists(tree: LexborHTMLParser) -> None:
    """Checkboxes of task lists as `[x]` / `[ ]` (before form controls are dropped)."""
    for box in tree.css('li input[type="checkbox"]'):
        box.replace_with("[x] " if "checked" in box.attributes else "[ ] ")


def _links(main: LexborNode, base: str) -> None:
    for node in main.css("a[href]"):
        href = (node.attributes.get("href") or "").strip()
        if href.lower().startswith(("javascript:", "data:")):
            del node.attrs["href"]
        elif href:
            node.attrs["href"] = _absolute(base, href)
    for node in main.css("img"):
        attributes = node.attributes
        src = attributes.get("src") or ""
        if not src or src.startswith("data:"):
            src = attributes.get("data-src") or attributes.get("data-original") or src
        if src:
            node.attrs["src"] = _absolute(base, src.strip())


def _absolute(base: str, href: str) -> str:
    """The absolute URL, with whitespace percent-encoded so it stays one Markdown link."""
    if not href.startswith(("https://", "http://")):
        with contextlib.suppress(ValueError):
            href = urljoin(base, href)
    return _WHITESPACE.sub(lambda m: "%20" if m.group(0) == " " else "", href)
