"""What a Python project depends on: its venv, its lockfiles, its `pyproject.toml`.

Installed: `.venv/` or `venv/`, each `*.dist-info/METADATA`'s `Name` and `Version` (the folder's
name when METADATA is missing). Locked: `uv.lock`, `poetry.lock`, `pylock.toml` (PEP 751),
`Pipfile.lock`, `requirements*.txt` and a `Pipfile` (an `==` pin is locked; another specifier
is declared; a Pipfile's `"*"` any version). Declared: `pyproject.toml`'s `[project]`
dependencies, optional dependencies and `[dependency-groups]`, and Poetry's
`[tool.poetry.dependencies]` and groups (Poetry's `^` and `~` read as npm's, which they equal).
"""

from __future__ import annotations

import re
import tomllib
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

from packaging.requirements import InvalidRequirement, Requirement

from pinax.project.reading import Reading, is_folder
from pinax.project.records import Dependency, mention
from pinax.versions import VersionRange, parse_range

VENVS = (".venv", "venv")
METADATA_HEAD_BYTES = 64 * 1024  # Name and Version lead the header; the description can be MBs
_DIST_INFO = re.compile(r"(.+?)-([^-]+)\.dist-info")
_OPTION = re.compile(r"\s--?[A-Za-z]")
_TABLE_HEADER = re.compile(r"\[\[?[A-Za-z0-9_.\-\" ]+\]\]?\s*(?:#.*)?$")
_PACKAGE_KEYS = ("name =", "name=", "version =", "version=", "source =", "source=")


def installed(reading: Reading, root: Path) -> Iterator[Dependency]:
    """Each distribution installed in the project's venv."""
    for venv in VENVS:
        for site in _site_packages(reading, root / venv):
            for entry in reading.entries(site):
                if entry.name.endswith(".dist-info") and is_folder(entry):
                    found = _distribution(reading, Path(entry.path))
                    if found:
                        yield found


def _site_packages(reading: Reading, venv: Path) -> Iterator[Path]:
    for lib in ("lib", "Lib"):
        if lib == "Lib":  # Windows keeps site-packages right under Lib
            if (venv / lib / "site-packages").is_dir():
                yield venv / lib / "site-packages"
            continue
        for entry in reading.entries(venv / lib):
            if entry.name.startswith(("python", "pypy")) and is_folder(entry):
                yield Path(entry.path) / "site-packages"


def _distribution(reading: Reading, folder: Path) -> Dependency | None:
    source = reading.shown(folder / "METADATA")
    head = reading.head(folder / "METADATA", METADATA_HEAD_BYTES)
    fields: dict[str, str] = {}
    if head is not None:
        text = head.decode("utf-8", "replace")
        for line in text.splitlines():
            if not line.strip():
                break
            key, _, value = line.partition(":")
            if key in ("Name", "Version") and key not in fields:
                fields[key] = value.strip()
    if "Name" not in fields or "Version" not in fields:
        named = _DIST_INFO.fullmatch(folder.name)
        if not named:
            return None
        fields = {"Name": named[1], "Version": named[2]}
        source = reading.shown(folder)
    return mention("pypi", fields["Name"], source, "installed", fields["Version"])


def uv_lock(reading: Reading, root: Path) -> Iterator[Dependency]:
    yield from _toml_packages(reading, root / "uv.lock", "package", _uv_local)


def poetry_lock(reading: Reading, root: Path) -> Iterator[Dependency]:
    yield from _toml_packages(reading, root / "poetry.lock", "package", lambda _: False)


def pylock(reading: Reading, root: Path) -> Iterator[Dependency]:
    yield from _toml_packages(reading, root / "pylock.toml", "packages", lambda _: False)


def pipfile_lock(reading: Reading, root: Path) -> Iterator[Dependency]:
    yield from _pipfile_lock(reading, root / "Pipfile.lock")


def pipfile(reading: Reading, root: Path) -> Iterator[Dependency]:
    """A `Pipfile`'s `[packages]` and `[dev-packages]` (TOML): `"==4.2.30"` pins the version,
    `"*"` asks for any, another specifier is a range; a table's `version` likewise, and a
    table without one (a path, a git URL) names no version docs are published for."""
    path = root / "Pipfile"
    document = reading.toml(path)
    if not document:
        return
    source = reading.shown(path)
    for section in ("packages", "dev-packages"):
        for name, spec in _table(document.get(section)).items():
            if isinstance(spec, dict):
                spec = spec.get("version")
            if not isinstance(spec, str) or not isinstance(name, str):
                continue
            spec = spec.strip()
            if spec == "*" or not spec:
                found = mention("pypi", name, source, "declared")
            else:
                found = _requirement(name + spec, source, "locked")
            if found:
                yield found


def requirements(reading: Reading, root: Path) -> Iterator[Dependency]:
    """Each `requirements*.txt`: `==` pins locked, other specifiers declared."""
    for path in _requirements_files(reading, root):
        yield from _requirements(reading, path)


def declared(reading: Reading, root: Path) -> Iterator[Dependency]:
    """Each range the project's `pyproject.toml` asks for."""
    path = root / "pyproject.toml"
    document = reading.toml(path)
    if not document:
        return
    source = reading.shown(path)
    project = _table(document.get("project"))
    strings = list(_strings(project.get("dependencies")))
    for extra in _table(project.get("optional-dependencies")).values():
        strings.extend(_strings(extra))
    for group in _table(document.get("dependency-groups")).values():
        strings.extend(_strings(group))
    for text in strings:
        found = _requirement(text, source, "declared")
        if found:
            yield found
    poetry = _table(_table(document.get("tool")).get("poetry"))
    tables = [poetry.get("dependencies"), poetry.get("dev-dependencies")]
    tables += [_table(g).get("dependencies") for g in _table(poetry.get("group")).values()]
    for table in tables:
        for name, spec in _table(table).items():
            found = mention("pypi", name, source, "declared")
            if found and name.lower() != "python":
                yield poetry_range(found, spec)


# Each reader of one kind of file, in reading order: installed, then locked, then declared.
READERS = (installed, uv_lock, poetry_lock, pylock, pipfile_lock, requirements, pipfile, declared)


def poetry_range(found: Dependency, spec: Any) -> Dependency:
    """A Poetry dependency with its constraint (`"^1.2"`, `{version = "~1.2"}`) as a range."""
    if isinstance(spec, dict):
        spec = spec.get("version")
    wanted = poetry_constraint(spec) if isinstance(spec, str) else None
    return Dependency(found.package, None, wanted, found.source, found.how)


def poetry_constraint(text: str) -> VersionRange | None:
    """Poetry's constraint syntax: `^` and `~` as npm reads them, a bare version (`"4.2"`,
    `"4.2.*"`) as `==`, `||` between alternatives, the rest PEP 440."""
    intervals = []
    for part in text.split("||"):
        part = part.strip()
        if not part:
            return None
        if part == "*":
            found = parse_range("npm", "*")
        elif part[:1] in "^~" and not part.startswith("~="):
            found = parse_range("npm", part)
        else:
            found = parse_range("pypi", f"=={part}" if part[:1].isdigit() else part)
        if found is None:
            return None
        intervals.extend(found.intervals)
    return VersionRange(text.strip(), "pypi", tuple(intervals))


def _uv_local(package: dict[str, Any]) -> bool:
    """The project itself and its workspace members, not dependencies."""
    source = package.get("source")
    return isinstance(source, dict) and ("virtual" in source or "editable" in source)


def _toml_packages(reading: Reading, path: Path, key: str, skip: Any) -> Iterator[Dependency]:
    text = reading.text(path)
    if text is None:
        return
    document = _package_lines(text, key) or reading.toml(path)
    if not document:
        return
    source = reading.shown(path)
    packages = document.get(key)
    for package in packages if isinstance(packages, list) else ():
        if isinstance(package, dict) and not skip(package):
            found = mention("pypi", package.get("name"), source, "locked", package.get("version"))
            if found:
                yield found


def _package_lines(text: str, key: str) -> dict[str, Any] | None:
    """Only the `[[key]]` tables' `name`, `version` and `source` lines of a lockfile, parsed:
    the wheels' URLs and hashes (most of a uv.lock, and slow to parse) are never read. `None`
    when the file does not lend itself (a multi-line string, no such table, or what is kept
    does not parse), and the whole file is parsed instead."""
    if '"""' in text or "'''" in text:
        return None
    header = f"[[{key}]]"
    kept: list[str] = []
    inside = False
    for line in text.splitlines():
        if _TABLE_HEADER.match(line):
            inside = line.split("#", 1)[0].strip() == header
            if inside:
                kept.append(header)
        elif inside and line.startswith(_PACKAGE_KEYS):
            kept.append(line)
    if not kept:
        return None
    try:
        return tomllib.loads("\n".join(kept))
    except (tomllib.TOMLDecodeError, RecursionError):
        return None


def _pipfile_lock(reading: Reading, path: Path) -> Iterator[Dependency]:
    document = reading.json(path)
    if not isinstance(document, dict):
        return
    source = reading.shown(path)
    for section in ("default", "develop"):
        for name, entry in _table(document.get(section)).items():
            version = _table(entry).get("version")
            if isinstance(version, str) and version.startswith("=="):
                found = mention("pypi", name, source, "locked", version[2:].strip())
                if found:
                    yield found


def _requirements_files(reading: Reading, root: Path) -> list[Path]:
    names = [e.name for e in reading.entries(root) if e.name.startswith("requirements")]
    return [root / name for name in sorted(names) if name.endswith(".txt")]


def _requirements(reading: Reading, path: Path) -> Iterator[Dependency]:
    """A requirements file's `==` pins (locked) and other specifiers (declared)."""
    text = reading.text(path)
    if text is None:
        return
    source = reading.shown(path)
    for line in text.replace("\\\n", " ").splitlines():
        line = line.partition(" #")[0].strip()
        if not line or line.startswith(("#", "-")):
            continue
        cut = _OPTION.search(line)
        found = _requirement(line[: cut.start()] if cut else line, source, "locked")
        if found:
            yield found


def _requirement(text: str, source: str, how: str) -> Dependency | None:
    """A PEP 508 requirement: an exact version when it pins one with `==`, else its range."""
    try:
        requirement = Requirement(text)
    except InvalidRequirement:
        return None
    if requirement.url:
        return None
    specifiers = list(requirement.specifier)
    if (
        len(specifiers) == 1
        and specifiers[0].operator in ("==", "===")
        and "*" not in str(specifiers[0].version)
    ):
        return mention("pypi", requirement.name, source, how, specifiers[0].version)
    spec = str(requirement.specifier)
    return mention("pypi", requirement.name, source, "declared", range_text=spec or None)


def _table(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def _strings(value: Any) -> Iterable[str]:
    return [item for item in value if isinstance(item, str)] if isinstance(value, list) else []
