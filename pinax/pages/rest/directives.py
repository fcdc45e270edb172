"""Sphinx's directives as harmless renderers, and the lookup that puts them (and a fallback
for any other) in front of docutils' own while a page is converted.

What each becomes: code directives (`code-block`, `sourcecode`, `code`, `literalinclude`,
`doctest`, Django's `console` ...) a literal block with its language; `highlight` the
language of the `::` blocks after it; admonitions (`note`, `warning`, `seealso`, any
`admonition`) and version notes (`versionadded`, `deprecated` ...) what Sphinx prints;
`toctree` the list of its entries' titles (or names); tabs, cards and dropdowns their
titles and content; `only` its content unless it is for another builder; directives that
print nothing (`index`, `currentmodule`, `auto*`, `raw`, `contents`, `role` ...) nothing; the
object directives are objects.py's. A directive known nowhere keeps its argument and its
content, never an error.

Safety: `include` and `literalinclude` read only files inside the conversion's area (see
`include.py`); `raw` and `role` (which would change docutils' registry for the whole process)
give nothing; no option is converted by code that imports or opens anything.
"""

from __future__ import annotations

import textwrap
from contextvars import ContextVar

from docutils import nodes
from docutils.parsers.rst import Directive
from docutils.parsers.rst import directives as registry

from . import include, objects
from .options import ANY
from .state import heading_line, highlight, state_of

ADMONITIONS = {
    "note": "Note",
    "warning": "Warning",
    "tip": "Tip",
    "important": "Important",
    "caution": "Caution",
    "danger": "Danger",
    "attention": "Attention",
    "error": "Error",
    "hint": "Hint",
    "seealso": "See also",
    "todo-shown": "Todo",
}
VERSIONS = {
    "versionadded": "Added in version",
    "versionchanged": "Changed in version",
    "deprecated": "Deprecated since version",
    "versionremoved": "Removed in version",
    "deprecated-removed": "Deprecated since version",
}
DROPPED = frozenset(
    {"index", "moduleauthor", "sectionauthor", "codeauthor", "tabularcolumns", "testsetup"}
    | {"testcleanup", "default-domain", "raw", "role", "contents", "sectnum", "meta", "title"}
    | {"header", "footer", "target-notes", "todo", "todolist", "spelling", "spelling:word-list"}
    | {"program-output", "command-output", "rst-class", "cssclass", "nbgallery"}
)
CODE = {
    "code-block": None,
    "sourcecode": None,
    "code": None,
    "code-cell": None,
    "doctest": "pycon",
    "testcode": "python",
    "testoutput": "text",
    "console": "console",
    "productionlist": "text",
    "graphviz": "dot",
    "digraph": "dot",
    "graph": "dot",
    "mermaid": "mermaid",
    "plantuml": "plantuml",
    "uml": "plantuml",
    "ipython": "ipython",
    "jupyter-execute": "python",
    "plot": "python",
    "code-tab": None,
}
TITLED = frozenset(
    {"tab", "group-tab", "tab-item", "card", "grid-item-card", "dropdown", "topic-box"}
    | {"tabbed", "details", "collapse", "div", "centered"}
)
# docutils' own directives kept as they are (they neither read files nor run anything).
DOCUTILS_KEPT = frozenset(
    {"image", "figure", "table", "csv-table", "list-table", "math", "epigraph", "highlights"}
    | {"pull-quote", "compound", "container", "topic", "sidebar", "line-block", "rubric"}
    | {"parsed-literal", "replace", "unicode", "date"}
)
OTHER_BUILDERS = ("latex", "man", "texinfo", "epub", "text", "xml", "pdf", "singlehtml")


class Dropped(Directive):
    """A directive that prints nothing on the page."""

    optional_arguments = 1
    final_argument_whitespace = True
    has_content = True
    option_spec = ANY

    def run(self) -> list:
        return []


class DefaultRole(Dropped):
    """`.. default-role:: name`: the role of `text` in the rest of this page only."""

    def run(self) -> list:
        role = self.arguments[0].strip().lower() if self.arguments else ""
        state_of(self.state.document).default_role = role
        return []


class Highlight(Dropped):
    """`.. highlight:: lang`: the language of later `::` blocks (a marker for the writer)."""

    def run(self) -> list:
        language = self.arguments[0].split()[0] if self.arguments else ""
        return [highlight(language=language)] if language else []


class Code(Directive):
    """A code directive: a literal block in its language (the argument, `:language:`, or
    the directive's own); `:dedent:` applied; `:hide:` doctests print nothing."""

    optional_arguments = 1
    final_argument_whitespace = True
    has_content = True
    option_spec = ANY

    def run(self) -> list:
        name = self.name.lower()
        if "hide" in self.options:
            return []
        language = CODE.get(name) or ""
        if self.arguments and name not in ("doctest", "testcode", "testoutput", "plot"):
            language = self.arguments[0].split()[0]
        language = self.options.get("language") or language
        text = "\n".join(self.content)
        text = dedent(text, self.options.get("dedent"))
        if not text.strip():
            return []
        node = nodes.literal_block(text, text, language=language or "text")
        caption = self.options.get("caption")
        return [heading_line("", caption), node] if caption else [node]


def dedent(text: str, amount: str | None) -> str:
    """`:dedent:` (a number of columns, or all common indentation when empty)."""
    if amount is None:
        return text
    if not amount.strip():
        return textwrap.dedent(text)
    try:
        columns = max(0, int(amount))
    except ValueError:
        return text
    return "\n".join(
        line[columns:] if not line[:columns].strip() else line for line in text.split("\n")
    )


class Admonition(Directive):
    """`.. note::` and the like (`.. admonition:: Title` takes its title): a titled block."""

    optional_arguments = 1
    final_argument_whitespace = True
    has_content = True
    option_spec = ANY

    def run(self) -> list:
        name = self.name.lower().split(":")[-1]
        node = nodes.admonition()
        title = ADMONITIONS.get(name)
        lead = self.arguments[0] if self.arguments else ""
        if title is None:  # `.. admonition:: Its title` (or an unknown kind)
            title, lead = lead or name.replace("-", " ").capitalize(), ""
            node += nodes.title(title, "", *self.state.inline_text(title, self.lineno)[0])
        else:
            node["label"] = title
        if lead:
            paragraph = nodes.paragraph()
            paragraph += self.state.inline_text(lead, self.lineno)[0]
            node += paragraph
        self.state.nested_parse(self.content, self.content_offset, node)
        return [node]


class Version(Directive):
    """`.. versionadded:: 2.0 text`: "Added in version 2.0: text", then its content."""

    required_arguments = 1
    optional_arguments = 1
    final_argument_whitespace = True
    has_content = True
    option_spec = ANY

    def run(self) -> list:
        version = self.arguments[0]
        label = f"{VERSIONS.get(self.name.lower(), 'Changed in version')} {version}"
        node = nodes.container()
        self.state.nested_parse(self.content, self.content_offset, node)
        lead = nodes.paragraph()
        if len(self.arguments) > 1:
            lead += nodes.emphasis("", label + ": ")
            lead += self.state.inline_text(self.arguments[1], self.lineno)[0]
        elif node.children and isinstance(node[0], nodes.paragraph):
            node[0].insert(0, nodes.emphasis("", label + ": "))
            return [node]
        else:
            lead += nodes.emphasis("", label + ".")
        node.insert(0, lead)
        return [node]


class Toctree(Directive):
    """`.. toctree::`: the list of its entries (their titles, else their names) under its
    caption; `:hidden:` toctrees and glob patterns print nothing."""

    has_content = True
    option_spec = ANY

    def run(self) -> list:
        if "hidden" in self.options:
            return []
        found = nodes.bullet_list()
        glob = "glob" in self.options
        for line in self.content:
            entry = line.strip()
            if not entry or (glob and any(c in entry for c in "*?[")):
                continue
            title, target = _entry_parts(entry)
            item = nodes.list_item()
            item += nodes.paragraph("", title or target)
            found += item
        if not found.children:
            return []
        caption = self.options.get("caption")
        return [heading_line("", caption), found] if caption else [found]


def _entry_parts(entry: str) -> tuple[str | None, str]:
    if entry.endswith(">") and " <" in entry:
        at = entry.rindex(" <")
        return entry[:at].strip(), entry[at + 2 : -1]
    return None, entry


class Only(Directive):
    """`.. only:: html`: the content, unless the expression is for another builder."""

    required_arguments = 1
    final_argument_whitespace = True
    has_content = True
    option_spec = ANY

    def run(self) -> list:
        expression = self.arguments[0].lower()
        other = any(word in expression.split() for word in OTHER_BUILDERS)
        if "not html" in expression or (other and "html" not in expression):
            return []
        node = nodes.container()
        self.state.nested_parse(self.content, self.content_offset, node)
        return [node]


class Titled(Directive):
    """Tabs, cards, dropdowns (and any directive known nowhere): the argument as a title
    line (unknown: as a paragraph), then the content."""

    optional_arguments = 1
    final_argument_whitespace = True
    has_content = True
    option_spec = ANY

    def run(self) -> list:
        node = nodes.container()
        argument = self.arguments[0].strip() if self.arguments else ""
        if argument:
            if self.name.lower() in TITLED:
                node += heading_line("", "", *self.state.inline_text(argument, self.lineno)[0])
            else:
                paragraph = nodes.paragraph()
                paragraph += self.state.inline_text(argument, self.lineno)[0]
                node += paragraph
        self.state.nested_parse(self.content, self.content_offset, node)
        return [node]


class NameList(Directive):
    """`.. autosummary::` and `.. hlist::`-like lists of names: each as code in a list."""

    has_content = True
    option_spec = ANY

    def run(self) -> list:
        found = nodes.bullet_list()
        for line in self.content:
            name = line.strip().split(" ", 1)[0].lstrip("~")
            if name and not name.startswith(":"):
                item = nodes.list_item()
                item += nodes.paragraph("", "", nodes.literal(name, name))
                found += item
        return [found] if found.children else []


def table() -> dict[str, type[Directive]]:
    """Every directive this module renders, by lower-case name."""
    found: dict[str, type[Directive]] = dict(objects.directives())
    found |= {name: Dropped for name in DROPPED}
    for name in ("automodule", "autoclass", "autofunction", "automethod", "autoattribute"):
        found[name] = Dropped
    for name in ("autodata", "autoexception", "autoproperty", "autodecorator", "autoprogram"):
        found[name] = Dropped
    found |= {name: Code for name in CODE}
    found |= {name: Admonition for name in ADMONITIONS}
    found["admonition"] = Admonition
    found |= {name: Version for name in VERSIONS}
    found |= {name: Titled for name in TITLED}
    found |= {"highlight": Highlight, "highlightlang": Highlight, "default-role": DefaultRole}
    found |= {"toctree": Toctree, "only": Only, "ifconfig": Titled, "tabs": Titled}
    found |= {"autosummary": NameList, "include": include.Include}
    found |= {"literalinclude": include.LiteralInclude}
    found |= {"glossary": Titled, "hlist": Titled, "tab-set": Titled, "grid": Titled}
    return found


TABLE = table()
_converting: ContextVar[bool] = ContextVar("pinax_rest_converting", default=False)
_docutils_lookup = registry.directive


def lookup(name: str, language, document):
    """docutils' directive lookup, with this module's table first and `Titled` for any
    directive known nowhere, while a page is being converted (`converting()`); docutils'
    own lookup otherwise, untouched."""
    if not _converting.get():
        return _docutils_lookup(name, language, document)
    key = name.lower()
    found = TABLE.get(key)
    if found is not None:
        return found, []
    if key in DOCUTILS_KEPT:
        return _docutils_lookup(name, language, document)
    return Titled, []


def install() -> None:
    """Put `lookup` in front of docutils' (once; inert outside a conversion)."""
    if registry.directive is not lookup:
        registry.directive = lookup


def converting() -> ContextVar[bool]:
    """The flag a conversion sets while docutils parses (per thread and task)."""
    return _converting
