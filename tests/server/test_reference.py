"""The tool reference page (docs/reference/tools.md) is the one generated from the tool specs,
and the specs describe every field the tools really return."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import anyio
import pytest

from pinax.errors import CODES
from pinax.server import reference
from pinax.server.toolspecs import SEARCH_PAGES, SPECS
from pinax.tools import CONTENT_WEIGHT, EMBEDDING_WEIGHT, LEXICAL_WEIGHT, Tools
from tests.conftest import ROOT, shared_path
from tests.support.http_site import Reply, Site


def test_the_tool_reference_is_what_the_code_makes() -> None:
    text = (ROOT / "docs" / "reference" / "tools.md").read_text()
    block = reference.block_of(text)
    assert block is not None, "docs/reference/tools.md has no generated block"
    assert block == reference.markdown(), (
        "docs/reference/tools.md is stale: "
        "run python -m pinax.server.reference --write docs/reference/tools.md"
    )


def test_the_error_codes_page_lists_every_code() -> None:
    text = (ROOT / "docs" / "reference" / "errors.md").read_text()
    rows = dict(re.findall(r"^\| `(\w+)` \| (.+) \|$", text, re.MULTILINE))
    assert rows == {code: reference.ERROR_CODES[code] for code in CODES}


def test_the_weights_clients_are_told_are_the_ones_search_uses() -> None:
    """The defaults moved (0.8/0.2 -> 0.65/0.35) while the specs still said the old ones."""
    args = {arg.name: arg.schema for arg in SEARCH_PAGES.args}
    for name, default in (
        ("lexical_weight", LEXICAL_WEIGHT),
        ("embedding_weight", EMBEDDING_WEIGHT),
        ("content_weight", CONTENT_WEIGHT),
    ):
        assert f"(default {default};" in args[name]["description"]
        assert args[name]["examples"] == [default]


def test_every_error_code_is_explained() -> None:
    assert list(reference.ERROR_CODES) == list(CODES)


def undeclared(value: Any, schema: dict[str, Any], path: str) -> list[str]:
    """Fields in `value` that `schema` does not describe, at any depth."""
    found = []
    if isinstance(value, dict):
        properties = schema.get("properties", {})
        for key, item in value.items():
            if key not in properties:
                found.append(f"{path}.{key}")
            else:
                found += undeclared(item, properties[key], f"{path}.{key}")
    elif isinstance(value, list):
        for item in value:
            found += undeclared(item, schema.get("items", {}), f"{path}[]")
    return found


@pytest.fixture(scope="module")
def tools() -> Tools:
    folder = shared_path("corpora", "manifests")
    return Tools.open([folder / "react.json", folder / "django.json"])


def page_tools(tmp_path: Path, site: Site) -> Tools:
    site.add(
        "/a", Reply(200, b"<main><h1>A</h1><p>Text.</p></main>", {"Content-Type": "text/html"})
    )
    manifest = tmp_path / "a.json"
    pages = [{"url": site.url("/a"), "title": "A"}]
    manifest.write_text(
        json.dumps({"pinax_manifest": 1, "name": "a", "url": site.url("/"), "pages": pages})
    )
    return Tools.open([manifest], cache_dir=tmp_path / "cache")


def test_specs_describe_every_result_field(tools: Tools, tmp_path: Path, site: Site) -> None:
    specs = {spec.name: spec for spec in SPECS}
    results = {
        "list_docs": [tools.list_docs()],
        "list_sections": [tools.list_sections(), tools.list_sections("react")],
        "search_pages": [
            tools.search_pages("usestate hok"),
            tools.search_pages("refs", docs="react"),
        ],
        "get_section_pages": [
            tools.get_section_pages("/en/dev/topics", limit=2),
            tools.get_section_pages("/learn", docs="react"),
        ],
    }
    results["get_page"] = [anyio.run(page_tools(tmp_path, site).get_page, site.url("/a"))]
    for name, answers in results.items():
        for answer in answers:
            assert undeclared(answer, specs[name].output, name) == []
