"""Sphinx `objects.inv` (inventory v2: four header lines, then zlib-compressed entries).

One page per document. Sphinx lists documents as `std:doc` entries, titled by their display
name. MkDocs (mkdocstrings) writes no `std:doc`: there each distinct page of the API objects
is a document, titled by the module documented there. API objects enrich their page's
`description` with a few names; they never become pages of their own.
"""

from __future__ import annotations

import re
from collections import defaultdict
from dataclasses import dataclass

from pinax.errors import InvalidArgs
from pinax.manifest import Page, parent_section

from .content import INVENTORY_MAGIC, inflate
from .urls import readable_title, resolve

_ENTRY = re.compile(
    r"^(?P<name>.+?)\s+(?P<role>\S+:\S+)\s+(?P<prio>-?\d+)\s+(?P<uri>\S*)\s+(?P<disp>.*)$"
)
_API_NAMES_SHOWN = 8
_SKIPPED_ROLES = frozenset({"std:label", "std:term", "std:cmdoption", "std:envvar", "std:doc"})


@dataclass(frozen=True)
class Item:
    name: str
    role: str  # domain:type, e.g. "py:class", "std:doc"
    uri: str  # relative to the inventory's folder, `$` already expanded
    display: str


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
        match = _ENTRY.match(line.strip())
        if not match:
            continue
        name, uri, display = match.group("name", "uri", "disp")
        if uri.endswith("$"):
            uri = uri[:-1] + name
        items.append(Item(name, match.group("role"), uri, name if display == "-" else display))
    return Inventory(project, version, tuple(items))


def pages(inventory: Inventory, base_url: str) -> list[Page]:
    """One page per document, sorted by URL."""
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
    result: dict[str, Page] = {}
    for document, title in titles.items():
        url = resolve(document, base_url)
        if url is None or url in result:
            continue
        result[url] = Page(
            url=url,
            title=title or readable_title(url),
            section=parent_section(url),
            description=_api_summary(api.get(document, [])),
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
