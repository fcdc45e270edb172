"""The house's rooms and arrows: who may import whom, and what each door offers.

Read from the source (every import, those inside functions and under TYPE_CHECKING too), so a
new module cannot reach behind a door or point an arrow upwards unnoticed.
"""

from __future__ import annotations

import ast
import importlib
import pkgutil
from pathlib import Path

import pytest

import pinax

PACKAGE = Path(pinax.__file__).parent
ROOMS = ("search", "pages", "builder", "server", "versions", "project", "cli")
# Each part and the parts it may import ("pinax" is the package root: its version).
MAY_IMPORT = {
    "errors": set(),
    "lazy": set(),
    "files": set(),
    "manifest": {"errors", "files"},
    "content": {"errors", "files"},
    "search": {"manifest", "content", "pages", "files", "errors"},
    "pages": {"pinax", "errors", "lazy", "files"},
    "versions": {"errors"},
    "project": {"versions", "errors", "files"},
    "library": {"search", "manifest", "content", "project", "versions", "errors"},
    "tools": {"library", "project", "versions", "search", "pages", "manifest", "errors"},
    "builder": {"manifest", "content", "pages", "errors", "lazy", "files"},
    "server": {"pinax", "tools", "pages", "manifest", "content", "errors", "lazy"},
    "cli": {"pinax", "server", "tools", "builder", "pages", "manifest", "content", "errors"},
    "__main__": {"cli"},
    "__init__": set(),
}


def modules() -> list[tuple[str, ast.Module]]:
    """(dotted name, parsed source) of every module of the package."""
    found = []
    for path in sorted(PACKAGE.rglob("*.py")):
        parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
        name = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
        found.append((name, ast.parse(path.read_text(), str(path))))
    return found


def imported(module: str, tree: ast.Module) -> set[str]:
    """The pinax modules (or package attributes) a module imports, as dotted names."""
    names: set[str] = set()
    package = module if module.count(".") and _is_package(module) else module.rpartition(".")[0]
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parent = package.rsplit(".", node.level - 1)[0] if node.level > 1 else package
                base = f"{parent}.{base}" if base else parent
            for alias in node.names:  # `from pinax import manifest` imports a module
                whole = f"{base}.{alias.name}"
                names.add(whole if _is_module(whole) else base)
    return {name for name in names if name == "pinax" or name.startswith("pinax.")}


def _is_package(module: str) -> bool:
    return (PACKAGE.parent / module.replace(".", "/") / "__init__.py").exists()


def _is_module(module: str) -> bool:
    return _is_package(module) or (PACKAGE.parent / (module.replace(".", "/") + ".py")).exists()


def part_of(module: str) -> str:
    """The spine module or room a dotted name belongs to."""
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else "pinax"


def test_every_part_of_the_package_is_known() -> None:
    parts = {part_of(name) for name, _ in modules()} - {"pinax"}
    assert parts == set(MAY_IMPORT) - {"__init__"}


def test_nothing_reaches_behind_a_rooms_door() -> None:
    breaches = []
    for name, tree in modules():
        for target in imported(name, tree):
            room = part_of(target)
            behind = room in ROOMS and target.count(".") >= 2
            if behind and part_of(name) != room:
                breaches.append(f"{name} imports {target}")
    assert breaches == []


def test_arrows_point_down() -> None:
    upwards = []
    for name, tree in modules():
        here = part_of(name) if name != "pinax" else "__init__"
        for target in imported(name, tree):
            there = part_of(target)
            if there != here and there not in MAY_IMPORT[here]:
                upwards.append(f"{name} imports {target}")
    assert upwards == []


@pytest.mark.parametrize("room", ROOMS[:-1])
def test_each_door_lists_names_that_resolve(room: str) -> None:
    door = importlib.import_module(f"pinax.{room}")
    assert door.__all__ == sorted(door.__all__, key=lambda n: (not n.isupper(), n))
    for name in door.__all__:
        assert getattr(door, name) is not None, name


@pytest.mark.parametrize("room", ROOMS[:-1])
def test_no_door_name_is_also_a_module_name(room: str) -> None:
    """Importing a module binds its name on the package, which would hide a door's name."""
    door = importlib.import_module(f"pinax.{room}")
    submodules = {info.name for info in pkgutil.iter_modules(door.__path__)}
    assert set(door.__all__) & submodules == set()
