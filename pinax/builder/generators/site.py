"""What one generator's configuration says about the site it builds from a folder.

Every generator module has `detect(folder) -> Site | None`: it looks for its own config in
the folder, and returns a `Site` that says which folder holds the pages (`source`), which
files there are pages (`is_page`), the URL path each page is published at (`page_path`),
the titles its navigation shows (`nav_titles`, where the generator makes them the page's title;
`nav_label` for sidebar-only labels), the docs set's name and title, the site's
URL when the config names it, and how headings get their ids (`slug_rule`). Configs are
read as data only (YAML, TOML, JSON, JS/TS literals, `ast` literals): nothing is run.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from fnmatch import fnmatchcase
from pathlib import Path
from typing import Any
from urllib.parse import quote

from pinax.files import SpecialFile, read_regular

MAX_CONFIG_BYTES = 2 * 1024 * 1024
MARKDOWN = frozenset({".md", ".mdx", ".markdown"})
_NUMBER_PREFIX = re.compile(r"^\d+[-_.\s]+(?=.)")
_NAME_JUNK = re.compile(r"[^A-Za-z0-9._-]+")


@dataclass
class Site:
    generator: str
    config: Path | None  # the config file read (None: found by its folder layout)
    source: Path  # the folder holding the pages
    name: str | None = None
    title: str | None = None
    site_url: str | None = None  # the published site, when the config names it
    nav_titles: dict[str, str] = field(default_factory=dict)  # page path -> nav title
    # Sidebar labels the generator shows only in its navigation ("Overview" for the page
    # "Editor overview"): a page keeps its own title, and is called by its label only when
    # it has none (no front matter title, no H1). Config labels first, then front matter.
    nav_labels: dict[str, str] = field(default_factory=dict)  # page path -> sidebar label
    label_keys: tuple[str, ...] = ()  # front matter keys holding the label (lower-cased)
    excluded: tuple[str, ...] = ()  # globs (path inside `source`): never pages
    suffixes: frozenset[str] = MARKDOWN
    slug_rule: str = "github"
    warnings: list[str] = field(default_factory=list)
    listed: frozenset[str] | None = None  # only these paths are pages (mdBook's SUMMARY)

    def is_page(self, path: str) -> bool:
        """Whether the file at `path` (inside `source`) is published as a page."""
        if os.path.splitext(path)[1].lower() not in self.suffixes:
            return False
        if self.listed is not None and path not in self.listed:
            return False
        return not any(glob_matches(path, pattern) for pattern in self.excluded)

    def page_path(self, path: str, meta: Mapping[str, str]) -> str:
        """The page's URL path relative to the site URL, percent-encoded."""
        return quoted(directory_url(path))

    def nav_label(self, path: str, meta: Mapping[str, str]) -> str | None:
        """The label the site's navigation shows for the page at `path`, if it names one."""
        if path in self.nav_labels:
            return self.nav_labels[path]
        for key in self.label_keys:
            label = text_of(meta.get(key))
            if label:
                return label
        return None

    def served_from(self, given: Path) -> tuple[Path, str]:
        """(the folder to read, the path of that folder inside `source` with a trailing `/`)
        for the folder the user gave: the pages' folder when the given one holds it or holds
        the config; the given folder itself when it lies inside the pages' folder (its pages
        keep their place in the site) or elsewhere (`elsewhere` says how it is published)."""
        source = self.source.resolve()
        place = self.config.parent.resolve() if self.config else source
        if given in (source, place) or inside(source, given):
            return source, ""
        if inside(given, source):
            return given, given.relative_to(source).as_posix() + "/"
        self.elsewhere(given)
        return given, ""

    def elsewhere(self, given: Path) -> None:
        """The given folder is beside the config's pages folder: its own files are the pages."""
        self.source = given

    def warn_unread(self, what: str, assumed: str) -> None:
        where = self.config.name if self.config else self.generator
        self.warnings.append(f"{where}: {what} is not a literal; assumed {assumed}")


def glob_matches(path: str, pattern: str) -> bool:
    """A glob against a path: `*` within a segment... as fnmatch does, `**/` any depth; a
    pattern without `/` matches a name at any depth."""
    pattern = pattern.lstrip("/")
    if "/" not in pattern.rstrip("/"):
        name = pattern.rstrip("/")
        parts = path.split("/")
        return any(fnmatchcase(part, name) for part in parts)
    if pattern.startswith("**/"):
        rest = pattern[3:]
        parts = path.split("/")
        return any(glob_matches("/".join(parts[i:]), rest) for i in range(len(parts)))
    if pattern.endswith("/**"):
        prefix = pattern[:-3]
        return path.startswith(prefix + "/") or fnmatchcase(path, pattern)
    return fnmatchcase(path, pattern) or fnmatchcase(path, pattern.rstrip("/") + "/*")


def stem_and_folder(path: str) -> tuple[str, str]:
    folder, _, name = path.rpartition("/")
    stem = os.path.splitext(name)[0]
    return folder, stem


def directory_url(path: str, index: frozenset[str] = frozenset({"index", "readme"})) -> str:
    """`guide/intro.md` -> `guide/intro/`, `guide/index.md` -> `guide/`."""
    folder, stem = stem_and_folder(path)
    if stem.lower() in index:
        return f"{folder}/" if folder else ""
    return f"{folder}/{stem}/" if folder else f"{stem}/"


def quoted(path: str) -> str:
    return quote(path, safe="/-._~")


def manifest_name(text: str) -> str | None:
    """A project's name as a manifest name: `Django REST framework` -> `django-rest-framework`."""
    name = _NAME_JUNK.sub("-", text.strip().lower()).strip("-._")[:64]
    return name or None


def read_text(path: Path) -> str | None:
    """A config file's text (bounded), or None when it cannot be read."""
    try:
        return read_regular(path, MAX_CONFIG_BYTES).decode("utf-8", "replace")
    except (OSError, SpecialFile):
        return None


def read_head(path: Path, size: int = 64 * 1024) -> str:
    """The first `size` bytes of a file as text ('' when it cannot be read): a page's front
    matter, without reading a big page whole."""
    from pinax.files import open_regular

    try:
        with open_regular(path, 1 << 62) as reader:
            return reader.read(size).decode("utf-8", "replace")
    except (OSError, SpecialFile):
        return ""


def read_json(path: Path) -> Any:
    text = read_text(path)
    if text is None:
        return None
    try:
        return json.loads(text)
    except (ValueError, RecursionError):
        return None


def text_of(value: Any) -> str | None:
    """A config value that is a non-empty string, else None."""
    return value.strip() if isinstance(value, str) and value.strip() else None


def config_nodes(tree: Any, limit: int = 100_000, max_depth: int = 100) -> Iterator[Any]:
    """Every node of a nested configuration value (a sidebar, a nav), in document order,
    depth first: each item of a list, and each value of a mapping that is itself a list or
    a mapping. At most `limit` nodes and `max_depth` levels: YAML aliases and JS spreads can
    make a small file a huge tree."""
    stack: list[tuple[Any, int]] = [(tree, 0)]
    while stack and limit:
        limit -= 1
        node, depth = stack.pop()
        yield node
        if depth >= max_depth:
            continue
        if isinstance(node, list):
            stack.extend((item, depth + 1) for item in reversed(node))
        elif isinstance(node, dict):
            below = [value for value in node.values() if isinstance(value, (list, dict))]
            stack.extend((value, depth + 1) for value in reversed(below))


def first_file(folder: Path, names: tuple[str, ...]) -> Path | None:
    for name in names:
        candidate = folder / name
        if candidate.is_file():
            return candidate
    return None


def strip_number_prefix(part: str) -> str:
    return _NUMBER_PREFIX.sub("", part)


def inside(child: Path, parent: Path) -> bool:
    try:
        child.resolve().relative_to(parent.resolve())
    except (ValueError, OSError):
        return False
    return True


def site_base(url: str | None, base: str | None = None) -> str | None:
    """`https://x.dev` + `/docs/` -> `https://x.dev/docs/`; None without an http(s) URL."""
    if not url or not re.match(r"https?://[^/\s]+", url):
        return None
    root = url if base is None else url.rstrip("/") + "/" + base.strip("/")
    return root.rstrip("/") + "/"
