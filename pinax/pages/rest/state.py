"""What one conversion remembers while docutils parses: Sphinx's context (current module,
class, program, highlight language), the include budget, and the API objects found; and the
few node types the directives leave for the writer.

Why a state object on the document: Sphinx keeps this in its build environment, which a
docutils parse does not have; the directives and roles reach it as `document.pinax`.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

from docutils import nodes

MAX_INCLUDES = 64  # include / literalinclude directives followed in one page (a loop stops here)


@dataclass(frozen=True)
class ApiObject:
    """One documented API object: its qualified name, symbol kind and id on the page."""

    name: str
    kind: str
    anchor: str


@dataclass
class State:
    """Sphinx's context for one page, and what the page documents."""

    folder: Path | None  # the docs folder (Sphinx's source dir): `/x` includes start here
    area: Path | None  # includes are followed only inside this folder (real path)
    max_chars: int  # the page with everything it includes, at most
    chars: int = 0  # read so far (the page and its includes)
    includes: int = 0
    module: str | None = None  # `.. module::` / `.. currentmodule::`
    classes: list[str] = field(default_factory=list)  # class directives we are inside
    program: str | None = None  # `.. program::` / `.. django-admin::`: options' program
    default_role: str = ""  # `.. default-role::`: the role of `text` without one
    language: str = "python"  # conf.py's highlight_language: `::` blocks (Sphinx: python)
    extlinks: dict[str, str] = field(default_factory=dict)  # role -> caption (`#%s`)
    objects: list[ApiObject] = field(default_factory=list)
    ids: set[str] = field(default_factory=set)  # object ids given so far (Sphinx: unique)
    entry_targets: set[str] = field(default_factory=set)  # target ids that open an entry
    sources: list[tuple[str, int, int]] = field(default_factory=list)  # included: path, stat
    serial: int = 0

    def new_id(self, wanted: str, taken: Mapping[str, object]) -> str:
        """`wanted`, or `idN` when it is taken here or by the document (`taken`: its ids),
        as Sphinx's make_id does."""
        anchor = wanted
        while not anchor or anchor in self.ids or anchor in taken:
            anchor = f"id{self.serial}"
            self.serial += 1
        self.ids.add(anchor)
        return anchor


def state_of(document: nodes.document) -> State:
    """The conversion state of a document being parsed (one with none: a default)."""
    state = getattr(document, "pinax", None)
    if state is None:
        state = document.pinax = State(None, None, 0)
    return state


class markdown(nodes.General, nodes.Element):
    """Markdown included as it is (an included `.md` file): the writer copies its text."""


class highlight(nodes.Invisible, nodes.Element):
    """`.. highlight:: lang`: the language of the `::` blocks that follow."""


class api_entry(nodes.General, nodes.Element):
    """An object directive: its signature lines (`signatures`), then its content; its
    `ids` are the objects' anchors."""


class heading_line(nodes.General, nodes.TextElement):
    """A bold title line inside a block (a tab's or a card's title, a rubric)."""
