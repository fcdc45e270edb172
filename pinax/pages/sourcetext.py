"""Documentation sources as an author wrote them: front matter, Markdown, and reST as
Markdown (through pinax.pages.rest; `rst_to_markdown` here is its linear fallback).

Why here: the builder (a docs folder's titles, outlines and symbols) and get_page (a folder
page read from disk) must agree on what a source's text is, or a heading the manifest names
would not open on the page. The passes here are linear, line by line, with no regex that can
backtrack.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

MAX_FRONT_MATTER = 64 * 1024  # characters: front matter is a few lines of metadata
_RST_ADORNMENT = frozenset("!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~")
_RST_TARGET = re.compile(r"\.\. _([^:`]{1,200}):\s*$")
_ID_JUNK = re.compile(r"[^a-z0-9]+")
_RST_ROLE = re.compile(r":[A-Za-z0-9_.+-]{1,40}(?::[A-Za-z0-9_.+-]{1,40})?:`([^`\n]{1,300})`")
_RST_LITERAL = re.compile(r"``([^`\n]{1,300})``")
_MDX_IMPORT = re.compile(r"import\s[^\n]{0,500}?\sfrom\s+[\"'][^\"'\n]{1,300}[\"'];?\s*$")


def split_front_matter(text: str) -> tuple[dict[str, str], str]:
    """(front matter's top-level `key: value` pairs, the text without it). YAML between
    `---` lines or TOML between `+++` lines (Hugo), at the very start; anything else has none.
    Only plain scalar values are kept: a title, a description, a slug, a draft flag."""
    body = text[1:] if text.startswith("\ufeff") else text
    fence = body[:3]
    if fence not in ("---", "+++") or body[3:4] not in ("\n", "\r"):
        return {}, text
    start = body.index("\n") + 1
    closers = ("---", "...") if fence == "---" else ("+++",)
    position = start
    while position < min(len(body), MAX_FRONT_MATTER):
        end = body.find("\n", position)
        line = body[position : len(body) if end < 0 else end].rstrip("\r")
        if line.rstrip() in closers:
            meta = _pairs(body[start:position], "=" if fence == "+++" else ":")
            return meta, body[len(body) if end < 0 else end + 1 :]
        if end < 0:
            break
        position = end + 1
    return {}, text  # never closed: not front matter


def _pairs(block: str, separator: str) -> dict[str, str]:
    found: dict[str, str] = {}
    for line in block.splitlines():
        if not line or line[0] in " \t#-[":  # nested, comments, lists, TOML tables
            continue
        key, sep, value = line.partition(separator)
        key = key.strip()
        if not sep or not key.replace("_", "").replace("-", "").isalnum():
            continue
        value = value.strip()
        if len(value) >= 2 and value[0] == value[-1] and value[0] in "\"'":
            value = value[1:-1]
        elif value.startswith(("|", ">", "[", "{")):
            continue  # a block or a collection, not a plain value
        if value:
            found.setdefault(key.lower(), value)
    return found


RST_SUFFIXES = frozenset({".rst", ".txt"})  # a `.txt` source is reST (Sphinx's own sources)


@dataclass(frozen=True)
class SourcePage:
    """A source file as its page: front matter, Markdown and, for reST (read by docutils in
    pinax.pages.rest), its headings with their anchors, its API entries and symbols."""

    meta: dict[str, str]
    markdown: str
    title: str | None = None  # reST: the document's title
    headings: tuple[tuple[int, str, str | None], ...] | None = None  # reST: every heading
    entries: tuple[tuple[str, int, int], ...] = ()  # reST: API entries' spans in `markdown`
    symbols: tuple[Any, ...] = ()  # reST: pinax.pages.rest.ApiObject (name, kind, anchor)


def source_page(
    body: bytes, suffix: str, path: Path | None = None, folder: Path | None = None
) -> SourcePage:
    """A Markdown or reST source (`suffix`: its lower-case file ending) as its page: what
    the builder's outline, symbols and page text and get_page all read. `path` and `folder`
    (the file, and the docs folder it belongs to) let reST include other files."""
    meta, text = split_front_matter(body.decode("utf-8", errors="replace"))
    if suffix not in RST_SUFFIXES:
        return SourcePage(meta, drop_mdx_imports(text))
    from pinax.pages.rest import convert

    page = convert(text, path, folder)
    return SourcePage(meta, page.markdown, page.title, page.headings, page.entries, page.symbols)


def source_markdown(body: bytes, suffix: str) -> tuple[dict[str, str], str]:
    """(front matter, the text as Markdown) of a Markdown or reST source (see
    `source_page`)."""
    page = source_page(body, suffix)
    return page.meta, page.markdown


def drop_mdx_imports(text: str) -> str:
    """MDX (Docusaurus reads `.md` as MDX too) without the ESM `import ... from "..."` lines
    that open it: code for the page's renderer, not text its readers see. Only the leading
    block: an `import` further down is most likely in a code example."""
    lines = text.split("\n")
    kept = 0
    while kept < len(lines) and (not lines[kept].strip() or _MDX_IMPORT.match(lines[kept])):
        kept += 1
    if not any(_MDX_IMPORT.match(line) for line in lines[:kept]):
        return text
    return "\n".join(lines[kept:])


def rst_to_markdown(text: str) -> str:
    """The linear reading of reST (pinax.pages.rest's fallback for a page too big or too
    deep for docutils): section titles written as ATX headings (`## Title`), levels
    in the order their adornment styles first appear, as docutils assigns them; a
    `.. _label:` target just above a title becomes its `{#label}`. The rest is left as is:
    reST prose reads well as it is."""
    lines = text.split("\n")
    styles: list[tuple[str, bool]] = []
    out: list[str] = []
    i = 0
    while i < len(lines):
        found = _rst_title(lines, i)
        if found is None:
            out.append(lines[i])
            i += 1
            continue
        title, style, used = found
        if style not in styles:
            styles.append(style)
        level = min(styles.index(style) + 1, 6)
        label = _pending_target(out)  # the target line becomes the heading's {#id}
        suffix = f" {{#{label}}}" if label else ""
        out.append(f"{'#' * level} {_rst_inline(title)}{suffix}")
        i += used
    return "\n".join(out)


def _rst_title(lines: list[str], i: int) -> tuple[str, tuple[str, bool], int] | None:
    """(title, (adornment char, overlined), lines used) for a section title at line i."""
    line = lines[i].rstrip()
    if _is_adornment(line) and i + 2 < len(lines):  # overline, title, underline
        title = lines[i + 1].strip()
        under = lines[i + 2].rstrip()
        if title and under == line and len(line) >= len(title) and not _is_adornment(title):
            return title, (line[0], True), 3
        return None
    if not line.strip() or line[0] in " \t" or i + 1 >= len(lines):
        return None
    under = lines[i + 1].rstrip()
    if _is_adornment(under) and len(under) >= len(line.strip()) and not _is_adornment(line):
        if i > 0 and lines[i - 1].strip() and not _RST_TARGET.match(lines[i - 1].strip()):
            return None  # the last line of a paragraph over a transition, not a title
        return line.strip(), (under[0], False), 2
    return None


def _rst_inline(title: str) -> str:
    """A section title's inline markup as Sphinx shows it: a role (`:mod:`!json``) as code
    with its text only, a ``literal`` as code, `---` as an em dash."""
    title = _RST_ROLE.sub(lambda m: f"`{_role_text(m.group(1))}`", title)
    title = _RST_LITERAL.sub(r"`\1`", title)
    return title.replace(" --- ", " \u2014 ").replace(" -- ", " \u2013 ")


def _role_text(text: str) -> str:
    text = text.lstrip("!~")
    if text.endswith(">") and " <" in text:  # :ref:`the text <target>`
        text = text[: text.rindex(" <")]
    return text


def _is_adornment(line: str) -> bool:
    return len(line) >= 3 and line[0] in _RST_ADORNMENT and line == line[0] * len(line)


def _pending_target(out: list[str]) -> str | None:
    """The label of a `.. _label:` line just before a title (blank lines between allowed),
    taken out of `out` with the blanks after it."""
    for back in range(1, min(len(out), 3) + 1):
        line = out[-back].strip()
        if not line:
            continue
        match = _RST_TARGET.match(line)
        if match is None:
            return None
        del out[-back:]
        return rst_id(match.group(1))
    return None


def rst_id(text: str) -> str:
    """The id docutils gives a section or a target: lower case, runs of anything but
    letters and digits as one '-'."""
    return _ID_JUNK.sub("-", text.lower()).strip("-")
