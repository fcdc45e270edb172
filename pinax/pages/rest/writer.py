"""A docutils doctree as Markdown, the way get_page gives a page: ATX headings (the anchors
the published page gives them recorded beside, not written in), paragraphs with their
line breaks, emphasis, inline code, links, lists, definition and field lists, pipe tables,
fenced code with its language, admonitions as block quotes with their title in bold,
footnotes, and images as their alt text. API objects become a line of inline code (their
signature) and their description, marked as entries so `section="flask.Flask.route"` reads
just that one (see pinax.pages.entries).

Why a writer of our own: docutils ships none for Markdown, and the converters that exist
either call out to Pandoc or drop Sphinx's nodes. This one walks the tree once; the tree's
depth is bounded by what the parser built.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from docutils import nodes

from pinax.pages.entries import CLOSE, END, START, take_entries
from pinax.pages.headings import Document
from pinax.pages.outline import PageHeading

from .state import State, api_entry, heading_line, highlight, markdown

_AUTO_ID = re.compile(r"id\d+$")
_MARKERS = str.maketrans("", "", f"\0\u200b{START}{END}{CLOSE}")  # (U+200B: an unknown |version|)
_BLOCK_START = re.compile(r"[ \t]*(?:#|>|(?:=+|-+|\*{3,}|_{3,})[ \t]*$)")
_ALIASES = {"default": "python", "python3": "python", "py3": "python", "none": "text", "": "text"}
_ALIASES |= {"ipython3": "ipython", "pycon3": "pycon", "shell-session": "console"}
SKIPPED = (
    nodes.comment,
    nodes.substitution_definition,
    nodes.target,
    nodes.system_message,
    nodes.raw,
    nodes.pending,
    nodes.decoration,
    nodes.meta,
)


def section_anchor(ids: Iterable[str]) -> str | None:
    """The id the published section carries: its first id that is not a generated `idN`."""
    ids = list(ids)
    return next((i for i in ids if not _AUTO_ID.match(i)), ids[0] if ids else None)


def smart(text: str) -> str:
    """Text as Sphinx prints it: ` --- ` and ` -- ` as dashes; marker characters out."""
    text = text.translate(_MARKERS)
    if "--" in text:
        text = text.replace(" --- ", " \u2014 ").replace(" -- ", " \u2013 ")
    return text


def code(text: str) -> str:
    """Inline code, fenced with enough backticks."""
    text = " ".join(text.translate(_MARKERS).split())
    if not text:
        return ""
    if "`" not in text:
        return f"`{text}`"
    fence = "``"
    while fence in text:
        fence += "`"
    return f"{fence} {text} {fence}"


def prefixed(lines: list[str], first: str, rest: str) -> list[str]:
    """`lines` under a list marker (`first`) with the rest indented (`rest`)."""
    if not lines:
        return [first.rstrip()]
    out = [first + lines[0]]
    out.extend(rest + line if line else "" for line in lines[1:])
    return out


class Writer:
    """One document's Markdown, its headings and its API entries."""

    def __init__(self, document: nodes.document, state: State) -> None:
        self.document = document
        self.state = state
        self.language = state.language  # for `::` blocks, until a `.. highlight::`
        self.headings: list[PageHeading] = []
        self.entry_ids: list[str] = []

    def write(self) -> tuple[str, list[tuple[str, int, int]]]:
        """(the Markdown, each API entry's (id, start, end) in it)."""
        text = "\n".join(self.blocks(self.document.children, 0)).strip("\n") + "\n"
        return take_entries(text, self.entry_ids)

    # ------------------------------------------------------------------ blocks

    def blocks(self, children: Iterable[nodes.Node], depth: int) -> list[str]:
        out: list[str] = []
        for child in children:
            lines = self.block(child, depth)
            if lines:
                if out:
                    out.append("")
                out.extend(lines)
        return out

    def block(self, node: nodes.Node, depth: int) -> list[str]:
        if isinstance(node, nodes.Text):
            return self.paragraph_lines(smart(str(node)))
        if isinstance(node, SKIPPED):
            return []
        visit = getattr(self, "visit_" + type(node).__name__, None)
        if visit is not None:
            lines = visit(node, depth)
        elif isinstance(node, nodes.Admonition):
            lines = self.admonition(node, depth)
        elif isinstance(node, nodes.TextElement):
            lines = self.paragraph_lines(self.inlines(node))
        else:
            lines = self.blocks(node.children, depth)
        targets = [i for i in node.get("ids", ()) if i in self.state.entry_targets]
        if targets and lines:
            return self.entry(targets, lines)
        return lines

    def entry(self, anchors: list[str], lines: list[str]) -> list[str]:
        """`lines` marked as the entry of each anchor (see pinax.pages.entries)."""
        numbers = range(len(self.entry_ids), len(self.entry_ids) + len(anchors))
        self.entry_ids.extend(anchors)
        opening = "".join(f"{START}{n}{END}" for n in numbers)
        closing = "".join(f"{CLOSE}{n}{END}" for n in numbers)
        return [opening + lines[0], *lines[1:], "", closing]

    def paragraph_lines(self, text: str) -> list[str]:
        lines = [line.rstrip() for line in text.strip("\n").split("\n")]
        return ["\\" + line.lstrip() if _BLOCK_START.match(line) else line for line in lines]

    def visit_section(self, node: nodes.section, depth: int) -> list[str]:
        level = min(depth + 1, 6)
        title = node[0] if node.children and isinstance(node[0], nodes.title) else None
        lines: list[str] = []
        if title is not None:
            plain = " ".join(smart(title.astext()).split())
            self.headings.append(PageHeading(level, plain, section_anchor(node["ids"])))
            lines.append("#" * level + " " + " ".join(self.inlines(title).split()))
        rest = self.blocks(node.children[1 if title is not None else 0 :], depth + 1)
        return lines + ([""] if lines and rest else []) + rest

    def visit_title(self, node: nodes.title, depth: int) -> list[str]:
        text = " ".join(self.inlines(node).split())
        return [f"**{text}**"] if text else []

    visit_rubric = visit_title
    visit_heading_line = visit_title

    def visit_literal_block(self, node: nodes.literal_block, depth: int) -> list[str]:
        text = node.astext().translate(_MARKERS).rstrip("\n")
        if not text.strip():
            return []
        language = node.get("language")
        if language is None:  # a `::` block: the page's highlight language
            language = self.language
        language = _ALIASES.get(language.lower(), language.lower())
        fence = "```"
        while fence in text:
            fence += "`"
        return [fence + (language or "text"), *text.split("\n"), fence]

    def visit_doctest_block(self, node: nodes.doctest_block, depth: int) -> list[str]:
        text = node.astext().translate(_MARKERS).rstrip("\n")
        return ["```pycon", *text.split("\n"), "```"]

    def visit_math_block(self, node: nodes.Element, depth: int) -> list[str]:
        text = node.astext().translate(_MARKERS).strip("\n")
        return ["```math", *text.split("\n"), "```"] if text.strip() else []

    def visit_highlight(self, node: highlight, depth: int) -> list[str]:
        self.language = node["language"]
        return []

    def visit_markdown(self, node: markdown, depth: int) -> list[str]:
        text = node["text"].translate(_MARKERS).strip("\n")
        for heading in Document(text).headings:
            self.headings.append(PageHeading(heading.level, heading.title, heading.anchor))
        return text.split("\n") if text.strip() else []

    def visit_api_entry(self, node: api_entry, depth: int) -> list[str]:
        signatures = [code(s) for s in node["signatures"] if s.strip()]
        lines: list[str] = []
        for signature in signatures:
            lines.extend(["", signature] if lines else [signature])
        body = self.blocks(node.children, depth)
        if body:
            lines.extend(["", *body] if lines else body)
        anchors = node.get("anchors", [])
        return self.entry(anchors, lines) if anchors and lines else lines

    def visit_bullet_list(self, node: nodes.Element, depth: int) -> list[str]:
        return self.items(node, lambda number: "- ", depth)

    def visit_enumerated_list(self, node: nodes.Element, depth: int) -> list[str]:
        start = node.get("start", 1)
        return self.items(node, lambda number: f"{start + number}. ", depth)

    def items(self, node: nodes.Element, marker, depth: int) -> list[str]:
        rendered = [self.blocks(item.children, depth) for item in node.children]
        tight = all("" not in lines for lines in rendered)
        out: list[str] = []
        for number, lines in enumerate(rendered):
            if out and not tight:
                out.append("")
            first = marker(number)
            out.extend(prefixed(lines, first, " " * len(first)))
        return out

    def visit_definition_list(self, node: nodes.Element, depth: int) -> list[str]:
        out: list[str] = []
        for item in node.children:
            terms = [child for child in item.children if not isinstance(child, nodes.definition)]
            term = " : ".join(" ".join(self.inlines(t).split()) for t in terms)
            definition = [c for c in item.children if isinstance(c, nodes.definition)]
            lines = self.blocks(definition[0].children, depth) if definition else []
            if out:
                out.append("")
            out.append(term)
            if lines:
                out.extend(prefixed(lines, ":   ", "    "))
        return out

    def visit_field_list(self, node: nodes.Element, depth: int) -> list[str]:
        out: list[str] = []
        for field in node.children:
            if len(field.children) < 2:
                continue
            name = " ".join(self.inlines(field[0]).split())
            lines = self.blocks(field[1].children, depth)
            if out:
                out.append("")
            out.extend(prefixed(lines, f"**{name}:** ", ""))
        return out

    def visit_option_list(self, node: nodes.Element, depth: int) -> list[str]:
        out: list[str] = []
        for item in node.children:
            group = item.next_node(nodes.option_group)
            options = ", ".join(o.astext() for o in group.children) if group else ""
            description = item.next_node(nodes.description)
            lines = self.blocks(description.children, depth) if description else []
            if out:
                out.append("")
            out.append(code(options))
            if lines:
                out.extend(prefixed(lines, ":   ", "    "))
        return out

    def visit_block_quote(self, node: nodes.Element, depth: int) -> list[str]:
        lines = self.blocks(node.children, depth)
        return [f"> {line}" if line else ">" for line in lines]

    def visit_attribution(self, node: nodes.Element, depth: int) -> list[str]:
        return ["\u2014 " + " ".join(self.inlines(node).split())]

    def admonition(self, node: nodes.Element, depth: int) -> list[str]:
        children = list(node.children)
        label = node.get("label")
        if children and isinstance(children[0], nodes.title):
            label = label or " ".join(self.inlines(children.pop(0)).split())
        label = label or type(node).__name__.replace("_", " ").capitalize()
        lines = [f"**{label}**", "", *self.blocks(children, depth)]
        while lines and not lines[-1]:
            lines.pop()
        return [f"> {line}" if line else ">" for line in lines]

    def visit_topic(self, node: nodes.Element, depth: int) -> list[str]:
        return self.blocks(node.children, depth)

    visit_sidebar = visit_topic

    def visit_transition(self, node: nodes.Element, depth: int) -> list[str]:
        return ["---"]

    def visit_line_block(self, node: nodes.Element, depth: int) -> list[str]:
        lines = []
        for child in node.children:
            if isinstance(child, nodes.line_block):
                lines.extend("    " + line for line in self.visit_line_block(child, depth))
            else:
                lines.append(" ".join(self.inlines(child).split()) + "  ")
        return [line.rstrip() + "  " if line.strip() else "" for line in lines]

    def visit_footnote(self, node: nodes.Element, depth: int) -> list[str]:
        children = list(node.children)
        label = (
            children.pop(0).astext() if children and isinstance(children[0], nodes.label) else "*"
        )
        return prefixed(self.blocks(children, depth), f"[^{label}]: ", "    ")

    visit_citation = visit_footnote

    def visit_image(self, node: nodes.Element, depth: int) -> list[str]:
        text = self.image(node)
        return [text] if text else []

    def visit_figure(self, node: nodes.Element, depth: int) -> list[str]:
        return self.blocks(node.children, depth)

    def visit_caption(self, node: nodes.Element, depth: int) -> list[str]:
        return self.paragraph_lines(self.inlines(node))

    def visit_table(self, node: nodes.Element, depth: int) -> list[str]:
        from .tables import pipe_table

        title = node.next_node(nodes.title)
        lines = [f"**{' '.join(self.inlines(title).split())}**", ""] if title else []
        return lines + pipe_table(node, lambda cell: self.blocks(cell.children, depth))

    # ------------------------------------------------------------------ inline

    def inlines(self, node: nodes.Element) -> str:
        return "".join(self.inline(child) for child in node.children)

    def inline(self, node: nodes.Node) -> str:
        if isinstance(node, nodes.Text):
            return smart(str(node))
        if isinstance(node, nodes.target):  # an inline target shows its text
            return self.inlines(node)
        if isinstance(node, SKIPPED):
            return ""
        if isinstance(node, nodes.literal):
            return code(node.astext())
        if isinstance(node, nodes.emphasis | nodes.title_reference):
            return _wrap("*", self.inlines(node))
        if isinstance(node, nodes.strong):
            return _wrap("**", self.inlines(node))
        if isinstance(node, nodes.reference):
            return self.link(node)
        if isinstance(node, nodes.footnote_reference):
            return f"[^{node.astext()}]"
        if isinstance(node, nodes.citation_reference):
            return f"[{node.astext()}]"
        if isinstance(node, nodes.math):
            return f"${node.astext()}$"
        if isinstance(node, nodes.image):
            return self.image(node)
        if isinstance(node, nodes.problematic):
            return smart(node.astext())
        if isinstance(node, nodes.inline) and node.get("reflabel"):
            return smart(self.label_title(node["reflabel"]))
        if isinstance(node, nodes.Element):
            return self.inlines(node)
        return ""

    def link(self, node: nodes.reference) -> str:
        text = self.inlines(node)
        uri = node.get("refuri")
        if uri is None and node.get("refid"):
            uri = "#" + node["refid"]
        if not uri or uri.startswith(("javascript:", "data:", "vbscript:")):
            return text
        uri = uri.replace(" ", "%20").replace("(", "%28").replace(")", "%29")
        if text.strip() in (uri, node.get("refuri")):
            return f"<{uri}>" if "://" in uri or uri.startswith("mailto:") else text
        return f"[{text}]({uri})" if text.strip() else ""

    def image(self, node: nodes.Element) -> str:
        alt = " ".join(node.get("alt", "").split()).translate(_MARKERS)
        uri = node.get("uri", "")
        if alt and uri.startswith(("http://", "https://")):
            return f"![{alt}]({uri.replace(' ', '%20').replace(')', '%29')})"
        return alt

    def label_title(self, label: str) -> str:
        """A `:ref:` without a title: the title of the section its label names, when that
        section is on this page; else the label."""
        node_id = self.document.nameids.get(" ".join(label.lower().split()))
        target = self.document.ids.get(node_id) if node_id else None
        if isinstance(target, nodes.section) and target.children:
            return " ".join(target[0].astext().split())
        return label


def _wrap(mark: str, text: str) -> str:
    """Emphasis around `text`, its outer blanks left outside."""
    inner = text.strip()
    if not inner:
        return text
    left = text[: len(text) - len(text.lstrip())]
    right = text[len(text.rstrip()) :]
    return f"{left}{mark}{inner}{mark}{right}"


__all__ = ["Writer", "api_entry", "heading_line", "section_anchor"]
