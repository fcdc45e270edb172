"""Every error Pinax raises is a `PinaxError`, and every error class says when it is raised."""

from __future__ import annotations

import ast

import pytest

from pinax import workers
from pinax.errors import InternalError, PinaxError, error_result
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
