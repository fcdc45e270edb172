"""What a Node project depends on: its `node_modules`, its lockfiles, its `package.json`.

Installed: `node_modules/*/package.json` and `node_modules/@scope/*/package.json` (one level:
a symlink is followed, as pnpm links packages, but never recursed into, so a loop ends at once).
Locked: `package-lock.json` (v2/v3 `packages`, v1 `dependencies`), `pnpm-lock.yaml` (v5-v9),
`yarn.lock` (v1 and berry, read line by line: one format for both), `bun.lock` (JSONC). A
lockfile lists direct dependencies first where its format says which they are. Declared:
`package.json`'s `dependencies`, `devDependencies` and `optionalDependencies` ranges.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from pinax.project import reading as reading_limits
from pinax.project.reading import Reading, is_folder
from pinax.project.records import Dependency, mention

DEPENDENCY_FIELDS = ("dependencies", "devDependencies", "optionalDependencies")
PACKAGE_JSON_BYTES = 1024 * 1024  # a package.json over a megabyte is not one npm publishes
_PEER_SUFFIX = re.compile(r"\(.*$")
# An entry's own fields are indented by two spaces; its dependencies' by four.
_YARN_VERSION = re.compile(r' {2}version:?[ \t]+"?([^"\s]+)"?\s*')
_YARN_RESOLUTION = re.compile(r' {2}resolution:?[ \t]+"?([^"\s]+)"?\s*')


def installed(reading: Reading, root: Path) -> Iterator[Dependency]:
    """Each package in the project's `node_modules`, at the version its package.json says."""
    for folder in package_folders(reading, root / "node_modules"):
        found = installed_package(reading, folder)
        if found:
            yield found


def package_folders(reading: Reading, modules: Path) -> Iterator[str]:
    """`node_modules/NAME` and `node_modules/@scope/NAME` folders (dot-folders left out), as
    strings: a thousand Path objects cost more than reading the files. At most
    `MAX_FOLDER_ENTRIES` in all, scopes included."""
    limit = reading_limits.MAX_FOLDER_ENTRIES
    for count, folder in enumerate(_package_folders(reading, modules)):
        if count >= limit:
            reading.warn(modules, f"more than {limit:,} packages; the rest skipped")
            return
        yield folder


def _package_folders(reading: Reading, modules: Path) -> Iterator[str]:
    for entry in reading.entries(modules):
        if entry.name.startswith(".") or not is_folder(entry):
            continue
        if entry.name.startswith("@"):
            for inner in reading.entries(entry.path):
                if not inner.name.startswith(".") and is_folder(inner):
                    yield inner.path
        else:
            yield entry.path


def installed_package(reading: Reading, folder: str | Path) -> Dependency | None:
    """An installed package from its package.json (its folder's name when it names none)."""
    path = os.path.join(folder, "package.json")
    manifest = reading.json(path, limit=PACKAGE_JSON_BYTES)
    if not isinstance(manifest, dict):
        return None
    name = manifest.get("name")
    if not isinstance(name, str):
        parent, base = os.path.split(os.path.normpath(folder))
        scope = os.path.basename(parent)
        name = f"{scope}/{base}" if scope.startswith("@") else base
    return mention("npm", name, reading.shown(path), "installed", manifest.get("version"))


def package_lock(reading: Reading, root: Path) -> Iterator[Dependency]:
    yield from _package_lock(reading, root / "package-lock.json")


def pnpm_lock(reading: Reading, root: Path) -> Iterator[Dependency]:
    yield from _pnpm_lock(reading, root / "pnpm-lock.yaml")


def yarn_lock(reading: Reading, root: Path) -> Iterator[Dependency]:
    yield from _yarn_lock(reading, root / "yarn.lock")


def bun_lock(reading: Reading, root: Path) -> Iterator[Dependency]:
    yield from _bun_lock(reading, root / "bun.lock")


def declared(reading: Reading, root: Path) -> Iterator[Dependency]:
    """Each range the project's package.json asks for (a tag such as `latest`: any version).
    An alias (`npm:react@17`), a path, a URL or a git spec is left out: the locked or installed
    package says what it is."""
    path = root / "package.json"
    manifest = reading.json(path)
    if not isinstance(manifest, dict):
        return
    source = reading.shown(path)
    for key in DEPENDENCY_FIELDS:
        for name, spec in _table(manifest.get(key)).items():
            if isinstance(spec, str) and (":" in spec or "/" in spec):
                continue  # an alias, a path, a URL, git: not the registry's package of that name
            found = mention("npm", name, source, "declared", range_text=spec)
            if found:
                yield found


# Each reader of one kind of file, in reading order: installed, then locked, then declared.
READERS = (installed, package_lock, pnpm_lock, yarn_lock, bun_lock, declared)


def _package_lock(reading: Reading, path: Path) -> Iterator[Dependency]:
    document = reading.json(path)
    if not isinstance(document, dict):
        return
    source = reading.shown(path)
    packages = _table(document.get("packages"))
    if packages:  # v2 and v3: a flat map of install paths; the shallowest are direct
        paths = [p for p in packages if isinstance(p, str) and p.startswith("node_modules/")]
        paths.sort(key=lambda p: p.count("node_modules/"))
        for install_path in paths:
            entry = _table(packages[install_path])
            if entry.get("link"):
                continue
            name = entry.get("name") or install_path.rpartition("node_modules/")[2]
            found = mention("npm", name, source, "locked", entry.get("version"))
            if found:
                yield found
        return
    for name, entry in _table(document.get("dependencies")).items():  # v1: top level only
        found = mention("npm", name, source, "locked", _table(entry).get("version"))
        if found:
            yield found


def _pnpm_lock(reading: Reading, path: Path) -> Iterator[Dependency]:
    document = reading.yaml(path)
    if not isinstance(document, dict):
        return
    source = reading.shown(path)
    importers = _table(document.get("importers")) or {".": document}  # v5 without workspaces
    for importer in importers.values():
        for key in DEPENDENCY_FIELDS:
            for name, entry in _table(_table(importer).get(key)).items():
                version = _table(entry).get("version") if isinstance(entry, dict) else entry
                if isinstance(version, str):
                    version = _PEER_SUFFIX.sub("", version)
                    found = mention("npm", name, source, "locked", version)
                    if found:
                        yield found
    for key in _table(document.get("packages")):
        if isinstance(key, str):
            name, version = _pnpm_key(key)
            found = mention("npm", name, source, "locked", version)
            if found:
                yield found


def _pnpm_key(key: str) -> tuple[str, str]:
    """`name@1.2.3(peer@1)` (v9), `/name@1.2.3` (v6) or `/name/1.2.3` (v5) as name, version."""
    key = _PEER_SUFFIX.sub("", key.lstrip("/"))
    at = key.find("@", 1)
    if at > 0:
        return key[:at], key[at + 1 :]
    name, _, version = key.rpartition("/")
    return name, version


def _yarn_lock(reading: Reading, path: Path) -> Iterator[Dependency]:
    """yarn.lock, v1 (`version "1.2.3"`) or berry (`version: 1.2.3`), one line at a time."""
    text = reading.text(path)
    if text is None:
        return
    source = reading.shown(path)
    names: list[str] = []
    version = resolution = None
    for line in [*text.splitlines(), ""]:
        if line and line[0] not in " \t#":
            yield from _yarn_entry(names, version, resolution, source)
            names, version, resolution = _yarn_names(line), None, None
        elif not line.strip():
            continue
        elif (found := _YARN_VERSION.fullmatch(line)) and version is None:
            version = found[1]
        elif found := _YARN_RESOLUTION.fullmatch(line):
            resolution = found[1]
    yield from _yarn_entry(names, version, resolution, source)


def _yarn_names(header: str) -> list[str]:
    """The package names of an entry's header (`"a@^1", a@~1.2:` or `"a@npm:^1, a@npm:^2":`)."""
    if not header.rstrip().endswith(":") or header.startswith("__metadata"):
        return []
    descriptors = header.rstrip().rstrip(":").replace('"', "").split(",")
    names = []
    for descriptor in descriptors:
        descriptor = descriptor.strip()
        at = descriptor.find("@", 1)
        local = "@workspace:" in descriptor or "@patch:" in descriptor
        alias = descriptor.startswith("npm:", at + 1) and descriptor.find("@", at + 6) > 0
        if at > 0 and not local and not alias:  # v1 names an alias, not what it installs
            names.append(descriptor[:at])
    return list(dict.fromkeys(names))


def _yarn_entry(
    names: list[str], version: str | None, resolution: str | None, source: str
) -> Iterator[Dependency]:
    if resolution and names:  # berry: the resolution names the package an alias installs
        at = resolution.find("@", 1)
        local = "@workspace:" in resolution or "@link:" in resolution
        names = [] if local else [resolution[:at]] if at > 0 else names
    for name in names:
        found = mention("npm", name, source, "locked", version)
        if found:
            yield found


def _bun_lock(reading: Reading, path: Path) -> Iterator[Dependency]:
    document = reading.json(path, comments=True)
    if not isinstance(document, dict):
        return
    source = reading.shown(path)
    found_all = []
    for key, entry in _table(document.get("packages")).items():
        if not isinstance(entry, list) or not entry or not isinstance(entry[0], str):
            continue
        at = entry[0].find("@", 1)
        name, version = (entry[0][:at], entry[0][at + 1 :]) if at > 0 else ("", "")
        found = mention("npm", name, source, "locked", version)
        if found:
            found_all.append((key != name, found))  # a nested key ("parent/name") is indirect
    found_all.sort(key=lambda pair: pair[0])
    yield from (found for _, found in found_all)


def _table(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}
