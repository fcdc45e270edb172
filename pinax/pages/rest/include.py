"""`.. include::` and `.. literalinclude::`, followed only inside the conversion's area.

The area is the repository the docs folder belongs to (see `rest.area_of`): Sphinx projects
include their changelog from the repository root (`.. include:: ../CHANGES.rst`), and a docs
folder served by Pinax is read from that checkout. A path is resolved as Sphinx resolves it
(relative to the including file; `/x` from the docs folder), every symlink followed, and the
file read only when its real path lies inside the area and it is a regular file; docutils'
own standard files (`<isonum.txt>`) are allowed too. Anything else (`/etc/passwd`,
`../../..`, a device, a loop past `MAX_INCLUDES`, a file bigger than what is left of the
page's size limit) includes nothing, silently, as a page with a broken include renders.
An included `.md` file is Markdown (MyST, as Sphinx projects include their `HISTORY.md`).
"""

from __future__ import annotations

import ast
import os
from pathlib import Path

from docutils import nodes
from docutils.parsers.rst import Directive, states
from docutils.parsers.rst.directives.misc import Include as DocutilsInclude

from pinax.files import SpecialFile, read_regular

from .options import ANY
from .state import MAX_INCLUDES, markdown, state_of

STANDARD = Path(states.__file__).resolve().parent / "include"
MARKDOWN = frozenset({".md", ".markdown", ".mdx"})
LANGUAGES = {
    ".py": "python",
    ".pyi": "python",
    ".toml": "toml",
    ".json": "json",
    ".yaml": "yaml",
    ".yml": "yaml",
    ".js": "javascript",
    ".ts": "typescript",
    ".html": "html",
    ".css": "css",
    ".sh": "bash",
    ".ini": "ini",
    ".cfg": "ini",
    ".rst": "rst",
    ".c": "c",
    ".h": "c",
    ".cpp": "cpp",
    ".rs": "rust",
    ".go": "go",
    ".sql": "sql",
    ".xml": "xml",
    ".txt": "text",
}
MAX_LINE_RANGES = 1000  # pieces of a `:lines:` option read


def resolve(argument: str, document: nodes.document) -> Path | None:
    """The real path an include names, or None when it is not inside the area."""
    state = state_of(document)
    argument = argument.strip()
    if state.area is None or not argument or "\0" in argument:
        return None
    allowed = state.area
    if argument.startswith("<") and argument.endswith(">"):
        candidate, allowed = STANDARD / argument[1:-1], STANDARD
    elif argument.startswith("/"):
        if state.folder is None:
            return None
        candidate = state.folder / argument.lstrip("/")
    else:
        current = document.current_source or ""
        base = Path(current).parent if os.path.isabs(current) else state.folder
        if base is None:
            return None
        candidate = base / argument
    try:
        real = Path(os.path.realpath(candidate))
    except (OSError, ValueError):
        return None
    return real if real.is_relative_to(allowed) and real != allowed else None


def read(path: Path, document: nodes.document) -> str | None:
    """The file's text, counted against the page's include budget; None when over it or
    when the file is no regular file that can be read."""
    state = state_of(document)
    room = state.max_chars - state.chars
    if state.includes >= MAX_INCLUDES or room <= 0:
        return None
    try:
        body = read_regular(path, room, follow_links=False)
        info = path.stat()
    except (OSError, SpecialFile, ValueError):
        return None
    state.includes += 1
    text = body.decode("utf-8", errors="replace")
    state.chars += len(text)
    state.sources.append((str(path), info.st_size, info.st_mtime_ns))
    return text


def clip(text: str, options: dict) -> str:
    """`:start-line:`, `:end-line:`, `:start-after:`, `:end-before:` (a marker not found: the
    text as it is)."""
    start, end = _number(options.get("start-line")), _number(options.get("end-line"))
    if start is not None or end is not None:
        text = "\n".join(text.split("\n")[start:end])
    after, before = options.get("start-after"), options.get("end-before")
    if after and after in text:
        text = text[text.index(after) + len(after) :]
    if before and before in text:
        text = text[: text.index(before)]
    return text


def _number(value: str | None) -> int | None:
    try:
        return None if value is None else int(value)
    except ValueError:
        return None


class Include(DocutilsInclude):
    """docutils' include, reading through `resolve` and `read` only; `:parser:` never
    imports a parser (an `.md` file is Markdown, anything else reST)."""

    option_spec = ANY

    def run(self) -> list:
        document = self.state.document
        self.settings = document.settings
        self.tab_width = self.settings.tab_width
        path = resolve(self.arguments[0], document)
        text = None if path is None else read(path, document)
        if path is None or text is None:
            return []
        text = clip(text, self.options)
        self.clip_options = (None, None, "", "")  # (already clipped) for docutils' loop check
        self.options["source"] = str(path)
        if "literal" in self.options or "code" in self.options:
            language = (self.options.get("code") or "").strip() or "text"
            return [nodes.literal_block(text, text, language=language)]
        if path.suffix.lower() in MARKDOWN or "parser" in self.options:
            return [markdown(text=text)]
        self.insert_into_input_lines(text)  # docutils' own: long lines, loops refused
        return []


class LiteralInclude(Directive):
    """Sphinx's literalinclude: a file inside the area as a code block (`:lines:`,
    `:pyobject:`, `:start-after:` / `:end-before:`, `:start-at:` / `:end-at:`, `:dedent:`,
    `:language:`, else the language its suffix names)."""

    required_arguments = 1
    final_argument_whitespace = True
    has_content = False
    option_spec = ANY

    def run(self) -> list:
        document = self.state.document
        path = resolve(self.arguments[0], document)
        text = None if path is None else read(path, document)
        if path is None or text is None:
            return []
        text = select(text, self.options)
        from .directives import dedent

        text = dedent(text, self.options.get("dedent")).strip("\n")
        language = self.options.get("language") or LANGUAGES.get(path.suffix.lower(), "")
        return [nodes.literal_block(text, text, language=language)] if text.strip() else []


def select(text: str, options: dict) -> str:
    """The part of a file literalinclude's options select."""
    if options.get("pyobject"):
        text = python_object(text, options["pyobject"].strip()) or text
    for start, keep in (("start-after", False), ("start-at", True)):
        marker = options.get(start)
        if marker and marker in text:
            at = text.index(marker)
            text = text[at if keep else text.find("\n", at) + 1 :]
    for end, keep in (("end-before", False), ("end-at", True)):
        marker = options.get(end)
        if marker and marker in text:
            at = text.index(marker)
            stop = text.find("\n", at) if keep else text.rfind("\n", 0, at)
            text = text[: len(text) if stop < 0 else stop]
    if options.get("lines"):
        text = lines(text, options["lines"])
    return text


def lines(text: str, spec: str) -> str:
    """`:lines: 1,3,5-10,20-` (1-based, as Sphinx reads it)."""
    all_lines = text.split("\n")
    kept: list[str] = []
    for piece in spec.split(",")[:MAX_LINE_RANGES]:
        first, dash, last = piece.strip().partition("-")
        try:
            start = int(first) if first else 1
            stop = (int(last) if last else len(all_lines)) if dash else start
        except ValueError:
            continue
        kept.extend(all_lines[max(start - 1, 0) : stop])
    return "\n".join(kept)


def python_object(text: str, name: str) -> str | None:
    """The source of a class or function (`Class.method` too) in Python source, read with
    `ast` (parsed, never run); None when not found or not parseable."""
    try:
        tree: ast.AST = ast.parse(text)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None
    for part in name.split("."):
        found = None
        for node in getattr(tree, "body", []):
            defines = isinstance(node, ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef)
            if defines and node.name == part:
                found = node
                break
        if found is None:
            return None
        tree = found
    start = min([tree.lineno, *(d.lineno for d in getattr(tree, "decorator_list", []))])
    return "\n".join(text.split("\n")[start - 1 : tree.end_lineno])
