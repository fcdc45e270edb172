"""What a project was found to depend on: one record per mention, and the one that wins.

`how` says how sure a record is: `installed` (in the project's `.venv` or `node_modules`),
`locked` (a lockfile's exact version), `declared` (a range the project asks for). For the
language runtimes it is `pinned` (`.python-version`, `.nvmrc`, `.node-version`), `declared`
(`requires-python`, `engines.node`) or `installed` (the venv's `pyvenv.cfg`).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from pinax.errors import InvalidArgs
from pinax.versions import PackageId, Version, VersionRange, package_id, parse_range

HOWS = ("installed", "locked", "declared")  # most sure first: the first one found wins
RUNTIME_HOWS = ("pinned", "declared", "installed")  # the order for Python and Node


@dataclass(frozen=True)
class Dependency:
    """One mention of a package: an exact `version` or a declared `range` (or neither: a
    dependency on any version), the file that says so, and `how`."""

    package: PackageId
    version: Version | None
    range: VersionRange | None
    source: str
    how: str

    @property
    def ecosystem(self) -> str:
        return self.package.ecosystem

    @property
    def name(self) -> str:
        return self.package.name

    def to_dict(self) -> dict[str, str | None]:
        return {
            "package": str(self.package),
            "version": self.version.text if self.version else None,
            "range": self.range.text if self.range else None,
            "source": self.source,
            "how": self.how,
        }


@dataclass(frozen=True)
class ShippedDocs:
    """Docs an installed package carries inside it, at the version installed."""

    package: PackageId
    version: Version
    path: Path
    source: str  # the package.json or METADATA that gave the version


@dataclass
class Project:
    """What one project folder depends on.

    `records` holds every mention in reading order; `dependencies` the one per package that
    wins (installed, then locked, then declared; the Python and Node runtimes by their own
    order); `warnings` the files that could not be read, each naming the file.
    """

    root: Path
    records: list[Dependency] = field(default_factory=list)
    dependencies: dict[PackageId, Dependency] = field(default_factory=dict)
    shipped: list[ShippedDocs] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)

    def to_dict(self) -> dict[str, object]:
        """What `doctor --project` shows: each dependency that won, docs shipped, warnings."""
        return {
            "project": str(self.root),
            "dependencies": [d.to_dict() for d in self.dependencies.values()],
            "shipped": [
                {"package": str(s.package), "version": s.version.text, "path": str(s.path)}
                for s in self.shipped
            ],
            "warnings": list(self.warnings),
        }


def mention(
    ecosystem: str,
    name: object,
    source: str,
    how: str,
    version: object = None,
    range_text: object = None,
) -> Dependency | None:
    """A `Dependency` from what a file says, or `None` when the name or version is not one
    (a path, a URL, a git commit: nothing docs are published for)."""
    if not isinstance(name, str):
        return None
    try:
        package = package_id(ecosystem, name)
        exact = Version(version) if isinstance(version, str) and version else None
    except InvalidArgs:
        return None
    if exact is None and (version is not None or how in ("installed", "locked")):
        return None  # an installed or locked package without a version says nothing
    wanted = parse_range(ecosystem, range_text) if isinstance(range_text, str) else None
    return Dependency(package, exact, wanted, source, how)
