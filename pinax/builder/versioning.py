"""The version (and name) docs state of themselves, so a build labels its manifest by it.

Where a source states it, in order: a docs folder's own `package.json` or `pyproject.toml`
(`[project]`), in the folder or the one above it (the package the docs ship with); a Sphinx
`conf.py` there (`project`, `version`/`release` as literal assignments, read with `ast`:
never executed); an `objects.inv` header (`# Project:` / `# Version:`); a versioned URL
(Read the Docs `/<lang>/<version>/`, docs.python.org `/3.11/`, docs.djangoproject.com
`/en/5.2/`). Every file is size-limited; one that cannot be read states nothing.
"""

from __future__ import annotations

import ast
import json
import re
import tomllib
from dataclasses import dataclass, replace
from pathlib import Path
from urllib.parse import urlsplit

from pinax.errors import InvalidArgs
from pinax.files import SpecialFile, read_regular
from pinax.manifest import NAME_PATTERN, PACKAGE_PATTERN, VERSION_PATTERN, Manifest

MAX_STATING_BYTES = 1 << 20  # a conf.py or package.json is a few KB
_LANGUAGE_VERSION = re.compile(r"^/([a-z]{2}(?:[-_][a-zA-Z]{2,4})?)/([^/]+)/")
_NUMBERED_FIRST = re.compile(r"^/(v?\d+(?:\.\d+)*)/")
_NUMBERED = re.compile(r"^v?\d+(?:\.\d+)*$")
_RTD_LABELS = {"stable", "latest"}


@dataclass(frozen=True)
class Stated:
    """What a source says of itself: a name, a version, and where it said so."""

    name: str | None
    version: str | None
    where: str


def stated_by_folder(folder: Path) -> Stated | None:
    """The name and version a docs folder's package or Sphinx configuration states."""
    for place in (folder, folder.parent):
        for read in (_package_json, _pyproject, _sphinx_conf):
            found = read(place)
            if found is not None and found.version:
                return found
    return None


def stated_by_inventory(path: Path) -> Stated | None:
    """The `# Project:` and `# Version:` header lines of an objects.inv file."""
    try:
        with path.open("rb") as file:
            data = file.read(4096)
    except OSError:
        return None
    where = str(path)
    lines = data.split(b"\n", 3)
    if len(lines) < 3 or not lines[0].startswith(b"# Sphinx inventory"):
        return None
    project = _header(lines[1], b"# Project:")
    version = _header(lines[2], b"# Version:")
    return Stated(project, version, f"the objects.inv header of {where}") if version else None


def stated_by_url(url: str) -> Stated | None:
    """A version in a docs URL's first path segments: `/en/5.2/`, `/3.11/`, `/en/stable/`."""
    try:
        parts = urlsplit(url)
    except ValueError:
        return None
    path = parts.path if parts.path.endswith("/") else parts.path + "/"
    found = _LANGUAGE_VERSION.match(path)
    if found and (_NUMBERED.match(found[2]) or found[2] in _RTD_LABELS):
        return Stated(None, found[2], f"the URL {url}")
    found = _NUMBERED_FIRST.match(path)
    if found and "." in found[1]:
        return Stated(None, found[1], f"the URL {url}")
    return None


def labelled(
    manifest: Manifest,
    stated: Stated | None,
    version: str | None = None,
    packages: list[str] | None = None,
    name_given: bool = False,
) -> tuple[Manifest, str | None]:
    """The manifest with its version (given, else stated) and packages; named after the
    package stated when no name was given. Also what to tell the user, if anything."""
    note = None
    if version is None and stated is not None and stated.version:
        version = stated.version
        note = f"version {version} from {stated.where}"
    if version is not None and not VERSION_PATTERN.match(version):
        raise InvalidArgs(f"--version {version[:60]!r} is not a version (e.g. '5.2', 'v15.1.8')")
    for package in packages or ():
        if not PACKAGE_PATTERN.match(package):
            raise InvalidArgs(f"--package {package[:60]!r} is not 'ecosystem:name' ('pypi:django')")
    name = manifest.name
    if not name_given and stated is not None and stated.name:
        candidate = _as_name(stated.name)
        if candidate and candidate != name:
            name = candidate
            note = f"{note}; " if note else ""
            note += f"named {name} after the package {stated.where} documents"
    return (
        replace(
            manifest,
            name=name,
            version=version,
            packages=tuple(packages) if packages is not None else manifest.packages,
        ),
        note,
    )


def _as_name(text: str) -> str | None:
    """A project's name as a manifest name (`Django` -> `django`, `@scope/pkg` -> `pkg`)."""
    name = re.sub(r"[^a-z0-9._-]+", "-", text.rsplit("/", 1)[-1].lower()).strip("-._")
    return name if NAME_PATTERN.match(name) else None


def _read(path: Path) -> bytes | None:
    try:
        return read_regular(path, MAX_STATING_BYTES)
    except (OSError, SpecialFile):
        return None


def _package_json(folder: Path) -> Stated | None:
    raw = _read(folder / "package.json")
    if raw is None:
        return None
    try:
        data = json.loads(raw)
    except (ValueError, RecursionError):
        return None
    if not isinstance(data, dict):
        return None
    name, version = data.get("name"), data.get("version")
    return _stated(name, version, str(folder / "package.json"))


def _pyproject(folder: Path) -> Stated | None:
    raw = _read(folder / "pyproject.toml")
    if raw is None:
        return None
    try:
        data = tomllib.loads(raw.decode("utf-8"))
    except (ValueError, RecursionError):
        return None
    project = data.get("project")
    if not isinstance(project, dict):
        return None
    where = f"{folder / 'pyproject.toml'} [project]"
    return _stated(project.get("name"), project.get("version"), where)


def _sphinx_conf(folder: Path) -> Stated | None:
    """`project` and `version` (else `release`) of a conf.py, where assigned a string literal."""
    raw = _read(folder / "conf.py")
    if raw is None:
        return None
    try:
        tree = ast.parse(raw, str(folder / "conf.py"))
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None
    literals: dict[str, str] = {}
    for node in tree.body:  # top-level assignments only: nothing is run
        if isinstance(node, ast.Assign) and len(node.targets) == 1:
            target, value = node.targets[0], node.value
            if (
                isinstance(target, ast.Name)
                and isinstance(value, ast.Constant)
                and isinstance(value.value, str)
            ):
                literals.setdefault(target.id, value.value)
    version = literals.get("version") or literals.get("release")
    return _stated(literals.get("project"), version, f"{folder / 'conf.py'}")


def _stated(name: object, version: object, where: str) -> Stated | None:
    name = name.strip() if isinstance(name, str) and name.strip() else None
    if not isinstance(version, str) or not VERSION_PATTERN.match(version.strip()):
        return Stated(name, None, where) if name else None
    return Stated(name, version.strip(), where)


def _header(line: bytes, prefix: bytes) -> str | None:
    if not line.startswith(prefix):
        return None
    text = line[len(prefix) :].decode("utf-8", "replace").strip()
    return text or None
