"""What a docs tool would not publish from a folder: hidden entries, `node_modules`, build
output, and what the folder's `.gitignore` files list.

The `.gitignore` matcher is a simple one: the common syntax (`*`, `?`, `[abc]`, `**`, a
leading `/` or inner `/` anchoring to the file's folder, a trailing `/` for folders only,
`!` to re-include), last match wins, each folder's `.gitignore` applying below it. Matching
is by hand, segment by segment with the one-backtrack-point wildcard walk, so no pattern
costs more than (pattern length x path length), whatever a checked-out file contains.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

ALWAYS_SKIPPED = frozenset({"node_modules", "__pycache__"})
# Output folders generators write beside their sources (Sphinx, Jekyll, MkDocs, Hugo,
# Docusaurus, mdBook...): skipped at the top of the folder, where the tools put them.
BUILD_OUTPUT = frozenset({"_build", "build", "_site", "site", "public", "dist", "out", "book"})
MAX_RULES = 500  # lines of .gitignore read, all files together
MAX_PATTERN = 500  # characters of one pattern

Token = tuple[str, str]  # ("*", "") | ("?", "") | ("=", char) | ("[", class body)
# One path segment's pattern: (kind, fixed text, tokens). The common shapes are matched by
# a string method ("eq" `docs`, "suffix" `*.log`, "prefix" `.env*`, "any" `*`), the rest
# ("glob") by the wildcard walk.
Segment = tuple[str, str, tuple[Token, ...]]


@dataclass(frozen=True)
class Rule:
    base: tuple[str, ...]  # the folder whose .gitignore holds it, as path segments
    segments: tuple[Segment | None, ...]  # None: `**`
    anchored: bool
    negated: bool
    folders_only: bool


def parse_gitignore(text: str, base: tuple[str, ...], budget: int = MAX_RULES) -> list[Rule]:
    """The rules of one `.gitignore` (at most `budget` of them)."""
    rules: list[Rule] = []
    for raw in text.splitlines():
        if len(rules) >= budget:
            break
        line = raw.rstrip()
        if raw.endswith("\\ "):
            line += " "
        if not line or line.startswith("#") or len(line) > MAX_PATTERN:
            continue
        negated = line.startswith("!")
        line = line[1:] if negated else line
        if line.startswith("\\"):
            line = line[1:]
        folders_only = line.endswith("/")
        line = line.strip("/") if folders_only else line
        anchored = "/" in line.rstrip("/")
        line = line.lstrip("/")
        if not line:
            continue
        parts = tuple(None if part == "**" else _segment(part) for part in line.split("/"))
        rules.append(Rule(base, parts, anchored, negated, folders_only))
    return rules


def ignored(rules: list[Rule], path: tuple[str, ...], is_folder: bool) -> bool:
    """Whether the last rule that matches `path` (segments from the docs folder) ignores it."""
    verdict = False
    for rule in rules:
        if rule.folders_only and not is_folder:
            continue
        if path[: len(rule.base)] != rule.base:
            continue
        rest = path[len(rule.base) :]
        if not rest:
            continue
        if rule.anchored:
            hit = _match_path(rule.segments, rest)
        else:  # a bare name matches at any depth
            hit = _match_one(rule.segments[0], rest[-1]) if rule.segments[0] else True
        if hit:
            verdict = not rule.negated
    return verdict


def _segment(pattern: str) -> Segment:
    tokens = _tokens(pattern)
    literal = all(kind == "=" for kind, _ in tokens)
    if literal:
        return "eq", "".join(char for _, char in tokens), tokens
    if tokens == (("*", ""),):
        return "any", "", tokens
    inner = tokens[1:] if tokens[0][0] == "*" else tokens[:-1] if tokens[-1][0] == "*" else ()
    if inner and all(kind == "=" for kind, _ in inner):
        kind = "suffix" if tokens[0][0] == "*" else "prefix"
        return kind, "".join(char for _, char in inner), tokens
    return "glob", "", tokens


def _match_one(segment: Segment, name: str) -> bool:
    kind, fixed, tokens = segment
    if kind == "eq":
        return name == fixed
    if kind == "suffix":
        return name.endswith(fixed)
    if kind == "prefix":
        return name.startswith(fixed)
    return kind == "any" or _match_segment(tokens, name)


def _tokens(pattern: str) -> tuple[Token, ...]:
    tokens: list[Token] = []
    i = 0
    while i < len(pattern):
        c = pattern[i]
        if c == "*":
            if not tokens or tokens[-1][0] != "*":
                tokens.append(("*", ""))
        elif c == "?":
            tokens.append(("?", ""))
        elif c == "[" and (end := pattern.find("]", i + 2)) > 0:
            tokens.append(("[", pattern[i + 1 : end]))
            i = end
        elif c == "\\" and i + 1 < len(pattern):
            i += 1
            tokens.append(("=", pattern[i]))
        else:
            tokens.append(("=", c))
        i += 1
    return tuple(tokens)


def _one(token: Token, char: str) -> bool:
    kind, value = token
    if kind == "?":
        return True
    if kind == "=":
        return value == char
    negate = value[:1] in ("!", "^")
    body = value[1:] if negate else value
    found = False
    i = 0
    while i < len(body):
        if i + 2 < len(body) and body[i + 1] == "-":
            found = found or body[i] <= char <= body[i + 2]
            i += 3
        else:
            found = found or body[i] == char
            i += 1
    return found != negate


def _match_segment(tokens: tuple[Token, ...], name: str) -> bool:
    """A name's characters against a segment's tokens, `*` the star."""
    return _wildcard(tokens, name, lambda token: token[0] == "*", _one)


def _match_path(segments: tuple[Segment | None, ...], path: tuple[str, ...]) -> bool:
    """The same walk one level up: `**` (None) is the star, a segment pattern the character."""
    return _wildcard(segments, path, lambda segment: segment is None, _match_one)  # type: ignore[arg-type]


def _wildcard(
    pattern: Sequence[Any],
    items: Sequence[Any],
    is_star: Callable[[Any], bool],
    matches: Callable[[Any, Any], bool],
) -> bool:
    """Wildcard match with one backtrack point (the last star): O(len(pattern) x len(items))."""
    t = n = 0
    star_t = star_n = -1
    while n < len(items):
        if t < len(pattern) and is_star(pattern[t]):
            star_t, star_n = t, n
            t += 1
        elif t < len(pattern) and matches(pattern[t], items[n]):
            t += 1
            n += 1
        elif star_t >= 0:
            t = star_t + 1
            star_n += 1
            n = star_n
        else:
            return False
    while t < len(pattern) and is_star(pattern[t]):
        t += 1
    return t == len(pattern)


def skipped_name(name: str, top: bool) -> bool:
    """Hidden entries, dependency and cache folders anywhere; build output at the top."""
    return name.startswith(".") or name in ALWAYS_SKIPPED or (top and name in BUILD_OUTPUT)
