"""reStructuredText (and Sphinx's reST) as the Markdown a reader of the published page sees.

`convert(text, path, folder)` parses with docutils, the reference reST parser, with Sphinx's
roles and directives registered as harmless renderers (roles.py, directives.py, objects.py)
and writes Markdown (writer.py). It returns the Markdown with what the builder and get_page
need beside it: every heading with the anchor Sphinx gives it, the API objects the page
documents (qualified names, kinds, anchors) and where each one's entry is in the Markdown.

Safety, for a page nobody vetted: no configuration file is read, `raw` and file insertion
are off except for our own include (inside the repository the folder belongs to: see
include.py and `area_of`), `conf.py` is read for literals only (conf.py), no role or
directive changes docutils' registry, reports are
silenced and nothing raises (halt level 5). The page and what it includes are read up to
`MAX_CHARS`; a larger page, one with more than `MAX_SECTIONS` titles, one nested deeper
than `MAX_INDENT` columns or `MAX_MARKERS` list markers on a line (docutils re-reads a
nested block once per level, so depth multiplies its work), a parse that runs past
`deadline.SECONDS` (deadline.py: some constructs read far slower than prose), or any
failure of the parser falls back to `fallback`: section titles as headings, roles as their
text, literal blocks fenced, in one linear pass (linear.py).
"""

from __future__ import annotations

import copy
import hashlib
import itertools
import os
import re
import threading
from collections import OrderedDict
from dataclasses import dataclass
from pathlib import Path

from docutils import nodes
from docutils.frontend import get_default_settings
from docutils.parsers.rst import Parser
from docutils.transforms import references
from docutils.utils import new_document

from pinax.pages.outline import PageHeading

from . import conf, deadline, directives
from .deadline import Deadline, Overtime
from .objects import MoveModuleTargets
from .roles import sphinx_inliner
from .state import ApiObject, State
from .writer import Writer

MAX_CHARS = 800_000  # a page with its includes (Django's largest page is 155,000)
MAX_SECTIONS = 5000  # section titles (docutils spends ~0.2 ms on each; a changelog has 900)
MAX_INDENT = 160  # columns: deeper than any real page's code inside lists inside notes
MAX_MARKERS = 24  # list markers opening one line (`- - - - x` nests a list per marker)
CACHE_CHARS = 32_000_000  # converted Markdown kept (a build reads each page twice)
_LINE_INDENT = re.compile(r"^( *)", re.M)
_MARKER_RUN = re.compile(rf"^[ \t]*(?:[-*+] +){{{MAX_MARKERS}}}", re.M)
_ADORNMENT = re.compile(r"^([=\-~^\"'`#*+<>:._])\1{2,}[ \t]*$", re.M)
_AREA_MARKS = (".git", "pyproject.toml", "setup.py", "setup.cfg")
TRANSFORMS = (
    MoveModuleTargets,
    references.Substitutions,
    references.PropagateTargets,
    references.AnonymousHyperlinks,
    references.IndirectHyperlinks,
    references.Footnotes,
    references.ExternalTargets,
    references.InternalTargets,
)
_SETTINGS = {
    "report_level": 5,
    "halt_level": 5,
    "warning_stream": False,
    "file_insertion_enabled": False,
    "raw_enabled": False,
    "_disable_config": True,
    "auto_id_prefix": "id",
    "id_prefix": "",
    "pep_references": False,
    "rfc_references": False,
    "smart_quotes": False,
    "syntax_highlight": "none",
    "doctitle_xform": False,
    "traceback": False,
    "character_level_inline_markup": False,
}


@dataclass(frozen=True)
class Converted:
    """A reST page as Markdown, with its headings, entries and API objects."""

    markdown: str
    title: str | None  # the first level-1 heading's text
    headings: tuple[PageHeading, ...]  # every heading, in order
    entries: tuple[tuple[str, int, int], ...]  # API entries: (id, start, end) in `markdown`
    symbols: tuple[ApiObject, ...]  # objects the page documents (qualified names)
    exact: bool = True  # False: the fallback read it (too big, too deep, or unparseable)


def convert(text: str, path: Path | None = None, folder: Path | None = None) -> Converted:
    """`text` (the reST of the page at `path`, a page of the docs `folder`) as Markdown.
    Without a path and folder nothing is included."""
    key = _key(text, path, folder)
    found = _cache.get(key)
    if found is not None:
        return found
    area = area_of(folder) if folder is not None and path is not None else None
    state = State(folder.resolve() if folder else None, area, MAX_CHARS - len(text))
    if len(text) > MAX_CHARS or _too_deep(text):
        converted = fallback(text)
    else:
        found = conf.settings(folder)
        state.language = found.get("highlight_language", state.language)
        state.extlinks = found.get("extlinks", {})
        try:
            with Deadline(deadline.SECONDS):
                converted = _convert(conf.wrapped(text, found), path, state)
        except Overtime:  # (may land in the deadline's exit too: caught all the same)
            return fallback(text)  # not kept: a less busy moment may read it exactly
        except (Exception, RecursionError):  # a page never fails the read
            converted = fallback(text)
    _cache.put(key, converted, state.sources)
    return converted


def _too_deep(text: str) -> bool:
    """Nested past the limits, or more section titles than `MAX_SECTIONS`."""
    deepest = max((len(m.group(1)) for m in _LINE_INDENT.finditer(text)), default=0)
    if deepest > MAX_INDENT or _MARKER_RUN.search(text) is not None:
        return True
    titles = _ADORNMENT.finditer(text)
    return next(itertools.islice(titles, MAX_SECTIONS, None), None) is not None


def _convert(text: str, path: Path | None, state: State) -> Converted:
    settings = copy.copy(_base_settings())
    source = str(path.resolve()) if path is not None else "<page>"
    document = new_document(source, settings)
    document.pinax = state
    parser = Parser(inliner=sphinx_inliner())
    flag = directives.converting()
    token = flag.set(True)
    try:
        parser.parse(text, document)
        document.transformer.add_transforms(list(TRANSFORMS))
        document.transformer.apply_transforms()
    finally:
        flag.reset(token)
    writer = Writer(document, state)
    markdown, entries = writer.write()
    headings = tuple(writer.headings)
    title = next((h[1] for h in headings if h[0] == 1), None)
    return Converted(markdown, title, headings, tuple(entries), tuple(state.objects))


def fallback(text: str) -> Converted:
    """The linear reading (linear.py): titles as headings, roles as their text, literal
    blocks fenced; no directive is otherwise interpreted."""
    from pinax.pages.headings import Document

    from .linear import fallback_markdown

    markdown = fallback_markdown(text)
    headings = tuple(PageHeading(h.level, h.title, h.anchor) for h in Document(markdown).headings)
    title = next((h[1] for h in headings if h[0] == 1), None)
    return Converted(markdown, title, headings, (), (), exact=False)


def area_of(folder: Path) -> Path:
    """Where a docs folder's includes may read: the repository it belongs to (the nearest
    folder at or above it holding `.git`, `pyproject.toml`, `setup.py` or `setup.cfg`),
    else the folder itself. Never above that repository."""
    real = Path(os.path.realpath(folder))
    for candidate in (real, *real.parents):
        if any(os.path.exists(candidate / mark) for mark in _AREA_MARKS):
            return candidate
    return real


_settings_lock = threading.Lock()
_settings_made: list = []


def _base_settings():
    with _settings_lock:
        if not _settings_made:
            settings = get_default_settings(Parser)
            for name, value in _SETTINGS.items():
                setattr(settings, name, value)
            _settings_made.append(settings)
        return _settings_made[0]


def _key(text: str, path: Path | None, folder: Path | None) -> str:
    digest = hashlib.sha256(text.encode("utf-8", "surrogatepass"))
    digest.update(f"\0{path}\0{folder}".encode("utf-8", "surrogatepass"))
    return digest.hexdigest()


class _Cache:
    """The last conversions, up to `CACHE_CHARS` of Markdown; an entry whose included files
    changed since is not used."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.items: OrderedDict[str, tuple[Converted, list[tuple[str, int, int]]]] = OrderedDict()
        self.size = 0

    def get(self, key: str) -> Converted | None:
        with self.lock:
            found = self.items.get(key)
            if found is not None:
                self.items.move_to_end(key)
        if found is None:
            return None
        converted, sources = found
        for name, size, mtime in sources:
            try:
                info = os.stat(name)
            except OSError:
                return None
            if (info.st_size, info.st_mtime_ns) != (size, mtime):
                return None
        return converted

    def put(self, key: str, converted: Converted, sources: list[tuple[str, int, int]]) -> None:
        with self.lock:
            previous = self.items.pop(key, None)
            if previous is not None:
                self.size -= len(previous[0].markdown)
            self.items[key] = (converted, list(sources))
            self.size += len(converted.markdown)
            while self.size > CACHE_CHARS and len(self.items) > 1:
                _, (old, _) = self.items.popitem(last=False)
                self.size -= len(old.markdown)


_cache = _Cache()
directives.install()

__all__ = ["ApiObject", "Converted", "area_of", "convert", "fallback", "nodes"]
