"""Doors that stay cheap to open: a package's names imported from their modules on first use.

`pinax serve` must answer `initialize` quickly and `pinax search` must not load an HTTP stack,
so a door (a package's `__init__`) names what it offers without importing the modules behind
it; the first use of a name imports its module.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping
from typing import Any


def lazy_names(package: str, modules: Mapping[str, str]) -> Callable[[str], Any]:
    """A module `__getattr__` for `package`: `modules` maps each name to the module that
    defines it (relative to the package), as `module` or, for a name the module defines
    under another, `module:name`. A door's name is never a module's own name: importing the
    module would bind the package's attribute to the module."""

    def __getattr__(name: str) -> Any:
        where = modules.get(name)
        if where is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        module, _, defined = where.partition(":")
        return getattr(importlib.import_module(f"{package}.{module}"), defined or name)

    return __getattr__
