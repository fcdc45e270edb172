"""The project room as a server uses it: the scope of projects over the loaded docs, a
client's roots as projects, the doctor's report, the docs installed packages ship.

Loaded docs arrive as (name, version, packages) triples; `served` names docs folders read
from disk, which document no package and so are always in the scope.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

from pinax.project.detect import read_project
from pinax.project.records import Project
from pinax.project.report import doctor_lines
from pinax.project.roots import folders_from_roots
from pinax.project.scope import Loaded, Scope, scope_for

Triple = tuple[str, "str | None", "Sequence[str] | None"]


def scope_of(
    projects: Sequence[Project], loaded: Iterable[Triple], served: Iterable[str] = ()
) -> Scope | None:
    """The default scope of these projects over the loaded docs (None without projects)."""
    if not projects:
        return None
    folders = set(served)
    manifests = [
        Loaded(name, version, [] if name in folders else packages)
        for name, version, packages in loaded
    ]
    dependencies = [dep for project in projects for dep in project.dependencies.values()]
    return scope_for(dependencies, manifests)


def with_roots(
    projects: Sequence[Project],
    uris: Iterable[object],
    loaded: Iterable[Triple],
    served: Iterable[str] = (),
) -> tuple[Scope | None, list[str]]:
    """The scope of a client whose MCP roots are `uris`, beside the server's `projects`;
    a warning per root skipped and per file of theirs that could not be read."""
    folders, warnings = folders_from_roots(uris)
    found = [read_project(folder) for folder in folders]
    warnings += [warning for project in found for warning in project.warnings]
    return scope_of([*projects, *found], loaded, served), warnings


def project_report(
    folders: Iterable[str | Path], loaded: Iterable[Triple]
) -> tuple[list[str], list[dict[str, Any]]]:
    """What `pinax doctor --project` says of each project folder: lines, and the data."""
    manifests = list(loaded)
    lines: list[str] = []
    data: list[dict[str, Any]] = []
    for folder in folders:
        project = read_project(folder)
        scope = scope_of([project], manifests)
        assert scope is not None
        lines.extend(doctor_lines(project, scope))
        data.append({**project.to_dict(), "scope": scope.to_dict()})
    return lines, data


def shipped_in(folders: Iterable[str | Path]) -> list[tuple[Path, str, str, list[str]]]:
    """The docs the projects' installed packages ship (`node_modules/next/dist/docs`), each
    as (folder, name, installed version, packages): served as `next@16.2.0`."""
    found = []
    for folder in folders:
        for shipped in read_project(folder).shipped:
            name = shipped.package.name.rsplit("/", 1)[-1]
            found.append((shipped.path, name, shipped.version.text, [str(shipped.package)]))
    return found
