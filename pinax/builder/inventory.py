"""Sphinx `objects.inv` (inventory v2: four header lines, then zlib-compressed entries).

One page per document. Sphinx lists documents as `std:doc` entries, titled by their display
name. MkDocs (mkdocstrings) writes no `std:doc`: there each distinct page of the API objects
is a document, titled by the module documented there. API objects become their page's
`symbols` (name, kind, anchor: see `SYMBOL_KINDS` in pinax.manifest), or, without symbols, a
short "API: ..." description; they never become pages of their own. Labels, documents,
terms, options and hidden entries (priority -1) are no symbols.

Reading is bounded whatever the file holds: the inflated size (the build's limit), lines
longer than `MAX_LINE` skipped, at most `MAX_ENTRIES` entries, names with control
characters skipped.
"""

from __future__ import annotations

import re
from collections import defaultdict
from dataclasses import dataclass

from pinax.errors import InvalidArgs
from pinax.manifest import MAX_HEADING_LENGTH, MAX_SYMBOLS, Page, Symbol, parent_section

from .sniff import INVENTORY_MAGIC, inflate
from .urls import readable_title, resolve

_ENTRY = re.compile(
    r"^(?P<name>.+?)\s+(?P<role>\S+:\S+)\s+(?P<prio>-?\d+)\s+(?P<uri>\S*)\s+(?P<disp>.*)$"
)
_API_NAMES_SHOWN = 8
_SKIPPED_ROLES = frozenset({"std:label", "std:term", "std:cmdoption", "std:envvar", "std:doc"})
MAX_LINE = 4096  # an entry line longer than this is no real entry: skipped
MAX_ENTRIES = 2_000_000  # more entries than any real site documents: the rest is not read
_SPACE = re.compile(r"[\s#]")
_CONTROL = re.compile(r"[\x00-\x1f\x7f]")
# Inventory roles (domain:type) as symbol kinds; `std:` roles other than these are no
# symbols (labels, documents, terms, options), and other domains' unknown types are "other".
KINDS = {
    "module": "module",
    "class": "class",
    "struct": "class",
    "union": "class",
    "interface": "class",
    "exception": "exception",
    "function": "function",
    "decorator": "function",
    "method": "method",
    "classmethod": "method",
    "staticmethod": "method",
    "decoratormethod": "method",
    "attribute": "attribute",
    "attr": "attribute",
    "member": "attribute",
    "property": "property",
    "data": "data",
    "variable": "data",
    "var": "data",
    "macro": "data",
    "enumerator": "data",
    "envvar": "data",
    "type": "type",
    "enum": "type",
    "typedef": "type",
}
_STD_SYMBOLS = frozenset({"std:envvar"})


@dataclass(frozen=True)
class Item:
    name: str
    role: str  # domain:type, e.g. "py:class", "std:doc"
    uri: str  # relative to the inventory's folder, `$` already expanded
    display: str
    priority: int = 1  # -1: hidden from search by Sphinx itself

    @property
    def kind(self) -> str | None:
        """The symbol kind of this entry, or None if it is no symbol."""
        domain, _, kind = self.role.partition(":")
        if self.priority < 0 or (domain == "std" and self.role not in _STD_SYMBOLS):
            return None
        return KINDS.get(kind, "other")


@dataclass(frozen=True)
class Inventory:
    project: str | None
    version: str | None
    items: tuple[Item, ...]


def parse(data: bytes, source: str, max_inflated: int) -> Inventory:
    if not data.startswith(INVENTORY_MAGIC):
        raise InvalidArgs(f"{source}: not a Sphinx objects.inv (no '# Sphinx inventory' header)")
    lines = data.split(b"\n", 4)
    if len(lines) < 5 or not lines[0].rstrip().endswith(b"version 2"):
        version = lines[0].decode("ascii", "replace").strip()
        raise InvalidArgs(f"{source}: only inventory version 2 is supported, found {version!r}")
    project = _header(lines[1], "# Project:")
    version = _header(lines[2], "# Version:")
    if b"zlib" not in lines[3]:
        raise InvalidArgs(f"{source}: unknown inventory compression ({lines[3][:60]!r})")
    body = inflate(lines[4], max_inflated, source).decode("utf-8", errors="replace")
    items = []
    for line in body.splitlines():
        if len(line) > MAX_LINE:
            continue
        match = _ENTRY.match(line.strip())
        if not match:
            continue
        name, uri, display = match.group("name", "uri", "disp")
        if _CONTROL.search(name) or _CONTROL.search(uri):
            continue
        if uri.endswith("$"):
            uri = uri[:-1] + name
        display = name if display == "-" else display
        items.append(Item(name, match.group("role"), uri, display, int(match.group("prio"))))
        if len(items) >= MAX_ENTRIES:
            break
    return Inventory(project, version, tuple(items))


def symbols(inventory: Inventory, base_url: str) -> dict[str, tuple[Symbol, ...]]:
    """The symbols of each page (by absolute URL, no fragment), in inventory order: one per
    name and kind; at most `MAX_SYMBOLS` a page, as a manifest holds."""
    found: dict[str, dict[tuple[str, str], Symbol]] = defaultdict(dict)
    documents: dict[str, str | None] = {}
    for item in inventory.items:
        kind = item.kind
        if kind is None or len(item.name) > MAX_HEADING_LENGTH:
            continue
        document, _, anchor = item.uri.partition("#")
        if document not in documents:
            documents[document] = resolve(document, base_url)
        url = documents[document]
        page = found[url] if url is not None else None
        if page is None or len(page) >= MAX_SYMBOLS or (item.name, kind) in page:
            continue
        valid = anchor and len(anchor) <= MAX_HEADING_LENGTH and not _SPACE.search(anchor)
        page[item.name, kind] = Symbol(item.name, kind, anchor if valid else None)
    return {url: tuple(page.values()) for url, page in found.items() if page}


def pages(inventory: Inventory, base_url: str, with_symbols: bool = True) -> list[Page]:
    """One page per document, sorted by URL; with their symbols, or else a description that
    names a few."""
    titles: dict[str, str] = {}
    for item in inventory.items:
        if item.role == "std:doc":
            titles.setdefault(_document(item.uri), item.display)
    api: dict[str, list[Item]] = defaultdict(list)
    for item in inventory.items:
        if item.role not in _SKIPPED_ROLES and ":" in item.role:
            api[_document(item.uri)].append(item)
    if not titles:  # mkdocstrings: documents are the pages API objects live on
        for document, items in api.items():
            modules = sorted((i.name for i in items if i.role.endswith(":module")), key=len)
            titles[document] = modules[0] if modules else ""
    by_page = symbols(inventory, base_url) if with_symbols else {}
    result: dict[str, Page] = {}
    for document, title in titles.items():
        url = resolve(document, base_url)
        if url is None or url in result:
            continue
        found = by_page.get(url, ())
        result[url] = Page(
            url=url,
            title=title or readable_title(url),
            section=parent_section(url),
            description=None if found else _api_summary(api.get(document, [])),
            symbols=found,
        )
    return sorted(result.values(), key=lambda page: page.url)


def _document(uri: str) -> str:
    return uri.split("#", 1)[0]


def _api_summary(items: list[Item]) -> str | None:
    """`API: Agent, Runner, function_tool and 40 more`: short names, classes first."""
    if not items:
        return None
    rank = {"class": 0, "exception": 0, "function": 1, "module": 2}
    names: list[str] = []
    for item in sorted(items, key=lambda i: (rank.get(i.role.split(":")[1], 3), i.name)):
        short = item.name.rsplit(".", 1)[-1]
        if not short.startswith("_") and short not in names:
            names.append(short)
    shown = ", ".join(names[:_API_NAMES_SHOWN])
    more = len(names) - _API_NAMES_SHOWN
    if not names:
        return None
    return f"API: {shown}" + (f" and {more} more" if more > 0 else "")


def _header(line: bytes, prefix: str) -> str | None:
    text = line.decode("utf-8", errors="replace").strip()
    if not text.startswith(prefix):
        return None
    return text[len(prefix) :].strip() or None
