"""What a project depends on, read from its files (the room's only door).

`read_project(folder)` reads a project's installed packages, lockfiles and manifests (and its
Python and Node versions, and docs its packages ship) into a `Project`; nothing is executed,
every file is size-limited, and a file that cannot be read is a warning naming it.
`scope_for(project.dependencies.values(), loaded)` is the default scope of a search over the
loaded docs: the project's libraries at its versions, what is missing, what is unversioned.
`folders_from_roots` turns an MCP client's roots into project folders; `doctor_lines` is what
`pinax doctor --project` prints. `scope_of`, `with_roots`, `project_report` and `shipped_in`
are what a server does with them (the loaded docs as name, version, packages).
"""

from __future__ import annotations

from pinax.project.detect import choose, read_project
from pinax.project.reading import MAX_FILE_BYTES
from pinax.project.records import Dependency, Project, ShippedDocs
from pinax.project.report import doctor_lines
from pinax.project.roots import folders_from_roots
from pinax.project.scope import Loaded, Scope, scope_for
from pinax.project.serving import project_report, scope_of, shipped_in, with_roots
from pinax.project.shipped import SHIPPED_LAYOUTS, ShippedLayout

__all__ = [
    "MAX_FILE_BYTES",
    "SHIPPED_LAYOUTS",
    "Dependency",
    "Loaded",
    "Project",
    "Scope",
    "ShippedDocs",
    "ShippedLayout",
    "choose",
    "doctor_lines",
    "folders_from_roots",
    "project_report",
    "read_project",
    "scope_for",
    "scope_of",
    "shipped_in",
    "with_roots",
]
