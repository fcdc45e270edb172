"""docs/manifest.schema.json as a validator, and the hook that holds every manifest the tests
build to it: `pinax.manifest.dump` is where every built manifest becomes text (the build's
own round trip, `pinax build -o`, a docs folder's manifest), so wrapping it checks them all."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from functools import cache
from pathlib import Path
from typing import Any

import jsonschema

import pinax.manifest as manifest_io

SCHEMA_PATH = Path(__file__).resolve().parents[2] / "docs" / "manifest.schema.json"


@cache
def validator() -> jsonschema.Draft202012Validator:
    schema = json.loads(SCHEMA_PATH.read_text(encoding="utf-8"))
    jsonschema.Draft202012Validator.check_schema(schema)
    return jsonschema.Draft202012Validator(schema)


def schema_errors(data: Any) -> list[str]:
    """Each place the data breaks the schema, as `path: message` (empty when it holds)."""
    found = validator().iter_errors(data)
    return [f"{'/'.join(map(str, e.absolute_path)) or '(top)'}: {e.message[:300]}" for e in found]


def assert_valid(data: Any, what: str) -> None:
    errors = schema_errors(data)
    assert not errors, f"{what} breaks docs/manifest.schema.json: {errors[:5]}"


@contextmanager
def every_dump_validated() -> Iterator[None]:
    """While open, every `pinax.manifest.dump` output is checked against the schema."""
    original: Callable[[manifest_io.Manifest], str] = manifest_io.dump

    def checked(manifest: manifest_io.Manifest) -> str:
        text = original(manifest)
        assert_valid(json.loads(text), f"the manifest built from {manifest.source}")
        return text

    manifest_io.dump = checked  # type: ignore[assignment]
    try:
        yield
    finally:
        manifest_io.dump = original  # type: ignore[assignment]
