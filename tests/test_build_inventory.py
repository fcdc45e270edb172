"""Sphinx objects.inv: one page per document, API objects summarised, never one page each."""

from __future__ import annotations

import zlib

import pytest

from pinax.builder import inventory
from pinax.builder.model import BuildLimits
from pinax.errors import InvalidArgs
from tests.build_support import published, run_build, serve, urls


def raw_rows(*parts: str) -> list[list[str]]:
    """The inventory's entries, read without the code under test (fields split on spaces)."""
    data = published(*parts).read_bytes()
    body = zlib.decompress(data.split(b"\n", 4)[4]).decode()
    return [line.split(" ") for line in body.splitlines()]


def test_sphinx_inventory_pages_are_its_std_doc_entries() -> None:
    rows = raw_rows("pytorch", "ao", "stable", "objects.inv")
    docs = [row for row in rows if row[1] == "std:doc"]
    manifest, _ = run_build(
        published("pytorch", "ao", "stable", "objects.inv"),
        site_url="https://docs.pytorch.org/ao/stable/",
    )
    assert len(manifest.pages) == len(docs) == 110 < len(rows) == 669
    assert manifest.title == "torchao"  # the inventory's "# Project:"
    by_url = {p.url: p for p in manifest.pages}
    float8 = by_url["https://docs.pytorch.org/ao/stable/api_reference/api_ref_float8.html"]
    assert float8.title == "torchao.float8"  # the display name, not the docname


def test_mkdocstrings_inventory_has_no_std_doc_one_page_per_api_page() -> None:
    rows = raw_rows("textual", "objects.inv")
    assert not any(row[1] == "std:doc" for row in rows)
    documents = {row[3].split("#")[0] for row in rows}
    manifest, _ = run_build(
        published("textual", "objects.inv"), site_url="https://textual.textualize.io/"
    )
    assert len(manifest.pages) == len(documents) == 115
    app = next(p for p in manifest.pages if p.url == "https://textual.textualize.io/api/app/")
    assert app.title == "textual.app"  # the module documented on that page
    assert app.description.startswith("API: ") and "App" in app.description
    assert app.description.endswith("more")  # 200 objects summed up in one line
    assert all(len(p.description or "") < 300 for p in manifest.pages)


def test_inventory_served_by_the_site_resolves_against_its_folder(site) -> None:
    url = serve(site, "/python-sdk/objects.inv", published("mcp-python-sdk", "objects.inv"))
    manifest, reporter = run_build(url)
    assert urls(manifest) == [site.url("/python-sdk/api/")]
    assert manifest.title == "MCP Server"
    assert any("341 inventory entries, 1 documents" in n for n in reporter.notes)


def test_entries_with_spaces_in_names_and_dollar_uris() -> None:
    body = (
        "torchao.quantization py:module 0 api.html#module-$ -\n"
        "quick start std:label -1 quick_start.html#quick-start Quick Start\n"
        "quick_start std:doc -1 quick_start.html Quick Start Guide\n"
    )
    data = (
        b"# Sphinx inventory version 2\n# Project: T\n# Version: 1\n"
        b"# The remainder of this file is compressed using zlib.\n" + zlib.compress(body.encode())
    )
    parsed = inventory.parse(data, "t", 1 << 20)
    assert [item.uri for item in parsed.items] == [
        "api.html#module-torchao.quantization",
        "quick_start.html#quick-start",
        "quick_start.html",
    ]
    pages = inventory.pages(parsed, "https://t.io/")
    assert [(p.url, p.title) for p in pages] == [
        ("https://t.io/quick_start.html", "Quick Start Guide")
    ]


def test_local_inventory_needs_the_site() -> None:
    with pytest.raises(InvalidArgs, match="give the site with --url"):
        run_build(published("textual", "objects.inv"))


def test_version_1_and_corrupt_inventories_are_refused(tmp_path) -> None:
    old = tmp_path / "objects.inv"
    old.write_bytes(b"# Sphinx inventory version 1\n# Project: X\n# Version: 1\nfoo mod foo.html\n")
    with pytest.raises(InvalidArgs, match="only inventory version 2"):
        run_build(old, site_url="https://x.io/")
    corrupt = published("textual", "objects.inv").read_bytes()[:2000]
    old.write_bytes(corrupt[:1500] + b"\x00" * 500)
    with pytest.raises(InvalidArgs, match="corrupt compressed data"):
        run_build(old, site_url="https://x.io/")


def test_inventory_bomb_is_refused(tmp_path) -> None:
    path = tmp_path / "objects.inv"
    path.write_bytes(
        b"# Sphinx inventory version 2\n# Project: B\n# Version: 1\n# zlib\n"
        + zlib.compress(b"a py:function 1 a.html -\n" * 100_000)
    )
    with pytest.raises(InvalidArgs, match="inflates to more than"):
        run_build(path, site_url="https://x.io/", limits=BuildLimits(max_inflated=1 << 20))
