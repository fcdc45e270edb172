"""Queries naming an owner and a kind of member (`str methods`, `Path attributes`, `asyncio
exceptions`): the pages that document that owner's members of that kind, from the symbols'
names (the owner: all but the last part) and kinds, counted per page.

The count of each (owner, kind) per page is made once per page table, on the first query of
that shape (one pass over the symbols), and kept while the table lives.
"""

from __future__ import annotations

import re
import threading
import weakref
from collections import Counter
from typing import Any

from pinax.manifest import SYMBOL_KINDS

# A kind of member as a query names it -> the symbol kinds it means (documentation tools
# call a class's methods functions, its properties attributes or data).
MEMBER_KINDS = {
    "methods": ("method", "function"),
    "functions": ("function", "method"),
    "attributes": ("attribute", "property", "data"),
    "properties": ("property", "attribute"),
    "fields": ("attribute", "property", "data"),
    "constants": ("data", "attribute"),
    "exceptions": ("exception",),
    "errors": ("exception",),
    "classes": ("class", "exception"),
    "events": ("class",),
    "types": ("type", "class"),
}
_OWNER = re.compile(r"[A-Za-z_][\w.]{0,200}")
_TABLES: weakref.WeakKeyDictionary[Any, dict[tuple[str, int], Counter[int]]] = (
    weakref.WeakKeyDictionary()
)
_LOCK = threading.Lock()


def member_query(query: str) -> tuple[str, tuple[int, ...]] | None:
    """(owner, symbol kinds as places in `SYMBOL_KINDS`) of a query that is an owner and a
    kind of member, else None."""
    parts = query.split()
    if len(parts) != 2 or not _OWNER.fullmatch(parts[0]):
        return None
    kinds = MEMBER_KINDS.get(parts[1].lower()) or MEMBER_KINDS.get(parts[1].lower() + "s")
    if kinds is None:
        return None
    return parts[0].lower().strip("."), tuple(SYMBOL_KINDS.index(k) for k in kinds)


def member_pages(pages: Any, owner: str, kinds: tuple[int, ...]) -> list[tuple[int, int]]:
    """(page, how many of `owner`'s members of `kinds` it documents), most first."""
    table = _TABLES.get(pages)
    if table is None:
        with _LOCK:
            table = _TABLES.get(pages)
            if table is None:
                table = _TABLES[pages] = _count(pages)
    found: Counter[int] = Counter()
    for kind in kinds:
        found.update(table.get((owner, kind), {}))
    return found.most_common()


def _count(pages: Any) -> dict[tuple[str, int], Counter[int]]:
    """(owner as typed: its last part or its whole dotted name, lower-case; kind) -> pages
    and their counts."""
    table: dict[tuple[str, int], Counter[int]] = {}
    starts = pages.symbol_start
    for page in range(len(starts) - 1):
        for at in range(int(starts[page]), int(starts[page + 1])):
            symbol = pages.symbol(at)
            owner, dot, _ = symbol.name.rpartition(".")
            if not dot:
                continue
            kind = SYMBOL_KINDS.index(symbol.kind)
            owner = owner.lower()
            for key in {owner, owner.rsplit(".", 1)[-1]}:
                table.setdefault((key, kind), Counter())[page] += 1
    return table
