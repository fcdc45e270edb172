"""Manifests: a docs site's pages, loaded with clear errors and dumped deterministically.

A manifest is schema 1:
`{"pinax_manifest": 1, "name", "url", "title"?, "description"?, "ttl"?, "version"?,
"packages"?, "pages": [{"url",
"title", "section"?, "description"?, "group"?, "markdown_url"?, "lastmod"?, "outline"?,
"symbols"?}]}`.
`version` is the version of the software the docs are of, as the docs publish it (`"5.2"`,
`"v15.1.8"`, `"stable"`: kept as written, compared by `pinax.versions`); `packages` the
packages they document, as `"ecosystem:name"` strings (`"pypi:django"`, `"npm:@angular/core"`;
absent: the package of the manifest's own name; `[]`: none). A manifest's identity is
`name@version`, or `name` without a version (`identity`).
`ttl` is how many seconds a fetched page of this site stays fresh in the page cache.
`outline` is the page's headings below its title, in document order: `[{"level": 2..6,
"title", "anchor"?}]`, `anchor` being the heading's id on the page where known; at most
`MAX_HEADINGS` of them, titles and anchors at most `MAX_HEADING_LENGTH` characters.
`symbols` are the API names the site's `objects.inv` documents on the page: `[{"name",
"kind", "anchor"?}]`, `kind` one of `SYMBOL_KINDS`; at most `MAX_SYMBOLS` of them, names and
anchors at most `MAX_HEADING_LENGTH` characters.
A bad file is rejected whole, with one message naming the file, the place (`pages[12].url`) and
the problem, so an operator can fix it without reading a traceback.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, NamedTuple
from urllib.parse import unquote, urlsplit

from pinax.errors import ManifestError
from pinax.files import SpecialFile, read_regular

SCHEMA_VERSION = 1
NAME_PATTERN = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$")
# A version as docs publish one: `5.2`, `v15.1.8`, `0_13_1`, `stable`, `1.0.0-rc.1+build`.
VERSION_PATTERN = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._+\-]{0,99}$")
# `ecosystem:name`; npm names may be scoped (`@angular/core`).
_PACKAGE_PART = r"[A-Za-z0-9][A-Za-z0-9._\-]{0,213}"
PACKAGE_PATTERN = re.compile(rf"^[a-z][a-z0-9_-]{{0,31}}:@?{_PACKAGE_PART}(/{_PACKAGE_PART})?$")
MAX_PACKAGES = 100
_ANCHOR = re.compile(r"[^\s#]{1,500}")
OPTIONAL_PAGE_FIELDS = ("description", "group", "markdown_url", "lastmod")
# The longest outline seen on the shared corpora's 16,000 pages has 915 headings, the longest
# heading 155 characters: these bounds leave room for real pages and none for a runaway one.
MAX_HEADINGS = 5000
MAX_HEADING_LENGTH = 500
HEADING_LEVELS = range(2, 7)
# The most symbols one page of the inventories seen documents is about 2,000 (a big module's
# reference page): room for ten times that.
MAX_SYMBOLS = 20000
# What an inventory's roles are read as (see pinax.builder's inventory reader).
SYMBOL_KINDS = (
    "module",
    "class",
    "exception",
    "function",
    "method",
    "attribute",
    "property",
    "data",
    "type",
    "other",
)


class Heading(NamedTuple):
    """One heading of a page's outline (a tuple: a million pages have millions of them)."""

    level: int
    title: str
    anchor: str | None = None

    def to_dict(self) -> dict[str, Any]:
        data: dict[str, Any] = {"level": self.level, "title": self.title}
        if self.anchor is not None:
            data["anchor"] = self.anchor
        return data


class Symbol(NamedTuple):
    """One documented API name on a page (a tuple, like `Heading`)."""

    name: str
    kind: str
    anchor: str | None = None

    def to_dict(self) -> dict[str, Any]:
        data: dict[str, Any] = {"name": self.name, "kind": self.kind}
        if self.anchor is not None:
            data["anchor"] = self.anchor
        return data


@dataclass(frozen=True, slots=True)
class Page:
    url: str
    title: str
    section: str
    description: str | None = None
    group: str | None = None
    markdown_url: str | None = None
    lastmod: str | None = None
    outline: tuple[Heading, ...] = ()
    symbols: tuple[Symbol, ...] = ()

    @property
    def path(self) -> str:
        return urlsplit(self.url).path or "/"

    def to_dict(self) -> dict[str, Any]:
        data: dict[str, Any] = {"url": self.url, "title": self.title, "section": self.section}
        for name in OPTIONAL_PAGE_FIELDS:
            value = getattr(self, name)
            if value is not None:
                data[name] = value
        if self.outline:
            data["outline"] = [heading.to_dict() for heading in self.outline]
        if self.symbols:
            data["symbols"] = [symbol.to_dict() for symbol in self.symbols]
        return data


@dataclass(frozen=True)
class Manifest:
    name: str
    url: str
    title: str
    pages: tuple[Page, ...]
    description: str | None = None
    ttl: float | None = None
    source: str = field(default="<memory>", compare=False)
    content: str | None = None  # the content file, relative to the manifest's folder
    version: str | None = None  # as the docs publish it
    packages: tuple[str, ...] | None = None  # "ecosystem:name"; None: its own name's

    @property
    def identity(self) -> str:
        """`name@version`, or `name` without a version: what must be unique among loaded."""
        return identity(self.name, self.version)

    def to_dict(self) -> dict[str, Any]:
        data: dict[str, Any] = {
            "pinax_manifest": SCHEMA_VERSION,
            "name": self.name,
            "url": self.url,
            "title": self.title,
            "pages": [page.to_dict() for page in self.pages],
        }
        if self.description is not None:
            data["description"] = self.description
        if self.ttl is not None:
            data["ttl"] = self.ttl
        if self.content is not None:
            data["content"] = self.content
        if self.version is not None:
            data["version"] = self.version
        if self.packages is not None:
            data["packages"] = list(self.packages)
        return data


def identity(name: str, version: str | None) -> str:
    """A manifest's identity: `name@version`, or `name` without a version."""
    return f"{name}@{version}" if version else name


def parent_section(url: str) -> str:
    """The parent of a URL's path: `/learn` for `/learn/state`, `/` for a top-level page."""
    path = urlsplit(url).path.rstrip("/")
    parent = path.rsplit("/", 1)[0] if "/" in path else ""
    return parent or "/"


def slug_title(url: str) -> str:
    """A readable title from the last segment of a URL path, for pages published without one."""
    path = unquote(urlsplit(url).path).rstrip("/")
    slug = path.rsplit("/", 1)[-1] or urlsplit(url).hostname or url
    slug = re.sub(r"\.(html?|md|txt)$", "", slug)
    return re.sub(r"[-_]+", " ", slug).strip() or slug


MAX_FILE_BYTES = 2 << 30  # a manifest of a million pages is a few hundred MB


def read_bytes(path: str | Path) -> bytes:
    """A manifest file's bytes; any failure a `ManifestError` naming the file."""
    source = str(path)
    try:
        return read_regular(path, MAX_FILE_BYTES)
    except SpecialFile as exc:
        raise ManifestError(source, "", str(exc)) from None
    except FileNotFoundError:
        raise ManifestError(source, "", "no such file") from None
    except IsADirectoryError:
        raise ManifestError(source, "", "is a directory, not a manifest file") from None
    except OSError as exc:
        raise ManifestError(source, "", f"cannot read: {exc.strerror or exc}") from None


def load(path: str | Path) -> Manifest:
    """Read and validate a manifest file; raise `ManifestError` naming the file and the place."""
    return loads(read_bytes(path), str(path))


def loads(raw: bytes | str, source: str = "<memory>") -> Manifest:
    """Parse and validate manifest JSON text."""
    try:
        text = raw.decode("utf-8-sig") if isinstance(raw, bytes) else raw
    except UnicodeDecodeError as exc:
        raise ManifestError(source, f"byte {exc.start}", "not UTF-8 text") from None
    return from_dict(parse_json(text, source), source)


def parse_json(text: str, source: str) -> Any:
    """JSON text -> data, every way it can fail a `ManifestError`: bad JSON, nesting deeper
    than Python recurses, a number past Python's digit limit, a lone surrogate escape."""
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        place = f"line {exc.lineno}, column {exc.colno}"
        raise ManifestError(source, place, f"not valid JSON ({exc.msg})") from None
    except RecursionError:
        raise ManifestError(source, "", "not a manifest: JSON nested too deep") from None
    except ValueError as exc:  # an integer of more digits than Python converts
        raise ManifestError(source, "", f"not a manifest: {str(exc).split(':')[0]}") from None
    if _SURROGATE_ESCAPE.search(text):
        _refuse_lone_surrogates(data, source)
    return data


_SURROGATE_ESCAPE = re.compile(r"\\u[dD][89a-fA-F]")
_LONE_SURROGATE = re.compile("[\ud800-\udfff]")


def _refuse_lone_surrogates(data: Any, source: str) -> None:
    """A `\\ud800` escape not paired into one character is no text: say where (no recursion,
    the data may nest deep)."""
    stack: list[tuple[str, Any]] = [("", data)]
    while stack:
        place, value = stack.pop()
        if isinstance(value, dict):
            for key, item in value.items():
                stack.append((f"{place}.{key}" if place else str(key), item))
                stack.append((place, key))
        elif isinstance(value, list):
            stack.extend((f"{place}[{i}]", item) for i, item in enumerate(value))
        elif isinstance(value, str) and _LONE_SURROGATE.search(value):
            raise ManifestError(source, place, "holds a lone surrogate (\\ud800-\\udfff escape)")


def from_dict(data: Any, source: str = "<memory>") -> Manifest:
    """Validate an already-parsed manifest object."""
    if not isinstance(data, dict):
        raise ManifestError(source, "", f"expected a JSON object, found {_kind(data)}")
    version = data.get("pinax_manifest")
    if version is None:
        raise ManifestError(source, "pinax_manifest", "missing (expected 1: is this a manifest?)")
    if version != SCHEMA_VERSION or isinstance(version, bool):
        raise ManifestError(
            source, "pinax_manifest", f"unsupported version {version!r} (expected 1)"
        )
    name = _required_str(data, "name", source, "")
    if not NAME_PATTERN.match(name):
        raise ManifestError(
            source, "name", f"{name!r} is not a valid name (letters, digits, '.', '_', '-')"
        )
    url = _required_url(data, "url", source, "")
    title = _optional_str(data, "title", source, "") or name
    description = _optional_str(data, "description", source, "")
    ttl = data.get("ttl")
    if ttl is not None and not (_is_number(ttl) and 0 <= ttl < math.inf):
        raise ManifestError(source, "ttl", f"expected a number of seconds >= 0, found {ttl!r}")
    content = _optional_str(data, "content", source, "")
    if content is not None and (
        not content.strip() or content.startswith("/") or ".." in content.split("/")
    ):
        raise ManifestError(
            source, "content", f"{content[:200]!r} must be a path inside its folder"
        )
    version = optional_version(data, source)
    packages = optional_packages(data, source)
    pages_data = data.get("pages")
    if pages_data is None:
        raise ManifestError(source, "pages", "missing")
    if not isinstance(pages_data, list):
        raise ManifestError(source, "pages", f"expected a list, found {_kind(pages_data)}")
    pages = tuple(_pages(pages_data, source))
    return Manifest(
        name=name,
        url=url,
        title=title,
        pages=pages,
        description=description,
        ttl=ttl,
        source=source,
        content=content,
        version=version,
        packages=packages,
    )


def optional_version(data: dict[str, Any], source: str) -> str | None:
    """The `version` field: a version as docs publish one, or absent."""
    version = data.get("version")
    if version is None:
        return None
    if not isinstance(version, str):
        raise ManifestError(source, "version", f"expected a string, found {_kind(version)}")
    if not VERSION_PATTERN.match(version):
        raise ManifestError(
            source,
            "version",
            f"{version[:100]!r} is not a version (e.g. '5.2', 'v15.1.8', 'stable')",
        )
    return version


def optional_packages(data: dict[str, Any], source: str) -> tuple[str, ...] | None:
    """The `packages` field: `"ecosystem:name"` strings, or absent (`[]` is kept: none)."""
    packages = data.get("packages")
    if packages is None:
        return None
    if not isinstance(packages, list):
        raise ManifestError(source, "packages", f"expected a list, found {_kind(packages)}")
    if len(packages) > MAX_PACKAGES:
        raise ManifestError(source, "packages", f"more than {MAX_PACKAGES} packages")
    for i, package in enumerate(packages):
        if not isinstance(package, str):
            raise ManifestError(
                source, f"packages[{i}]", f"expected a string, found {_kind(package)}"
            )
        if not PACKAGE_PATTERN.match(package):
            raise ManifestError(
                source,
                f"packages[{i}]",
                f"{package[:100]!r} is not 'ecosystem:name' (e.g. 'pypi:django', 'npm:next')",
            )
    return tuple(packages)


def dump(manifest: Manifest) -> str:
    """Deterministic JSON: sorted keys, one page per line, so a diff shows what changed."""
    head = manifest.to_dict()
    pages = head.pop("pages")
    lines = ["{"]
    for key in sorted(head):
        lines.append(f"  {json.dumps(key)}: {json.dumps(head[key], ensure_ascii=False)},")
    if pages:
        lines.append('  "pages": [')
        rows = [f"    {json.dumps(p, ensure_ascii=False, sort_keys=True)}" for p in pages]
        lines.append(",\n".join(rows))
        lines.append("  ]")
    else:
        lines.append('  "pages": []')
    lines.append("}")
    return "\n".join(lines) + "\n"


def _pages(items: Iterable[Any], source: str) -> Iterable[Page]:
    seen: dict[str, int] = {}
    for i, item in enumerate(items):
        place = f"pages[{i}]"
        if not isinstance(item, dict):
            raise ManifestError(source, place, f"expected an object, found {_kind(item)}")
        url = _required_url(item, "url", source, place)
        if url in seen:
            raise ManifestError(source, f"{place}.url", f"duplicate of pages[{seen[url]}].url")
        seen[url] = i
        title = _required_str(item, "title", source, place, allow_empty=True).strip()
        title = title or slug_title(url)
        section = _optional_str(item, "section", source, place)
        if section is None:
            section = parent_section(url)
        elif not section.startswith("/"):
            raise ManifestError(source, f"{place}.section", f"{section!r} must start with '/'")
        optional = {name: _optional_str(item, name, source, place) for name in OPTIONAL_PAGE_FIELDS}
        if optional["markdown_url"] is not None:
            _required_url(item, "markdown_url", source, place)
        outline = outline_of(item.get("outline"), source, f"{place}.outline")
        symbols = symbols_of(item.get("symbols"), source, f"{place}.symbols")
        yield Page(
            url=url, title=title, section=section, **optional, outline=outline, symbols=symbols
        )


def outline_of(value: Any, source: str, place: str) -> tuple[Heading, ...]:
    """A page's `outline` validated (None or absent: no outline)."""
    if value is None:
        return ()
    if not isinstance(value, list):
        raise ManifestError(source, place, f"expected a list, found {_kind(value)}")
    if len(value) > MAX_HEADINGS:
        raise ManifestError(
            source, place, f"{len(value)} headings: more than a page has (at most {MAX_HEADINGS})"
        )
    return tuple(_heading(entry, source, f"{place}[{i}]") for i, entry in enumerate(value))


def symbols_of(value: Any, source: str, place: str) -> tuple[Symbol, ...]:
    """A page's `symbols` validated (None or absent: none)."""
    if value is None:
        return ()
    if not isinstance(value, list):
        raise ManifestError(source, place, f"expected a list, found {_kind(value)}")
    if len(value) > MAX_SYMBOLS:
        raise ManifestError(
            source, place, f"{len(value)} symbols: more than a page has (at most {MAX_SYMBOLS})"
        )
    return tuple(_symbol(entry, source, f"{place}[{i}]") for i, entry in enumerate(value))


def _symbol(entry: Any, source: str, place: str) -> Symbol:
    if not isinstance(entry, dict):
        raise ManifestError(source, place, f"expected an object, found {_kind(entry)}")
    name = _required_str(entry, "name", source, place).strip()
    if len(name) > MAX_HEADING_LENGTH:
        raise ManifestError(source, f"{place}.name", f"longer than {MAX_HEADING_LENGTH} characters")
    kind = _required_str(entry, "kind", source, place)
    if kind not in SYMBOL_KINDS:
        raise ManifestError(
            source, f"{place}.kind", f"{kind[:40]!r} is not one of {', '.join(SYMBOL_KINDS)}"
        )
    return Symbol(name, kind, _anchor(entry, source, place))


def _anchor(entry: dict[str, Any], source: str, place: str) -> str | None:
    anchor = _optional_str(entry, "anchor", source, place)
    if anchor is not None and not _ANCHOR.fullmatch(anchor):
        raise ManifestError(
            source,
            f"{place}.anchor",
            f"{anchor[:80]!r} is not an anchor (1 to {MAX_HEADING_LENGTH} characters, "
            "no whitespace or '#')",
        )
    return anchor


def _heading(entry: Any, source: str, place: str) -> Heading:
    if not isinstance(entry, dict):
        raise ManifestError(source, place, f"expected an object, found {_kind(entry)}")
    level = entry.get("level")
    if type(level) is not int or level not in HEADING_LEVELS:
        raise ManifestError(source, f"{place}.level", f"expected 2 to 6, found {level!r}")
    title = _required_str(entry, "title", source, place).strip()
    if len(title) > MAX_HEADING_LENGTH:
        raise ManifestError(
            source, f"{place}.title", f"longer than {MAX_HEADING_LENGTH} characters"
        )
    return Heading(level, title, _anchor(entry, source, place))


def _required_str(
    data: dict[str, Any], key: str, source: str, place: str, allow_empty: bool = False
) -> str:
    where = f"{place}.{key}" if place else key
    if key not in data:
        raise ManifestError(source, where, "missing")
    value = data[key]
    if not isinstance(value, str):
        raise ManifestError(source, where, f"expected a string, found {_kind(value)}")
    if not value.strip() and not allow_empty:
        raise ManifestError(source, where, "is empty")
    return value


def _optional_str(data: dict[str, Any], key: str, source: str, place: str) -> str | None:
    value = data.get(key)
    if value is None:
        return None
    if not isinstance(value, str):
        where = f"{place}.{key}" if place else key
        raise ManifestError(source, where, f"expected a string, found {_kind(value)}")
    return value


def _required_url(data: dict[str, Any], key: str, source: str, place: str) -> str:
    value = _required_str(data, key, source, place)
    try:
        parts = urlsplit(value)
        absolute = parts.scheme in ("http", "https") and bool(parts.hostname)
        # A docs folder's pages without a site: `file:///abs/path` (get_page reads such a
        # page only from a folder being served, never because a manifest names it).
        absolute = absolute or (
            parts.scheme == "file" and not parts.netloc and parts.path.startswith("/")
        )
    except ValueError:
        absolute = False
    if not absolute or any(c.isspace() for c in value):
        where = f"{place}.{key}" if place else key
        raise ManifestError(
            source, where, f"{value!r} is not an absolute http(s) URL (nor a file: URL)"
        )
    return value


def _is_number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def _kind(value: Any) -> str:
    return {dict: "an object", list: "a list", str: "a string", bool: "a boolean"}.get(
        type(value), "null" if value is None else "a number"
    )


def manifest_files(docs: Iterable[Path]) -> list[Path]:
    """The manifest files named by `docs`: a folder stands for the `*.json` files in it (a FIFO
    or device among them too, so that loading refuses it by name instead of skipping it). A
    file named twice (a folder and a file in it, a symlink) is listed once."""
    files: list[Path] = []
    seen: set[object] = set()
    for entry in docs:
        found = (
            sorted(p for p in entry.glob("*.json") if not p.is_dir()) if entry.is_dir() else [entry]
        )
        for path in found:
            if (key := _identity(path)) not in seen:  # the same file named twice: once
                seen.add(key)
                files.append(path)
    return files


def _identity(path: Path) -> object:
    """What makes two names one file: its device and inode (a symlink, another relative
    path, a folder and a file in it), else its resolved path."""
    try:
        stat = path.stat()
    except OSError:
        return str(path.absolute())
    return (stat.st_dev, stat.st_ino)
