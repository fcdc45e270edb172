"""Literal values of a JavaScript/TypeScript config file, read without running it.

Why not Node: a config is untrusted input and may run anything. Only what is written as a
literal is read: strings (template strings without `${}`), numbers, booleans, null, arrays
and objects, and names bound at the top level by `const|let|var NAME = literal` (so
`sidebar: sidebar` and `{ nav }` resolve). Anything else (a call, an expression, a spread)
is `UNKNOWN`. The file is cut into tokens in one pass, and a value is read by walking
those tokens once: linear time, nesting bounded by `MAX_DEPTH`. `read_config` follows a
config's relative imports (`import { shared } from './shared'`) to files in its own folder,
a few at most; a package import is never read.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any, NamedTuple

MAX_DEPTH = 64  # deeper literals are UNKNOWN (skipped, not recursed into)
MAX_TOKENS = 2_000_000
MAX_CONFIG_FILES = 12  # files one config may read through its relative imports
MAX_IMPORT_DEPTH = 3
_SUFFIXES = ("", ".ts", ".mts", ".js", ".mjs", ".cts", ".cjs")


class _Unknown:
    """A value the file computes: not read."""

    def __repr__(self) -> str:
        return "UNKNOWN"


UNKNOWN: Any = _Unknown()

_SIMPLE = re.compile(
    r"""(?P<space>\s+)
    |(?P<number>-?(?:0[xX][0-9a-fA-F_]+|\d[\d_]*(?:\.\d*)?(?:[eE][+-]?\d+)?|\.\d+))
    |(?P<name>[A-Za-z_$][\w$]*)
    |(?P<punct>\.\.\.|=>|[{}\[\](),:;=?.<>!+\-*/%&|^~@#])""",
    re.X,
)
_ESCAPES = {"n": "\n", "t": "\t", "r": "\r", "b": "\b", "f": "\f", "v": "\v", "0": "\0"}
_ESCAPE = re.compile(r"\\(u\{[0-9a-fA-F]{1,6}\}|u[0-9a-fA-F]{4}|x[0-9a-fA-F]{2}|.)", re.S)


class Token(NamedTuple):
    kind: str
    text: str


def tokens(source: str) -> list[Token]:
    """The file's tokens, spaces and comments left out (at most `MAX_TOKENS`). By hand
    where a regex would rescan: an unclosed comment, string or template runs to the end of
    its line (a template, of the file) once, so no input costs more than one pass."""
    found: list[Token] = []
    i, n = 0, len(source)
    while i < n and len(found) < MAX_TOKENS:
        char = source[i]
        if source.startswith("//", i):
            end = source.find("\n", i)
            i = n if end < 0 else end
        elif source.startswith("/*", i):
            end = source.find("*/", i + 2)
            i = n if end < 0 else end + 2
        elif char == "/" and _regex_may_start(found):
            end = _regex_end(source, i)
            found.append(Token("regex", source[i:end]))
            i = end
        elif char in "\"'`":
            end, closed = _closing(source, i, char)
            text = source[i:end]
            found.append(
                Token(("template" if char == "`" else "string") if closed else "other", text)
            )
            i = end
        else:
            match = _SIMPLE.match(source, i)
            if match is None:
                found.append(Token("other", char))
                i += 1
                continue
            if match.lastgroup != "space":
                found.append(Token(match.lastgroup or "other", match.group()))
            i = match.end()
    return found


_BEFORE_REGEX = frozenset("(,=:[!&|?{};+-*%<>~^")
_KEYWORDS_BEFORE_REGEX = frozenset({"return", "typeof", "case", "do", "else", "in", "of"})


def _regex_may_start(found: list[Token]) -> bool:
    """Whether a `/` here opens a regex literal (`= /x/g`, `(/x/`) rather than divides."""
    if not found:
        return True
    last = found[-1]
    if last.kind == "punct":
        return last.text in _BEFORE_REGEX or last.text == "=>"
    return last.kind == "name" and last.text in _KEYWORDS_BEFORE_REGEX


def _regex_end(source: str, start: int) -> int:
    """Just past the regex literal opened at `start` (its flags too); an unclosed one ends
    at its line's end. A `/` inside `[...]` does not close it."""
    i, n, in_class = start + 1, len(source), False
    while i < n:
        char = source[i]
        if char == "\\":
            i += 2
            continue
        if char == "\n":
            return i
        if char == "[":
            in_class = True
        elif char == "]":
            in_class = False
        elif char == "/" and not in_class:
            i += 1
            while i < n and (source[i].isalnum() or source[i] == "_"):
                i += 1  # flags
            return i
        i += 1
    return n


def _closing(source: str, start: int, quote: str) -> tuple[int, bool]:
    """Just past the string opened at `start` and True: its closing quote; else (unclosed)
    the end of the line (of the file, for a template) and False."""
    i = start + 1
    n = len(source)
    while i < n:
        char = source[i]
        if char == "\\":
            i += 2
            continue
        if char == quote:
            return i + 1, True
        if char == "\n" and quote != "`":
            return i, False
        i += 1
    return n, False


def _unescape(body: str) -> str:
    def one(match: re.Match[str]) -> str:
        code = match.group(1)
        if code.startswith("u{"):
            return chr(min(int(code[2:-1], 16), 0x10FFFF))
        if code[0] in "ux" and len(code) > 1:
            return chr(int(code[1:], 16))
        return _ESCAPES.get(code, code if code != "\n" else "")

    return _ESCAPE.sub(one, body) if "\\" in body else body


@dataclass(frozen=True)
class Module:
    """What a config file says in literals: its top-level bindings and its export."""

    bindings: dict[str, Any]
    export: Any  # the exported config object (UNKNOWN when not a literal)


class _Reader:
    def __init__(self, toks: list[Token]) -> None:
        self.toks = toks
        self.i = 0
        self.bindings: dict[str, Any] = {}

    def peek(self, offset: int = 0) -> Token | None:
        j = self.i + offset
        return self.toks[j] if j < len(self.toks) else None

    def skip_expression(self) -> None:
        """Past one expression: to the next `,` `;` or closing bracket at this depth."""
        depth = 0
        while self.i < len(self.toks):
            text = self.toks[self.i].text
            kind = self.toks[self.i].kind
            if kind == "punct":
                if text in "([{":
                    depth += 1
                elif text in ")]}":
                    if depth == 0:
                        return
                    depth -= 1
                elif text in ",;" and depth == 0:
                    return
            elif depth == 0 and kind == "name" and text in _STATEMENTS:
                return  # no semicolons: the next statement starts here
            self.i += 1

    def value(self, depth: int = 0) -> Any:
        token = self.peek()
        if token is None:
            return UNKNOWN
        if depth > MAX_DEPTH:
            self.skip_expression()
            return UNKNOWN
        start = self.i
        result = self._atom(token, depth)
        nxt = self.peek()
        # `x as const`, `x satisfies T`: the literal stays what it is
        while nxt is not None and nxt.kind == "name" and nxt.text in ("as", "satisfies"):
            self.i += 1
            self.skip_type()
            nxt = self.peek()
        ends = nxt is None or (nxt.kind == "punct" and nxt.text in ",;)]}")
        if not ends and not (nxt.kind == "name" and nxt.text in _STATEMENTS):
            self.i = start
            self.skip_expression()  # an expression: `a + b`, `x ? y : z`, `f(...)`
            return UNKNOWN
        return result

    def skip_type(self) -> None:
        depth = 0
        while self.i < len(self.toks):
            text = self.toks[self.i].text
            if text in "([{<":
                depth += 1
            elif text in ")]}>":
                if depth == 0:
                    return
                depth -= 1
            elif text in ",;=" and depth == 0:
                return
            self.i += 1

    def _atom(self, token: Token, depth: int) -> Any:
        kind, text = token.kind, token.text
        if kind == "string":
            self.i += 1
            return _unescape(text[1:-1])
        if kind == "template":
            self.i += 1
            return UNKNOWN if "${" in text else _unescape(text[1:-1])
        if kind == "number":
            self.i += 1
            try:
                number = (
                    float(text.replace("_", "")) if "." in text or "e" in text.lower() else None
                )
                return number if number is not None else int(text.replace("_", ""), 0)
            except ValueError:
                return UNKNOWN
        if kind == "name":
            self.i += 1
            if text in ("true", "false"):
                return text == "true"
            if text in ("null", "undefined"):
                return None
            nxt = self.peek()
            if nxt is not None and nxt.text == "<":
                self.i += 1  # `defineConfigWithTheme<ThemeConfig>(`: type arguments
                self.skip_type()
                if (closer := self.peek()) is not None and closer.text == ">":
                    self.i += 1
                nxt = self.peek()
            if nxt is not None and nxt.text == "(":
                return self._call_argument(depth)
            return self.bindings.get(text, UNKNOWN)
        if text == "{":
            return self._object(depth)
        if text == "[":
            return self._array(depth)
        self.skip_expression()
        return UNKNOWN

    def _call_argument(self, depth: int) -> Any:
        """`defineConfig({...})`, `extendConfig(config)`: a call whose first argument is a
        literal object stands for that object (config helpers return it, completed)."""
        self.i += 1  # (
        found = self.value(depth + 1)
        self._close(")")
        return found if isinstance(found, dict) else UNKNOWN

    def _close(self, closer: str) -> None:
        depth = 0
        while self.i < len(self.toks):
            text = self.toks[self.i].text
            self.i += 1
            if self.toks[self.i - 1].kind != "punct":
                continue
            if text in "([{":
                depth += 1
            elif text in ")]}":
                if depth == 0:
                    return
                depth -= 1

    def _array(self, depth: int) -> Any:
        self.i += 1
        items: list[Any] = []
        while (token := self.peek()) is not None:
            if token.text == "]":
                self.i += 1
                return items
            if token.text == ",":
                self.i += 1
                continue
            if token.text == "...":
                self.i += 1
                spread = self.value(depth + 1)
                if isinstance(spread, list):
                    items.extend(spread)
                continue
            items.append(self.value(depth + 1))
            if (after := self.peek()) is not None and after.text not in ",]":
                self._close("]")
                return items
        return items

    def _object(self, depth: int) -> Any:
        self.i += 1
        found: dict[str, Any] = {}
        while (token := self.peek()) is not None:
            if token.text == "}":
                self.i += 1
                return found
            if token.text == ",":
                self.i += 1
                continue
            if token.text == "...":
                self.i += 1
                spread = self.value(depth + 1)
                if isinstance(spread, dict):
                    found.update(spread)
                continue
            key = self._key(token)
            if key is None:
                self.skip_expression()
                continue
            nxt = self.peek()
            if nxt is not None and nxt.text == ":":
                self.i += 1
                found[key] = self.value(depth + 1)
            elif nxt is not None and nxt.text in ",}":
                found[key] = self.bindings.get(key, UNKNOWN)  # shorthand `{ nav }`
            else:
                self.skip_expression()  # a method `key() {...}`, a getter
                if (after := self.peek()) is not None and after.text == "{":
                    self._skip_block()
        return found

    def _skip_block(self) -> None:
        self.i += 1
        self._close("}")

    def _key(self, token: Token) -> str | None:
        if token.kind in ("name", "number"):
            self.i += 1
            return token.text
        if token.kind == "string":
            self.i += 1
            return _unescape(token.text[1:-1])
        return None


_STATEMENTS = frozenset({"const", "let", "var", "export", "import", "function", "module"})
_CONFIG_CALLS = frozenset(
    {"defineConfig", "defineConfigWithTheme", "defineUserConfig", "withMermaid", "defineDocs"}
)


def read_module(source: str, imported: dict[str, Any] | None = None) -> Module:
    """The top-level literal bindings and the default export (or `module.exports`);
    `imported`: the values of names the file imports (see `read_config`)."""
    return _read(_Reader(tokens(source)), imported)


def read_config(path: Path, limit: int = MAX_CONFIG_FILES) -> Module:
    """A config file's literals, with the names it imports from the files beside it (or
    below: `./shared`, `./config/en`) read the same way, a few files at most: a config split
    over files (`...sharedConfig`) is still read, and nothing outside its folder is."""
    return _config(path.resolve(), path.resolve().parent, [limit], 0)


def _config(path: Path, root: Path, budget: list[int], depth: int) -> Module:
    from .site import read_text

    budget[0] -= 1
    reader = _Reader(tokens(read_text(path) or ""))
    imported: dict[str, Any] = {}
    for local, source, name in _imports(reader.toks):
        target = _resolve(path.parent, source, root)
        if target is None or budget[0] <= 0 or depth >= MAX_IMPORT_DEPTH:
            continue
        module = _config(target, root, budget, depth + 1)
        imported[local] = module.export if name == "default" else module.bindings.get(name, UNKNOWN)
    return _read(reader, imported)


def _resolve(folder: Path, source: str, root: Path) -> Path | None:
    """`./shared` as a file inside `root` (`shared.ts`, `shared/index.ts`...), or None."""
    if not source.startswith("./") and not source.startswith("../"):
        return None  # a package: never read
    base = (folder / source).resolve()
    candidates = [base.with_name(base.name + s) for s in _SUFFIXES]
    candidates += [base / f"index{s}" for s in _SUFFIXES[1:]]
    for candidate in candidates:
        if candidate.is_file() and candidate.is_relative_to(root):
            return candidate
    return None


def _imports(toks: list[Token]) -> list[tuple[str, str, str]]:
    """(local name, module, imported name) of each `import {a, b as c} from './m'` and
    `import d from './m'` at the top of the file."""
    found: list[tuple[str, str, str]] = []
    for i, token in enumerate(toks):
        if token.kind != "name" or token.text != "import":
            continue
        names: list[tuple[str, str]] = []
        j = i + 1
        if j < len(toks) and toks[j].kind == "name" and toks[j].text not in ("type", "from"):
            names.append((toks[j].text, "default"))
            j += 1
            if j < len(toks) and toks[j].text == ",":
                j += 1
        if j < len(toks) and toks[j].text == "type":
            continue  # `import type {...}`: types only
        if j < len(toks) and toks[j].text == "{":
            j += 1
            while j < len(toks) and toks[j].text != "}" and j - i < 200:
                if toks[j].kind == "name" and toks[j].text != "type":
                    name = toks[j].text
                    if j + 2 < len(toks) and toks[j + 1].text == "as":
                        names.append((toks[j + 2].text, name))
                        j += 3
                        continue
                    names.append((name, name))
                j += 1
            j += 1
        if j + 1 < len(toks) and toks[j].text == "from" and toks[j + 1].kind == "string":
            source = _unescape(toks[j + 1].text[1:-1])
            found.extend((local, source, name) for local, name in names)
    return found


def _read(reader: _Reader, imported: dict[str, Any] | None) -> Module:
    reader.bindings.update(imported or {})
    toks = reader.toks
    export: Any = UNKNOWN
    depth = 0
    while reader.i < len(toks):
        token = toks[reader.i]
        if token.kind == "punct" and token.text in "([{":
            depth += 1
        elif token.kind == "punct" and token.text in ")]}":
            depth = max(0, depth - 1)
        if depth == 0 and token.kind == "name":
            nxt, third = reader.peek(1), reader.peek(2)
            if token.text in ("const", "let", "var") and nxt and nxt.kind == "name":
                reader.i += 2
                if (after := reader.peek()) is not None and after.text == ":":
                    reader.i += 1
                    reader.skip_type()
                if (eq := reader.peek()) is not None and eq.text == "=":
                    reader.i += 1
                    reader.bindings[nxt.text] = reader.value()
                continue
            if token.text == "export" and nxt and nxt.text == "default":
                reader.i += 2
                export = reader.value()
                continue
            eq = reader.peek(3)
            words = (token.text, nxt and nxt.text, third and third.text, eq and eq.text)
            if words == ("module", ".", "exports", "="):
                reader.i += 4
                export = reader.value()
                continue
        reader.i += 1
    if export is UNKNOWN:
        export = _first_config_call(reader)  # `export default ({ mode }) => defineConfig(...)`
    return Module(reader.bindings, export)


def _first_config_call(reader: _Reader, tries: int = 8) -> Any:
    """The argument of the first `defineConfig(...)`-like call anywhere in the file (of the
    first `tries` such calls: each read may run to the file's end)."""
    calls = (i for i, t in enumerate(reader.toks) if t.kind == "name" and t.text in _CONFIG_CALLS)
    for i, _ in zip(calls, range(tries), strict=False):
        reader.i = i
        found = reader.value()
        if isinstance(found, dict):
            return found
    return UNKNOWN
