"""docs/manifest.schema.json describes what the loader accepts: every shipped manifest and every
real manifest of the shared corpora validates, what the loader refuses the schema refuses, and
every manifest a test builds is held to it (tests/conftest.py wraps `pinax.manifest.dump`)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import pinax.manifest as manifest_io
from pinax.errors import ManifestError
from tests.conftest import shared_path
from tests.support.manifest_schema import SCHEMA_PATH, assert_valid, schema_errors

ROOT = Path(__file__).resolve().parents[2]
SHIPPED = sorted((ROOT / "manifests").glob("*.json"))
GOOD = {
    "pinax_manifest": 1,
    "name": "react",
    "url": "https://react.dev",
    "title": "React",
    "version": "19.1",
    "packages": ["npm:react", "npm:react-dom"],
    "pages": [
        {
            "url": "https://react.dev/reference/react/useEffect",
            "title": "useEffect",
            "section": "/reference/react",
            "description": None,
            "outline": [{"level": 2, "title": "Caveats", "anchor": "caveats"}],
            "symbols": [{"name": "react.useEffect", "kind": "function", "anchor": "useEffect"}],
        },
        {"url": "file:///srv/docs/intro.md", "title": ""},
    ],
}


def test_the_schema_is_a_valid_draft_2020_12_schema() -> None:
    schema = json.loads(SCHEMA_PATH.read_text())
    assert schema["$schema"] == "https://json-schema.org/draft/2020-12/schema"
    assert schema_errors(GOOD) == []


@pytest.mark.parametrize("path", SHIPPED, ids=[p.name for p in SHIPPED])
def test_every_shipped_manifest_validates(path: Path) -> None:
    assert_valid(json.loads(path.read_text()), str(path))


def test_the_shared_corpora_manifests_validate() -> None:
    folder = shared_path("corpora", "manifests")
    paths = sorted(folder.glob("*.json"))
    assert paths
    for path in paths:
        data = json.loads(path.read_text())
        manifest_io.from_dict(data, str(path))  # the loader takes it...
        assert_valid(data, str(path))  # ...and so does the schema


@pytest.mark.parametrize(
    ("change", "place"),
    [
        (lambda m: m.pop("pinax_manifest"), "pinax_manifest"),
        (lambda m: m.update(pinax_manifest=2), "pinax_manifest"),
        (lambda m: m.update(name="has space"), "name"),
        (lambda m: m.update(url="docs.example.com"), "url"),
        (lambda m: m.update(ttl=-1), "ttl"),
        (lambda m: m.update(content="../elsewhere.jsonl.gz"), "content"),
        (lambda m: m["pages"][0].update(section="reference"), "pages[0].section"),
        (lambda m: m["pages"][0]["outline"][0].update(level=7), "pages[0].outline[0].level"),
        (lambda m: m["pages"][0]["outline"][0].update(anchor="a b"), "pages[0].outline[0].anchor"),
        (lambda m: m["pages"][0]["symbols"][0].update(kind="macro"), "pages[0].symbols[0].kind"),
        (lambda m: m["pages"][1].pop("title"), "pages[1].title"),
    ],
)
def test_what_the_loader_refuses_the_schema_refuses(change, place: str) -> None:
    data = json.loads(json.dumps(GOOD))
    data.pop("version"), data.pop("packages")  # fields the loader of this build may not know
    manifest_io.from_dict(json.loads(json.dumps(data)))
    change(data)
    with pytest.raises(ManifestError) as refused:
        manifest_io.from_dict(data)
    assert place in str(refused.value)
    assert schema_errors(data), place


@pytest.mark.parametrize(
    "bad",
    [{"version": ""}, {"version": 5.2}, {"packages": ["django"]}, {"packages": "pypi:django"}],
)
def test_version_and_packages_have_their_shape(bad: dict) -> None:
    assert schema_errors({**GOOD, **bad})


def test_a_built_manifest_that_breaks_the_schema_fails_the_test(tmp_path: Path) -> None:
    """The hook is live: a manifest the builder would write with an unknown field is caught."""
    manifest = manifest_io.from_dict({**GOOD, "version": None, "packages": None})
    odd = manifest_io.Page(url="https://react.dev/x", title="x", section="bad")
    broken = manifest_io.Manifest(name="react", url="https://react.dev", title="R", pages=(odd,))
    with pytest.raises(AssertionError, match=r"breaks docs/manifest\.schema\.json"):
        manifest_io.dump(broken)
    assert manifest_io.dump(manifest)
