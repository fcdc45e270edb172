"""The default scope of a search with a project and no `docs`: the project's libraries at the
versions it uses, never another version in their place.

For each dependency, the loaded docs that document its package (`versions.documents`) are
grouped by docs name (one library, any number of versions), and for each library:

- versions loaded: the dependency's exact version selects one (`versions.select`), its range
  the highest inside it, no version at all the highest; none matching puts the library in
  `missing` with the versions that are loaded, and nothing of it in the scope (an unversioned
  copy beside versioned ones is not a fallback);
- no version loaded (docs built before versions existed): they serve whatever version the
  project uses, and the library is listed in `unversioned`.

Docs that document no package (`packages: []`: a platform, a team's own docs) are always in
the scope (`general`); a docs folder served from disk joins them when given with `[]`. Every
other loaded manifest is left out of the default scope, still reachable by `docs`.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any, NamedTuple

from pinax.project.records import Dependency
from pinax.versions import (
    PackageId,
    Version,
    documented,
    highest,
    identity,
    parse_package,
    select,
)


class Loaded(NamedTuple):
    """One loaded manifest as the scope sees it: its name, version and packages (`None`: the
    package of its own name; `[]`: none)."""

    name: str
    version: str | None
    packages: Sequence[str | PackageId] | None


@dataclass
class Scope:
    """The manifests a search covers by default, and why the others are not there.

    `docs` holds the identities in scope as (name, version) in order: the project's, then
    the general ones. `project` and `general` name them as `name@version` (or `name`).
    """

    docs: list[tuple[str, str | None]] = field(default_factory=list)
    project: list[str] = field(default_factory=list)
    general: list[str] = field(default_factory=list)
    missing: list[dict[str, Any]] = field(default_factory=list)
    unversioned: list[str] = field(default_factory=list)
    undocumented: list[str] = field(default_factory=list)  # dependencies no loaded docs document
    # For doctor: each dependency's package and what answers for it, one line each:
    # "django@4.2", "drf (unversioned)", "django 3.2 missing (loaded: 4.2, 5.2)".
    served: dict[str, list[str]] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        """The `scope` an answer carries (the undocumented dependencies are `doctor`'s)."""
        return {
            "project": list(self.project),
            "general": list(self.general),
            "missing": [dict(entry) for entry in self.missing],
            "unversioned": list(self.unversioned),
        }


def scope_for(dependencies: Iterable[Dependency], loaded: Iterable[Loaded | tuple]) -> Scope:
    """The default scope of a project depending on `dependencies`, over the `loaded` docs."""
    manifests = [_checked(Loaded(*entry)) for entry in loaded]
    dependencies = list(dependencies)
    by_package = _documenting(manifests, {d.ecosystem for d in dependencies})
    scope = Scope()
    for dependency in dependencies:
        libraries: dict[str, list[str | None]] = {}
        for manifest in by_package.get(dependency.package, ()):
            libraries.setdefault(manifest.name, []).append(manifest.version)
        if not libraries:
            scope.undocumented.append(str(dependency.package))
        answers = scope.served.setdefault(str(dependency.package), [])
        for name, versions in libraries.items():
            answers.append(_serve(scope, dependency, name, versions))
    for manifest in manifests:
        if manifest.packages == []:
            _add(scope, scope.general, manifest.name, manifest.version)
    return scope


def _documenting(manifests: list[Loaded], ecosystems: set[str]) -> dict[PackageId, list[Loaded]]:
    """Each package and the loaded manifests that document it, in loading order: one pass
    over the manifests, not one per dependency."""
    by_package: dict[PackageId, list[Loaded]] = {}
    for manifest in manifests:
        for package in documented(manifest.name, manifest.packages, ecosystems):
            by_package.setdefault(package, []).append(manifest)
    return by_package


def _serve(scope: Scope, dependency: Dependency, name: str, versions: list[str | None]) -> str:
    """Put the version of library `name` that answers for `dependency` in the scope, or say
    why none does; what answers, as doctor shows it."""
    versioned = [v for v in versions if v]
    if not versioned:
        _add(scope, scope.project, name, None)
        if name not in scope.unversioned:
            scope.unversioned.append(name)
        return f"{name} (unversioned)"
    if dependency.version is not None:
        chosen = select(dependency.version, versioned)
        wanted = dependency.version.text
    elif dependency.range is not None:
        chosen = dependency.range.select(versioned)
        wanted = dependency.range.text
    else:
        chosen, wanted = highest(versioned), None
    if chosen is not None:
        _add(scope, scope.project, name, chosen.text)
        return identity(name, chosen.text)
    entry = {"docs": name, "version": wanted, "loaded": _sorted(versioned)}
    if entry not in scope.missing:
        scope.missing.append(entry)
    return f"{name} {wanted} missing (loaded: {', '.join(entry['loaded'])})"


def _add(scope: Scope, names: list[str], name: str, version: str | None) -> None:
    if (name, version) not in scope.docs:
        scope.docs.append((name, version))
        names.append(identity(name, version))


def _sorted(versions: list[str]) -> list[str]:
    return [v.text for v in sorted(map(Version, dict.fromkeys(versions)))]


def _checked(manifest: Loaded) -> Loaded:
    """Package ids parsed once (a bad one raises `InvalidArgs`, as loading the manifest would)."""
    if manifest.packages is None:
        return manifest
    ids = [p if isinstance(p, PackageId) else parse_package(p) for p in manifest.packages]
    return Loaded(manifest.name, manifest.version, ids)
