"""Manifests load with clear errors, derive what may be derived, and dump deterministically."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from pinax import manifest
from pinax.errors import ManifestError
from pinax.library import Library

GOOD = {
    "pinax_manifest": 1,
    "name": "demo",
    "url": "https://docs.example.com",
    "pages": [
        {"url": "https://docs.example.com/api/charges/create", "title": "Create a charge"},
        {"url": "https://docs.example.com/guide/", "title": "Guide", "section": "/"},
    ],
}


def write(tmp_path: Path, data: object, name: str = "m.json") -> Path:
    path = tmp_path / name
    path.write_text(data if isinstance(data, str) else json.dumps(data))
    return path


def test_real_manifests_load(manifests_dir: Path) -> None:
    for path in sorted(manifests_dir.glob("*.json")):
        loaded = manifest.load(path)
        raw = json.loads(path.read_text())
        assert loaded.name == raw["name"]
        assert len(loaded.pages) == len(raw["pages"])
        assert all(p.title and p.section.startswith("/") for p in loaded.pages)


def test_section_is_derived_and_empty_titles_get_a_slug(tmp_path: Path) -> None:
    data = json.loads(json.dumps(GOOD))
    data["pages"].append({"url": "https://docs.example.com/reference/use-state", "title": " "})
    loaded = manifest.load(write(tmp_path, data))
    assert loaded.pages[0].section == "/api/charges"
    assert loaded.pages[1].section == "/"
    assert loaded.pages[2].title == "use state"
    assert loaded.title == "demo"  # title defaults to the name


def test_parent_section() -> None:
    assert manifest.parent_section("https://react.dev/learn/thinking-in-react") == "/learn"
    assert manifest.parent_section("https://kubernetes.io/docs/tutorials/x/") == "/docs/tutorials"
    assert manifest.parent_section("https://react.dev/versions") == "/"
    assert manifest.parent_section("https://react.dev/") == "/"


@pytest.mark.parametrize(
    ("content", "place", "problem"),
    [
        ('{"pinax_manifest": 1, "name": ', "line 1, column 31", "not valid JSON"),
        ("[1, 2]", "m.json: expected a JSON object", ""),
        ({"name": "x", "url": "https://x.org", "pages": []}, "pinax_manifest", "missing"),
        ({**GOOD, "pinax_manifest": 2}, "pinax_manifest", "unsupported version 2"),
        ({k: v for k, v in GOOD.items() if k != "name"}, "name", "missing"),
        ({**GOOD, "name": "bad name!"}, "name", "not a valid name"),
        ({k: v for k, v in GOOD.items() if k != "url"}, "url", "missing"),
        ({**GOOD, "url": "ftp://x.org"}, "url", "not an absolute http(s) URL"),
        ({k: v for k, v in GOOD.items() if k != "pages"}, "pages", "missing"),
        ({**GOOD, "pages": {"a": 1}}, "pages", "expected a list"),
        ({**GOOD, "pages": [*GOOD["pages"], {"title": "T"}]}, "pages[2].url", "missing"),
        (
            {**GOOD, "pages": [*GOOD["pages"], {"url": "https://x.org/a"}]},
            "pages[2].title",
            "missing",
        ),
        (
            {**GOOD, "pages": [*GOOD["pages"], {"url": "/a", "title": "T"}]},
            "pages[2].url",
            "absolute",
        ),
        ({**GOOD, "pages": [*GOOD["pages"], "x"]}, "pages[2]", "expected an object"),
        (
            {**GOOD, "pages": [*GOOD["pages"], {"url": "https://x.org/a", "title": 3}]},
            "pages[2].title",
            "expected a string, found a number",
        ),
        (
            {**GOOD, "pages": [*GOOD["pages"], {**GOOD["pages"][0]}]},
            "pages[2].url",
            "duplicate of pages[0].url",
        ),
        (
            {**GOOD, "pages": [{"url": "https://x.org/a", "title": "A", "section": "api"}]},
            "pages[0].section",
            "must start with '/'",
        ),
    ],
)
def test_bad_manifests_name_file_and_place(
    tmp_path: Path, content: object, place: str, problem: str
) -> None:
    path = write(tmp_path, content)
    with pytest.raises(ManifestError) as caught:
        manifest.load(path)
    message = caught.value.message
    assert message.startswith(str(path))
    assert place in message
    assert problem in message


def outlined(*headings: object) -> dict:
    return {**GOOD, "pages": [{"url": "https://x.org/a", "title": "A", "outline": list(headings)}]}


@pytest.mark.parametrize(
    ("content", "place", "problem"),
    [
        (outlined({"level": 1, "title": "T"}), "pages[0].outline[0].level", "expected 2 to 6"),
        (
            outlined({"level": 2, "title": "T"}, {"level": "3", "title": "U"}),
            "pages[0].outline[1].level",
            "expected 2 to 6, found '3'",
        ),
        (outlined({"level": 2, "title": " "}), "pages[0].outline[0].title", "is empty"),
        (outlined({"level": 2, "title": "x" * 501}), "pages[0].outline[0].title", "longer"),
        (outlined({"level": 2}), "pages[0].outline[0].title", "missing"),
        (
            outlined({"level": 2, "title": "T", "anchor": "two words"}),
            "pages[0].outline[0].anchor",
            "no whitespace or '#'",
        ),
        (
            outlined({"level": 2, "title": "T", "anchor": "#t"}),
            "pages[0].outline[0].anchor",
            "not an anchor",
        ),
        (outlined("Caveats"), "pages[0].outline[0]", "expected an object"),
        (
            {**GOOD, "pages": [{"url": "https://x.org/a", "title": "A", "outline": "T"}]},
            "pages[0].outline",
            "expected a list",
        ),
        (
            outlined(*[{"level": 2, "title": "T"}] * 5001),
            "pages[0].outline",
            "more than a page has (at most 5000)",
        ),
    ],
)
def test_bad_outlines_name_file_and_place(
    tmp_path: Path, content: object, place: str, problem: str
) -> None:
    with pytest.raises(ManifestError) as caught:
        manifest.load(write(tmp_path, content))
    assert f"{place}: " in caught.value.message
    assert problem in caught.value.message


def test_outlines_load_dump_and_stay_optional(tmp_path: Path) -> None:
    headings = [
        {"level": 2, "title": "Reference", "anchor": "reference"},
        {"level": 3, "title": " Caveats "},
    ]
    loaded = manifest.load(write(tmp_path, outlined(*headings)))
    assert loaded.pages[0].outline == (
        manifest.Heading(2, "Reference", "reference"),
        manifest.Heading(3, "Caveats"),
    )
    text = manifest.dump(loaded)
    assert '"outline": [{"anchor": "reference", "level": 2, "title": "Reference"}, ' in text
    assert manifest.loads(text) == loaded
    assert "outline" not in manifest.dump(manifest.load(write(tmp_path, GOOD)))


def with_symbols(*symbols: object) -> dict:
    return {**GOOD, "pages": [{"url": "https://x.org/a", "title": "A", "symbols": list(symbols)}]}


DUMPS = {"name": "json.dumps", "kind": "function", "anchor": "json.dumps"}


@pytest.mark.parametrize(
    ("content", "place", "problem"),
    [
        (with_symbols(DUMPS, {"name": " ", "kind": "data"}), "pages[0].symbols[1].name", "empty"),
        (with_symbols({"kind": "class"}), "pages[0].symbols[0].name", "missing"),
        (with_symbols({"name": "x" * 501, "kind": "data"}), "pages[0].symbols[0].name", "longer"),
        (with_symbols({"name": "x", "kind": "py:function"}), "pages[0].symbols[0].kind", "one of"),
        (with_symbols({"name": "x"}), "pages[0].symbols[0].kind", "missing"),
        (
            with_symbols({"name": "x", "kind": "data", "anchor": "a b"}),
            "pages[0].symbols[0].anchor",
            "not an anchor",
        ),
        (with_symbols("json.dumps"), "pages[0].symbols[0]", "expected an object"),
        (
            {**GOOD, "pages": [{"url": "https://x.org/a", "title": "A", "symbols": {}}]},
            "pages[0].symbols",
            "expected a list",
        ),
        (
            with_symbols(*[DUMPS] * 20001),
            "pages[0].symbols",
            "more than a page has (at most 20000)",
        ),
    ],
)
def test_bad_symbols_name_file_and_place(
    tmp_path: Path, content: object, place: str, problem: str
) -> None:
    with pytest.raises(ManifestError) as caught:
        manifest.load(write(tmp_path, content))
    assert caught.value.message.startswith(str(tmp_path))
    assert f"{place}: " in caught.value.message
    assert problem in caught.value.message


def test_symbols_load_dump_and_stay_optional(tmp_path: Path) -> None:
    loaded = manifest.load(write(tmp_path, with_symbols(DUMPS, {"name": "json", "kind": "module"})))
    assert loaded.pages[0].symbols == (
        manifest.Symbol("json.dumps", "function", "json.dumps"),
        manifest.Symbol("json", "module"),
    )
    text = manifest.dump(loaded)
    assert (
        '"symbols": [{"anchor": "json.dumps", "kind": "function", "name": "json.dumps"}, ' in text
    )
    assert manifest.loads(text) == loaded
    assert "symbols" not in manifest.dump(manifest.load(write(tmp_path, GOOD)))


def test_missing_file_and_directory(tmp_path: Path) -> None:
    with pytest.raises(ManifestError, match="no such file"):
        manifest.load(tmp_path / "absent.json")
    with pytest.raises(ManifestError, match="is a directory"):
        manifest.load(tmp_path)


def test_not_utf8(tmp_path: Path) -> None:
    path = tmp_path / "m.json"
    path.write_bytes(b'{"name": "\xff"}')
    with pytest.raises(ManifestError, match="not UTF-8"):
        manifest.load(path)


def test_dump_is_deterministic_and_round_trips(manifests_dir: Path, tmp_path: Path) -> None:
    original = manifest.load(manifests_dir / "react.json")
    text = manifest.dump(original)
    assert text == manifest.dump(manifest.loads(text))
    assert manifest.loads(text) == original
    lines = text.splitlines()
    assert lines[0] == "{" and lines[-1] == "}"
    assert sum(1 for line in lines if line.startswith('    {"')) == len(original.pages)


def test_duplicate_names_name_both_files(tmp_path: Path) -> None:
    first = write(tmp_path, GOOD, "one.json")
    second = write(tmp_path, GOOD, "two.json")
    with pytest.raises(ManifestError) as caught:
        Library.load([first, second])
    assert str(first) in caught.value.message and str(second) in caught.value.message
