"""Which Python and which Node a project runs on, so the docs of that version answer for them.

Python: `.python-version` (pyenv, uv; `3.11.7`, `3.12`, `cpython-3.12`, `pypy3.10`: the
language version), else `requires-python` (or Poetry's `python` dependency) as a range, else
a `Pipfile`'s `[requires]` (`python_full_version` exactly, `python_version` its series), else
the venv's `pyvenv.cfg` (`version` or uv's `version_info`). Node: `.nvmrc`, else
`.node-version` (`v20.11.0`, `20`; an alias such as `lts/*` names no version), else
`package.json`'s `engines.node` range. The first file that names a version decides.
"""

from __future__ import annotations

import re
from pathlib import Path

from pinax.project.python import VENVS, poetry_constraint
from pinax.project.reading import Reading
from pinax.project.records import Dependency
from pinax.versions import Version, VersionRange, parse_range, runtime

SMALL_FILE_BYTES = 64 * 1024  # a version file or pyvenv.cfg is a few lines
_PYTHON_PIN = re.compile(r"(?:cpython-?|pypy|python)?(\d{1,4}(?:\.\d{1,6}){0,2})(?!\.?\d).*", re.I)
_NODE_PIN = re.compile(r"(?:v|node-?v?)?(\d{1,4}(?:\.\d{1,6}){0,2})(?!\.?\d).*", re.I)
_VENV_VERSION = re.compile(r"\s*(version|version_info)\s*=\s*(\d{1,4}(?:\.\d{1,6}){0,2}).*")


def python(reading: Reading, root: Path) -> Dependency | None:
    """The project's Python: pinned, else declared, else the venv's."""
    pinned = _pin(reading, root / ".python-version", _PYTHON_PIN, "python")
    if pinned:
        return pinned
    path = root / "pyproject.toml"
    document = reading.toml(path) or {}
    project = document.get("project")
    wanted: VersionRange | None = None
    if isinstance(project, dict) and isinstance(project.get("requires-python"), str):
        wanted = parse_range("pypi", project["requires-python"])
    tool = document.get("tool")
    poetry = tool.get("poetry") if isinstance(tool, dict) else None
    deps = poetry.get("dependencies") if isinstance(poetry, dict) else None
    if wanted is None and isinstance(deps, dict) and isinstance(deps.get("python"), str):
        wanted = poetry_constraint(deps["python"])
    if wanted is not None:
        return Dependency(runtime("python"), None, wanted, reading.shown(path), "declared")
    pipenv = _pipfile_python(reading, root / "Pipfile")
    if pipenv is not None:
        return pipenv
    for venv in VENVS:
        config = root / venv / "pyvenv.cfg"
        text = reading.text(config, SMALL_FILE_BYTES)
        for line in (text or "").splitlines():
            found = _VENV_VERSION.fullmatch(line)
            if found:
                version = Version(found[2])
                return Dependency(
                    runtime("python"), version, None, reading.shown(config), "installed"
                )
    return None


def _pipfile_python(reading: Reading, path: Path) -> Dependency | None:
    """A Pipfile's `[requires]`: `python_full_version = "3.11.7"` (that release) or
    `python_version = "3.11"` (its series), as the range each means."""
    document = reading.toml(path) if path.is_file() else None
    requires = document.get("requires") if isinstance(document, dict) else None
    if not isinstance(requires, dict):
        return None
    for key, spec in (("python_full_version", "=={}"), ("python_version", "=={}.*")):
        text = requires.get(key)
        if isinstance(text, str) and _PYTHON_PIN.fullmatch(text.strip()):
            wanted = parse_range("pypi", spec.format(text.strip()))
            if wanted is not None:
                return Dependency(runtime("python"), None, wanted, reading.shown(path), "declared")
    return None


def node(reading: Reading, root: Path, package_json: object) -> Dependency | None:
    """The project's Node: pinned, else `engines.node` of the package.json already read."""
    for name in (".nvmrc", ".node-version"):
        pinned = _pin(reading, root / name, _NODE_PIN, "node")
        if pinned:
            return pinned
    engines = package_json.get("engines") if isinstance(package_json, dict) else None
    spec = engines.get("node") if isinstance(engines, dict) else None
    wanted = parse_range("npm", spec) if isinstance(spec, str) else None
    if wanted is None:
        return None
    source = reading.shown(root / "package.json")
    return Dependency(runtime("node"), None, wanted, source, "declared")


def _pin(reading: Reading, path: Path, pattern: re.Pattern[str], name: str) -> Dependency | None:
    text = reading.text(path, SMALL_FILE_BYTES)
    for line in (text or "").splitlines():
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        found = pattern.fullmatch(line)
        if not found:
            return None
        return Dependency(runtime(name), Version(found[1]), None, reading.shown(path), "pinned")
    return None
