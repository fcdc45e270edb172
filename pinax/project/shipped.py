"""Docs that installed packages carry inside them, found by a small table of known layouts.

`SHIPPED_LAYOUTS` lists each package that ships its docs and the folder they are in, inside
the installed package. The docs are that package's at the version installed (its
package.json's `version`), so a project's `node_modules/next/dist/docs` is served as
`next@16.2.0` with no `--docs`. To recognise another package, add a `ShippedLayout` row: the
package id and the folder inside the package (the docs' generator is detected as for any
docs folder).

| package | folder | since |
|---|---|---|
| `npm:next` | `dist/docs` | Next.js 16.2 |
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from pinax.project.node import installed_package
from pinax.project.reading import Reading
from pinax.project.records import ShippedDocs
from pinax.versions import PackageId, parse_package


@dataclass(frozen=True)
class ShippedLayout:
    """Where one package keeps its docs inside its installed folder."""

    package: str  # "npm:next"
    folder: str  # relative to the installed package's folder
    since: str  # the first release that ships them, for the reader


SHIPPED_LAYOUTS: tuple[ShippedLayout, ...] = (ShippedLayout("npm:next", "dist/docs", "16.2"),)


def shipped_docs(reading: Reading, root: Path) -> list[ShippedDocs]:
    """The docs installed packages ship, per `SHIPPED_LAYOUTS` (npm packages for now)."""
    found = []
    for layout in SHIPPED_LAYOUTS:
        package = parse_package(layout.package)
        folder = _installed_folder(root, package)
        if folder is None or not _is_dir(folder / layout.folder):
            continue
        installed = installed_package(reading, folder)
        if installed and installed.version and installed.package == package:
            docs = folder / layout.folder
            found.append(ShippedDocs(package, installed.version, docs, installed.source))
    return found


def _installed_folder(root: Path, package: PackageId) -> Path | None:
    if package.ecosystem == "npm":
        return root / "node_modules" / package.name
    return None


def _is_dir(path: Path) -> bool:
    try:
        return os.path.isdir(path)
    except (OSError, ValueError):
        return False
