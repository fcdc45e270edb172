"""Package ids (`"pypi:django"`, `"npm:@angular/core"`) and which docs document which package.

A name is compared as its ecosystem normalises it: PyPI by PEP 503 (`Django_REST.framework`
is `django-rest-framework`), npm as written (case-sensitive, `@scope/name` whole), any other
ecosystem as written. The language runtimes are the ecosystem `runtime`: `runtime:python` is
CPython, `runtime:node` is Node.js.

Which package docs document (`documents`): the manifest's `packages` when it lists them
(`[]`: none, a platform or a team's own docs); without `packages`, the package of the docs'
own name in any ecosystem; except that the docs named `python` are CPython's and those named
`node` are Node's (`runtime:python`, `runtime:node`), never a package of that name.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass

from packaging.utils import canonicalize_name

from pinax.errors import InvalidArgs

RUNTIME = "runtime"
MAX_NAME_CHARS = 214  # npm's own limit; no registry allows longer
_ECOSYSTEM = re.compile(r"[a-z][a-z0-9-]{0,31}")
_NAMES = {
    "pypi": re.compile(r"[A-Za-z0-9](?:[A-Za-z0-9._-]*[A-Za-z0-9])?"),
    "npm": re.compile(r"(?:@[A-Za-z0-9~-][A-Za-z0-9._~-]*/)?[A-Za-z0-9~-][A-Za-z0-9._~-]*"),
}
_ANY_NAME = re.compile(r"[A-Za-z0-9@~][A-Za-z0-9._/@+~-]*")
_RUNTIME_DOCS = {"python": "python", "node": "node", "nodejs": "node"}


@dataclass(frozen=True, order=True)
class PackageId:
    """A package in an ecosystem, its name normalised the ecosystem's way."""

    ecosystem: str
    name: str

    def __str__(self) -> str:
        return f"{self.ecosystem}:{self.name}"


def normalise(ecosystem: str, name: str) -> str:
    """A package name as its ecosystem compares it (PEP 503 for PyPI, else as written)."""
    return canonicalize_name(name) if ecosystem == "pypi" else name


def package_id(ecosystem: str, name: str) -> PackageId:
    """A checked, normalised `PackageId`; `InvalidArgs` naming the text when it is not one."""
    ecosystem = ecosystem.strip().lower() if isinstance(ecosystem, str) else ""
    name = name.strip() if isinstance(name, str) else ""
    if not _ECOSYSTEM.fullmatch(ecosystem):
        raise InvalidArgs(f"not a package ecosystem: {ecosystem[:40]!r} (e.g. 'pypi', 'npm')")
    pattern = _NAMES.get(ecosystem, _ANY_NAME)
    if len(name) > MAX_NAME_CHARS or not pattern.fullmatch(name):
        raise InvalidArgs(f"not a {ecosystem} package name: {name[:60]!r}")
    return PackageId(ecosystem, normalise(ecosystem, name))


def parse_package(text: str) -> PackageId:
    """`"ecosystem:name"` as a `PackageId` (`"pypi:Django"` -> `pypi:django`)."""
    if not isinstance(text, str) or ":" not in text:
        shown = repr(text)[:60]
        raise InvalidArgs(
            f"not a package id: {shown} (expected 'ecosystem:name', e.g. 'pypi:django')"
        )
    ecosystem, _, name = text.partition(":")
    return package_id(ecosystem, name)


def runtime(name: str) -> PackageId:
    """The language runtime `python` or `node` as a package id."""
    return PackageId(RUNTIME, _RUNTIME_DOCS.get(name, name))


def documented(
    docs_name: str, packages: Iterable[str | PackageId] | None, ecosystems: Iterable[str]
) -> frozenset[PackageId]:
    """The packages the docs named `docs_name`, listing `packages` (or `None`), document: those
    listed, else the package of their own name in each of `ecosystems` (the runtime for the
    docs named `python` and `node`)."""
    if packages is not None:
        return frozenset(p if isinstance(p, PackageId) else parse_package(p) for p in packages)
    if docs_name in _RUNTIME_DOCS:
        return frozenset([runtime(docs_name)])
    found = set()
    for ecosystem in ecosystems:
        if ecosystem != RUNTIME:
            try:
                found.add(package_id(ecosystem, docs_name))
            except InvalidArgs:
                continue
    return frozenset(found)


def documents(
    docs_name: str, packages: Iterable[str | PackageId] | None, wanted: PackageId
) -> bool:
    """Whether the docs named `docs_name`, listing `packages` (or `None`), document `wanted`."""
    return wanted in documented(docs_name, packages, [wanted.ecosystem])
