"""Every error Pinax raises is a `PinaxError`, and every error class says when it is raised."""

from __future__ import annotations

import ast
import importlib
import inspect
import pkgutil

import pytest

import pinax
from pinax import workers
from pinax.errors import CacheError, InternalError, InvalidArgs, PinaxError, error_result
from pinax.files import SpecialFile
from pinax.search.semantic import ModelError
from pinax.search.store import StoreError
from tests.conftest import ROOT


@pytest.mark.parametrize("error", [StoreError, ModelError, workers.WorkerError])
def test_room_errors_join_the_tree(error: type[Exception]) -> None:
    """They were bare Exceptions: an `except PinaxError` missed them and a client saw only
    "internal error (StoreError)" with no way to tell them apart from a bug."""
    assert issubclass(error, InternalError)
    raised = error("a reason")
    assert isinstance(raised, PinaxError) and raised.message == "a reason"
    assert error_result(raised) == {"error": {"code": "internal", "message": "a reason"}}


def test_every_error_class_says_when_it_is_raised() -> None:
    """Each class of the tree (errors.py and every subclass of its classes) has a docstring."""
    tree = {"PinaxError", "NotFound", "InvalidArgs", "FetchFailed", "CacheError"}
    tree |= {"InternalError", "ManifestError"}
    missing = []
    for path in sorted((ROOT / "pinax").rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text())):
            if not isinstance(node, ast.ClassDef):
                continue
            bases = {getattr(base, "id", getattr(base, "attr", "")) for base in node.bases}
            in_tree = path.name == "errors.py" or bases & tree
            if in_tree and not ast.get_docstring(node):
                missing.append(f"{path.relative_to(ROOT)}: {node.name}")
    assert missing == []


# Signals, not errors: each is raised and caught inside its own module (a parse stopped by its
# deadline, a branch of a search that failed), so no caller can ever see one.
SIGNALS = {
    "pinax.pages.rest.deadline.Overtime",
    "pinax.builder.outlines._Failed",
    "pinax.builder.titles._NoTitle",
    "pinax.builder.sitemap._Refused",
}


def exception_classes() -> dict[str, type[BaseException]]:
    """Every exception class defined in a module of pinax/, found by importing them all."""
    found: dict[str, type[BaseException]] = {}
    names = [info.name for info in pkgutil.walk_packages(pinax.__path__, "pinax.")]
    names.remove("pinax.__main__")  # importing it runs the CLI; it defines no class
    for name in ["pinax", *names]:
        module = importlib.import_module(name)
        for _, value in inspect.getmembers(module, inspect.isclass):
            if issubclass(value, BaseException) and value.__module__ == name:
                found[f"{name}.{value.__qualname__}"] = value
    return found


def test_every_exception_of_the_package_is_in_the_tree() -> None:
    """An `except PinaxError` sees every failure Pinax raises (UnsafeEntry and SpecialFile were
    bare ValueErrors), and each class says when it is raised."""
    classes = exception_classes()
    assert set(classes) >= SIGNALS  # a signal that went away leaves this list
    assert set(classes) >= {"pinax.pages.cache_disk.UnsafeEntry", "pinax.files.SpecialFile"}
    outside = [
        name
        for name, error in sorted(classes.items())
        if not issubclass(error, PinaxError) and name not in SIGNALS
    ]
    undocumented = [name for name, error in sorted(classes.items()) if not error.__doc__]
    assert outside == [] and undocumented == []


def test_the_file_errors_keep_their_meaning() -> None:
    """Joined the tree without changing who catches them: both are still ValueErrors (the
    page cache counts a refused entry as damaged, the reST readers skip a bad include)."""
    unsafe_entry = exception_classes()["pinax.pages.cache_disk.UnsafeEntry"]
    assert issubclass(unsafe_entry, CacheError) and issubclass(unsafe_entry, ValueError)
    assert issubclass(SpecialFile, InvalidArgs) and issubclass(SpecialFile, ValueError)
    refused = SpecialFile("over the limit")
    assert error_result(refused) == {"error": {"code": "invalid_args", "message": "over the limit"}}
