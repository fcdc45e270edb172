"""Headings and symbols of every page kept flat, their texts numbered in tables of distinct
texts: a million pages have millions of headings but a few hundred thousand distinct titles,
each kept and analysed once. Batches parsed apart (by worker processes) are renumbered into
one table as they are added, so the result is the same as parsing in one pass.
"""

from __future__ import annotations

from array import array
from collections.abc import Sequence
from typing import NamedTuple

import numpy as np

from pinax.manifest.model import SYMBOL_KINDS, Heading, Page, Symbol


class Numbering(dict[str | None, int]):
    """Distinct texts numbered in order of first appearance: a million pages' headings are
    a few hundred thousand texts ("Examples", "See also"), each kept and analysed once.
    A dict of text -> number (None -> -1) that numbers a text it lacks when asked for it,
    so that numbering a batch is one pass in C (`map`) but for the new texts."""

    def __init__(self) -> None:
        super().__init__({None: -1})
        self.texts: list[str] = []

    def __missing__(self, text: str) -> int:
        number = self[text] = len(self.texts)
        self.texts.append(text)
        return number

    def numbers(self, values: list[str | None]) -> array:
        """Each value's number (-1 for None), numbering the new ones."""
        return array("l", map(self.__getitem__, values))


# Heading titles, heading anchors, symbol names, symbol anchors.
Numberings = tuple[Numbering, Numbering, Numbering, Numbering]


class Headings(NamedTuple):
    """Every heading of every page, flat, in page order; titles and anchors as numbers in
    tables of distinct texts."""

    page: array  # the page each heading belongs to ("l")
    level: array  # 2..6 ("B")
    title: array  # its number in `titles` ("l")
    anchor: array  # its number in `anchors`, -1 where none is known ("l")
    titles: list[str]
    anchors: list[str]

    @classmethod
    def empty(cls, titles: Numbering, anchors: Numbering) -> Headings:
        return cls(array("l"), array("B"), array("l"), array("l"), titles.texts, anchors.texts)

    @classmethod
    def of(cls, pages: Sequence[Page], titles: Numbering, anchors: Numbering) -> Headings:
        flat = [(i, h) for i, page in enumerate(pages) for h in page.outline]
        return cls(
            array("l", [i for i, _ in flat]),
            array("B", [h.level for _, h in flat]),
            titles.numbers([h.title for _, h in flat]),
            anchors.numbers([h.anchor for _, h in flat]),
            titles.texts,
            anchors.texts,
        )

    def heading(self, at: int) -> Heading:
        anchor = self.anchor[at]
        return Heading(
            self.level[at],
            self.titles[self.title[at]],
            self.anchors[anchor] if anchor >= 0 else None,
        )

    def extend(
        self, other: Headings, first_page: int, titles: Numbering, anchors: Numbering
    ) -> None:
        """Add another batch's headings (numbered in tables of its own, renumbered here in
        `titles` and `anchors`, the tables of these), its pages numbered from `first_page`."""
        extend_flat(self, other, first_page, titles, anchors)


class Symbols(NamedTuple):
    """Every symbol of every page, flat, in page order; names and anchors as numbers in tables
    of distinct texts, kinds as places in `SYMBOL_KINDS`."""

    page: array  # ("l")
    kind: array  # ("B")
    name: array  # its number in `names` ("l")
    anchor: array  # its number in `anchors`, -1 where none is known ("l")
    names: list[str]
    anchors: list[str]

    @classmethod
    def empty(cls, names: Numbering, anchors: Numbering) -> Symbols:
        return cls(array("l"), array("B"), array("l"), array("l"), names.texts, anchors.texts)

    @classmethod
    def of(cls, pages: Sequence[Page], names: Numbering, anchors: Numbering) -> Symbols:
        flat = [(i, s) for i, page in enumerate(pages) for s in page.symbols]
        return cls(
            array("l", [i for i, _ in flat]),
            array("B", [SYMBOL_KINDS.index(s.kind) for _, s in flat]),
            names.numbers([s.name for _, s in flat]),
            anchors.numbers([s.anchor for _, s in flat]),
            names.texts,
            anchors.texts,
        )

    def symbol(self, at: int) -> Symbol:
        anchor = self.anchor[at]
        return Symbol(
            self.names[self.name[at]],
            SYMBOL_KINDS[self.kind[at]],
            self.anchors[anchor] if anchor >= 0 else None,
        )

    def extend(self, other: Symbols, first_page: int, names: Numbering, anchors: Numbering) -> None:
        extend_flat(self, other, first_page, names, anchors)


def extend_flat(
    mine: Headings | Symbols,
    other: Headings | Symbols,
    first_page: int,
    texts: Numbering,
    anchors: Numbering,
) -> None:
    """Add a batch's flat entries to `mine`, both laid out alike: (page, a small number,
    text number, anchor number, text table, anchor table); the batch's numbers are of its
    own tables, renumbered in `texts` and `anchors` (whose tables are `mine`'s)."""
    page, small, text, anchor, text_table, anchor_table = mine
    assert texts.texts is text_table and anchors.texts is anchor_table
    page.frombytes((np.frombuffer(other.page, dtype=np.int_) + first_page).tobytes())
    small.extend(other[1])
    text.frombytes(renumbered(other[2], other[4], texts))
    anchor.frombytes(renumbered(other[3], other[5], anchors))


def renumbered(numbers: array, table: list[str], numbering: Numbering) -> bytes:
    """Numbers of `table`'s texts (-1: none) as numbers of `numbering`'s (an "l" array's
    bytes); the texts new to `numbering` are numbered in `table`'s order."""
    mapping = np.frombuffer(numbering.numbers([*table, None]), dtype=np.int_)
    return mapping[np.frombuffer(numbers, dtype=np.int_)].tobytes()  # -1 is the last: None
