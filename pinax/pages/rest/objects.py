"""Sphinx's object directives as a docutils parse sees them: each object's qualified name and
the id Sphinx gives it, recorded as the page's API symbols, and an `api_entry` node holding
its signature and description for the writer.

The names and ids follow Sphinx (sphinx/domains/python, sphinx/domains/std, sphinx.util.nodes
make_id): a Python object is qualified by `.. module::` / `.. currentmodule::` (or its
`:module:` option) and by the class directives it sits in, and its id is that qualified name
(`flask.Flask.route`); a module's id is `module-<name>`. Generic objects (`.. envvar::`,
Django's `.. django-admin::`) take `<type>-<name>`; cross-reference targets (Django's
`.. setting::`, `.. templatetag::`, `.. templatefilter::`, `.. fieldlookup::`) take
`std-<type>-<name>`, as the published pages show (`ref/settings/#std-setting-DEBUG`);
command-line options take `cmdoption-<program>-<option>`. A taken id gives way to `idN`.
`:no-index:` objects get no id and are no symbols.
"""

from __future__ import annotations

import re
import unicodedata

from docutils import nodes
from docutils.parsers.rst import Directive
from docutils.transforms import Transform

from .options import ANY
from .state import ApiObject, State, api_entry, state_of

MAX_SIGNATURE = 1000  # characters of one signature line that are read as a name
MAX_OBJECTS = 20000  # a page's symbols, at most (the manifest's bound)
_NON_ID = re.compile(r"[^a-zA-Z0-9._]+")
_ID_ENDS = re.compile(r"^[-0-9._]+|-+$")
_NAME = re.compile(r"[\w.]+")

# Python domain directives: symbol kind, and whether objects nest inside (class-like).
PYTHON = {
    "function": ("function", False),
    "decorator": ("function", False),
    "class": ("class", True),
    "exception": ("exception", True),
    "method": ("method", False),
    "classmethod": ("method", False),
    "staticmethod": ("method", False),
    "decoratormethod": ("method", False),
    "attribute": ("attribute", False),
    "property": ("property", False),
    "data": ("data", False),
    "type": ("type", False),
}
_SHOWN_PREFIX = {
    "class": "class ",
    "exception": "exception ",
    "classmethod": "classmethod ",
    "staticmethod": "static ",
    "property": "property ",
    "decorator": "@",
    "decoratormethod": "@",
    "type": "type ",
}
# Cross-reference targets (Sphinx's `add_crossref_type`): no text of their own, an id
# `std-<type>-<name>` on what follows. Django's, and Sphinx's own `.. confval::`-likes.
TARGETS = {"setting": "data", "templatetag": "other", "templatefilter": "other"}
TARGETS |= {"fieldlookup": "other"}
# Generic objects (`add_object_type`): a signature line and an id `<type>-<name>`.
GENERIC = {"envvar": "data", "django-admin": "other", "confval": "data", "event": "other"}
OPTIONS = frozenset({"option", "cmdoption", "django-admin-option"})


def make_id(text: str) -> str:
    """Sphinx's `_make_id`: ASCII letters, digits, `.` and `_`, the rest as single `-`."""
    text = unicodedata.normalize("NFKD", text[:MAX_SIGNATURE]).encode("ascii", "ignore")
    return _ID_ENDS.sub("", _NON_ID.sub("-", " ".join(text.decode("ascii").split())))


def python_name(signature: str, classes: list[str]) -> tuple[str, str] | None:
    """(the object's name inside its module, the signature as Sphinx shows it) of a Python
    signature (`Flask.route(rule, **options)`, `json.dumps(obj)`), read by hand: linear."""
    signature = " ".join(signature[:MAX_SIGNATURE].split())
    cut = min((i for i in (signature.find("("), signature.find("[")) if i >= 0), default=-1)
    head = (signature if cut < 0 else signature[:cut]).strip()
    if " " in head:  # `async foo`, `final class X`: the last word is the name
        head = head.rsplit(" ", 1)[1]
    if not _NAME.fullmatch(head) or head.endswith(".") or head.startswith("."):
        return None
    prefix = head.rpartition(".")[0]
    current = classes[-1] if classes else ""
    if current and prefix and (prefix == current or prefix.startswith(current + ".")):
        return head, signature
    if current:
        return f"{current}.{head}", signature
    return head, signature


def record(state: State, document: nodes.document, name: str, kind: str | None, wanted: str) -> str:
    """The id an object gets (`wanted`, else `idN`), recorded as one of the page's symbols
    when `kind` is given (at most `MAX_OBJECTS`)."""
    anchor = state.new_id(wanted, document.ids)
    if kind is not None and len(state.objects) < MAX_OBJECTS:
        state.objects.append(ApiObject(name, kind, anchor))
    return anchor


class ApiDirective(Directive):
    """Base of the object directives: any option accepted, signatures as the argument."""

    has_content = True
    required_arguments = 1
    optional_arguments = 0
    final_argument_whitespace = True
    option_spec = ANY

    def signatures(self) -> list[str]:
        """One per line; a line ending in `\\` goes on (Sphinx's own reading)."""
        joined = re.sub(r"\\\n[ \t]*", "", self.arguments[0][: 50 * MAX_SIGNATURE])
        return [line.strip() for line in joined.split("\n") if line.strip()][:50]

    def indexed(self) -> bool:
        return not ({"noindex", "no-index"} & set(self.options))

    def entry(self, shown: list[str], anchors: list[str], inside: str | None = None) -> list:
        """The object's node: its signatures, then its content, parsed inside the class
        `inside` names (the objects of a class directive are its members)."""
        node = api_entry(signatures=shown, ids=[])
        node["anchors"] = anchors
        if self.content:
            classes = state_of(self.state.document).classes
            if inside is not None:
                classes.append(inside)
            try:
                self.state.nested_parse(self.content, self.content_offset, node)
            finally:
                if inside is not None and classes:
                    classes.pop()
        return [node]


class PythonObject(ApiDirective):
    """`.. function::`, `.. class::`, `.. py:method::` ...: qualified name, id, signature."""

    def run(self) -> list:
        state = state_of(self.state.document)
        kind_name = self.name.split(":")[-1].lower()
        kind, nests = PYTHON.get(kind_name, ("other", False))
        module = self.options.get("module") or state.module
        shown, anchors, first = [], [], None
        for signature in self.signatures():
            named = python_name(signature, state.classes)
            prefix = _SHOWN_PREFIX.get(kind_name, "")
            if named is None:
                shown.append(prefix + signature)
                continue
            fullname, text = named
            qualified = f"{module}.{fullname}" if module else fullname
            outside_class = not state.classes
            shown.append(prefix + (f"{module}.{text}" if module and outside_class else text))
            first = first or fullname
            if self.indexed():
                document = self.state.document
                anchors.append(record(state, document, qualified, kind, make_id(qualified)))
        return self.entry(shown, anchors, first if nests else None)


class Module(Directive):
    """`.. module:: name`: the current module from here on, and a `module-<name>` target."""

    required_arguments = 1
    final_argument_whitespace = True
    has_content = True
    option_spec = ANY

    def run(self) -> list:
        state = state_of(self.state.document)
        name = self.arguments[0].strip()
        state.module = name
        if {"noindex", "no-index"} & set(self.options) or not _NAME.fullmatch(name):
            return []
        anchor = record(state, self.state.document, name, "module", f"module-{name}")
        state.entry_targets.add(anchor)  # the section (or block) it names is its entry
        return [nodes.target("", "", ids=[anchor], ismod=True)]


class MoveModuleTargets(Transform):
    """Sphinx's own transform: a `.. module::` right below a section's title gives the
    section its id (`module-json`), as the published page shows."""

    default_priority = 210  # before docutils' PropagateTargets

    def apply(self) -> None:
        for node in list(self.document.findall(nodes.target)):
            parent = node.parent
            if node.get("ismod") and isinstance(parent, nodes.section) and parent.index(node) == 1:
                parent["ids"][0:0] = node["ids"]
                parent.remove(node)


class CurrentModule(Directive):
    """`.. currentmodule:: name` (`None`: no module): names are qualified by it, no text."""

    required_arguments = 1
    final_argument_whitespace = True
    option_spec = ANY

    def run(self) -> list:
        state = state_of(self.state.document)
        name = self.arguments[0].strip()
        state.module = None if name == "None" else name
        return []


class Target(Directive):
    """A cross-reference target (`.. setting:: DEBUG`): an id on what follows, no text."""

    required_arguments = 1
    final_argument_whitespace = True
    has_content = True
    option_spec = ANY

    def run(self) -> list:
        state = state_of(self.state.document)
        kind_name = self.name.split(":")[-1].lower()
        name = " ".join(self.arguments[0].split())
        wanted = make_id(f"std-{kind_name}-{name}")
        kind = TARGETS.get(kind_name, "other")
        anchor = record(state, self.state.document, name, kind, wanted)
        state.entry_targets.add(anchor)
        return [nodes.target("", "", ids=[anchor])]


class GenericObject(ApiDirective):
    """`.. envvar:: NAME`, `.. django-admin:: migrate [app_label]`: a signature line and an
    id `<type>-<name>`; a django-admin command is the program of the options after it."""

    def run(self) -> list:
        state = state_of(self.state.document)
        kind_name = self.name.split(":")[-1].lower()
        shown, anchors = [], []
        for signature in self.signatures():
            name = signature.split(" ", 1)[0] if kind_name == "django-admin" else signature
            if kind_name == "django-admin":
                state.program = name
                shown.append(f"django-admin {signature}")
            else:
                shown.append(signature)
            if self.indexed():
                wanted = make_id(f"{kind_name}-{name}")
                kind = GENERIC.get(kind_name, "other")
                anchors.append(record(state, self.state.document, name, kind, wanted))
        return self.entry(shown, anchors)


class Program(Directive):
    """`.. program:: name`: the program the `.. option::` entries after it belong to."""

    required_arguments = 1
    final_argument_whitespace = True
    option_spec = ANY

    def run(self) -> list:
        name = self.arguments[0].strip()
        state_of(self.state.document).program = None if name == "None" else name
        return []


class CommandOption(ApiDirective):
    """`.. option:: -v, --verbose` (Django: `.. django-admin-option::`): each option name
    gets `cmdoption-<program>-<name>`; options are no API symbols (nor in objects.inv's)."""

    def run(self) -> list:
        state = state_of(self.state.document)
        shown, anchors = [], []
        for signature in self.signatures():
            shown.append(signature)
            for option in signature.split(", "):
                name = option.split(" ", 1)[0].split("=", 1)[0]
                parts = ["cmdoption", *([state.program] if state.program else [])]
                if not name.startswith(("-", "/")):
                    parts.append("arg")
                wanted = make_id(f"{'-'.join(parts)}-{name}")
                if self.indexed() and wanted:
                    anchors.append(record(state, self.state.document, name, None, wanted))
        return self.entry(shown, anchors)


class Describe(ApiDirective):
    """Objects of other domains (`.. c:function::`, `.. js:class::`, `.. rst:directive::`,
    `.. describe::`): the signature line and the description, no symbol."""

    def run(self) -> list:
        return self.entry(self.signatures(), [])


def directives() -> dict[str, type[Directive]]:
    """The object directives by name, with and without their domain."""
    table: dict[str, type[Directive]] = {}
    for name in PYTHON:
        table[name] = table[f"py:{name}"] = PythonObject
    table["module"] = table["py:module"] = Module
    table["currentmodule"] = table["py:currentmodule"] = CurrentModule
    for name in TARGETS:
        table[name] = table[f"std:{name}"] = Target
    for name in GENERIC:
        table[name] = table[f"std:{name}"] = GenericObject
    for name in OPTIONS:
        table[name] = table[f"std:{name}"] = CommandOption
    table["program"] = table["std:program"] = Program
    for domain in ("c", "cpp", "js", "rst", "http", "rb", "php", "go", "java", "mat"):
        for kind in ("function", "class", "method", "member", "macro", "type", "var", "data"):
            table[f"{domain}:{kind}"] = Describe
    for name in ("describe", "object", "rst:directive", "rst:role", "rst:directive:option"):
        table[name] = Describe
    for name in ("js:module", "c:struct", "cpp:struct", "c:enum", "cpp:enum"):
        table[name] = Describe
    return table
