"""A project folder read whole: every mention of a dependency, and the one that wins.

For each package the surest mention wins: installed, then locked, then declared; among
mentions equally sure, the first that lies inside the range the project declares for it,
else the first read (readers list direct dependencies before the rest). The Python and Node
versions follow their own order (`runtimes`). Nothing here raises on a file's content: each
reader is fenced, and a file that cannot be read is a warning naming it.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable
from pathlib import Path

from pinax.errors import InvalidArgs
from pinax.project import node, python, runtimes
from pinax.project.reading import Reading, log
from pinax.project.records import HOWS, Dependency, Project
from pinax.project.shipped import shipped_docs
from pinax.versions import PackageId

READERS = (*python.READERS, *node.READERS)  # each a function of one kind of file


def read_project(folder: str | Path) -> Project:
    """What the project in `folder` depends on; `InvalidArgs` when it is not a folder."""
    root = Path(os.path.abspath(folder))
    if not root.is_dir():
        raise InvalidArgs(f"project folder not found: {folder}")
    reading = Reading(root)
    project = Project(root)
    for reader in READERS:
        what = f"{reader.__module__.rpartition('.')[2]} {reader.__name__}"
        project.records.extend(_fenced(reading, what, lambda r=reader: r(reading, root)))
    project.dependencies = choose(project.records)
    package_json = reading.json(root / "package.json")
    for found in (
        _fenced_one(reading, lambda: runtimes.python(reading, root)),
        _fenced_one(reading, lambda: runtimes.node(reading, root, package_json)),
    ):
        if found:
            project.records.append(found)
            project.dependencies[found.package] = found
    project.shipped = _fenced(reading, "shipped docs", lambda: shipped_docs(reading, root))
    project.warnings = reading.warnings
    return project


def choose(records: Iterable[Dependency]) -> dict[PackageId, Dependency]:
    """The winning mention of each package (see the module's docstring)."""
    by_package: dict[PackageId, list[Dependency]] = {}
    for record in records:
        by_package.setdefault(record.package, []).append(record)
    chosen = {}
    for package, mentions in by_package.items():
        rank = min(HOWS.index(m.how) for m in mentions)
        surest = [m for m in mentions if HOWS.index(m.how) == rank]
        ranges = [m.range for m in mentions if m.range is not None]
        inside = [m for m in surest if m.version and all(r.contains(m.version) for r in ranges)]
        chosen[package] = (inside or surest)[0]
    return chosen


def _fenced(reading: Reading, what: str, read: Callable[[], Iterable]) -> list:
    """All a reader yields; what it yielded before an unforeseen failure, and a warning."""
    found: list = []
    try:
        found.extend(read())
    except Exception as problem:  # a reader's defect must not stop start-up
        message = f"{reading.root}: reading {what} failed ({problem!r}); skipped"
        log.warning("%s", message)
        log.debug("the failure of %s", what, exc_info=True)  # the traceback, for a bug report
        reading.warnings.append(message)
    return found


def _fenced_one(reading: Reading, read: Callable[[], Dependency | None]) -> Dependency | None:
    found = _fenced(reading, "the runtime version", lambda: [read()])
    return found[0] if found else None
