"""The manifest's `version` and `packages` fields: kept as written, checked with the place named,
read the same by the careful reader and the bulk columns reader; identity is `name@version`."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from pinax import manifest as manifest_io
from pinax.errors import ManifestError
from pinax.library import Library
from pinax.manifest import Manifest, Page, parse_columns


def _manifest(name: str = "django", version: str | None = "5.2", **extra) -> Manifest:
    page = Page(url=f"https://docs.example.com/{name}/{version}/ref/", title="Ref", section="/ref")
    return Manifest(
        name=name,
        url="https://docs.example.com/",
        title=name,
        pages=(page,),
        version=version,
        **extra,
    )


def test_version_and_packages_round_trip_through_dump_and_both_readers(tmp_path: Path) -> None:
    made = _manifest(version="v15.1.8", packages=("pypi:django", "npm:@angular/core"))
    path = tmp_path / "m.json"
    path.write_text(manifest_io.dump(made))
    loaded = manifest_io.load(path)
    assert loaded.version == "v15.1.8"  # as written, not normalised
    assert loaded.packages == ("pypi:django", "npm:@angular/core")
    assert loaded.identity == "django@v15.1.8"
    columns = parse_columns(path.read_bytes(), str(path))
    assert (columns.version, columns.packages) == ("v15.1.8", ("pypi:django", "npm:@angular/core"))


def test_a_manifest_without_the_new_fields_still_loads_and_empty_packages_is_kept() -> None:
    data = _manifest(version=None).to_dict()
    assert "version" not in data and "packages" not in data
    old = manifest_io.from_dict(data)
    assert (old.version, old.packages, old.identity) == (None, None, "django")
    none = manifest_io.from_dict({**data, "packages": []})
    assert none.packages == ()
    assert json.loads(manifest_io.dump(none))["packages"] == []


@pytest.mark.parametrize(
    ("field", "value", "place", "words"),
    [
        ("version", 5.2, "version", "expected a string"),
        ("version", "5 2", "version", "not a version"),
        ("version", "", "version", "not a version"),
        ("packages", "pypi:django", "packages", "expected a list"),
        ("packages", ["pypi:django", 3], "packages[1]", "expected a string"),
        ("packages", ["django"], "packages[0]", "ecosystem:name"),
    ],
)
def test_a_bad_field_names_the_file_and_the_place(field, value, place, words) -> None:
    data = {**_manifest().to_dict(), field: value}
    for read in (manifest_io.loads, lambda raw, src: parse_columns(raw.encode(), src)):
        with pytest.raises(ManifestError) as caught:
            read(json.dumps(data), "docs/django.json")
        assert caught.value.source == "docs/django.json"
        assert caught.value.place == place
        assert words in str(caught.value)


def test_same_name_different_versions_load_and_the_same_identity_stops_start_up() -> None:
    library = Library([_manifest(version="4.2"), _manifest(version="5.2")])
    assert library.names == ["django@4.2", "django@5.2"]
    with pytest.raises(ManifestError, match=r"'django@5\.2' is also the identity"):
        Library([_manifest(version="5.2"), _manifest(version="5.2")])
    with pytest.raises(ManifestError, match="'django' is also the identity"):
        Library([_manifest(version=None), _manifest(version=None)])
