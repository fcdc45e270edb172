"""Sphinx objects.inv: one page per document, API objects its symbols, never one page each;
and an auxiliary inventory joined to pages from any source."""

from __future__ import annotations

import zlib

import pytest

from pinax.builder import inventory
from pinax.builder.model import BuildLimits
from pinax.errors import InvalidArgs
from pinax.manifest import Symbol, dump
from tests.support.build_support import published, run_build, serve, urls


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
    assert app.description is None  # the symbols say it: no "API: ..." summary beside them
    assert Symbol("textual.app.App", "class", "textual.app.App") in app.symbols
    assert Symbol("textual.app.App.exit", "function", "textual.app.App.exit") in app.symbols
    assert sum(len(p.symbols) for p in manifest.pages) == len(rows) == 2253
    bare, _ = run_build(
        published("textual", "objects.inv"),
        site_url="https://textual.textualize.io/",
        no_symbols=True,
    )
    app = next(p for p in bare.pages if p.url == "https://textual.textualize.io/api/app/")
    assert not app.symbols and app.description.startswith("API: ") and "App" in app.description
    assert app.description.endswith("more")  # 200 objects summed up in one line
    assert all(len(p.description or "") < 300 for p in bare.pages)


def test_sphinx_symbols_leave_out_labels_documents_and_hidden_entries() -> None:
    rows = raw_rows("pytorch", "ao", "stable", "objects.inv")
    manifest, _ = run_build(
        published("pytorch", "ao", "stable", "objects.inv"),
        site_url="https://docs.pytorch.org/ao/stable/",
    )
    names = {s.name for p in manifest.pages for s in p.symbols}
    kinds = {s.kind for p in manifest.pages for s in p.symbols}
    api = {row[0] for row in rows if row[1].startswith("py:") and row[2] != "-1"}
    assert names == api
    assert kinds <= {"module", "class", "function", "method", "attribute", "property", "data"}
    assert any(row[1].startswith("std:") for row in rows)  # labels and documents: none kept


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


def inventory_bytes(body: str) -> bytes:
    return (
        b"# Sphinx inventory version 2\n# Project: T\n# Version: 1\n"
        b"# The remainder of this file is compressed using zlib.\n" + zlib.compress(body.encode())
    )


def test_symbols_join_a_sitemap_build_by_url(site) -> None:
    """`--symbols FILE`: the inventory's links resolve against the site being built, join
    its pages by normalised URL; symbols of pages the manifest lacks are counted, dropped."""
    real = {"https://textual.textualize.io": site.origin}
    serve(site, "/sitemap.xml", published("textual", "sitemap.xml"), real)
    inv = published("textual", "objects.inv")
    manifest, reporter = run_build(site.url("/sitemap.xml"), symbols=str(inv))
    app = next(p for p in manifest.pages if p.url == site.url("/api/app/"))
    assert Symbol("textual.app.App", "class", "textual.app.App") in app.symbols
    recorded = sum(len(p.symbols) for p in manifest.pages)
    note = next(n for n in reporter.notes if n.startswith(f"{inv}: "))
    assert note.startswith(f"{inv}: {recorded} symbols on ")
    assert recorded == 2253 or "dropped" in note
    assert not reporter.warnings


def test_the_sites_own_inventory_is_found_beside_its_sitemap(site) -> None:
    real = {"https://textual.textualize.io": site.origin}
    serve(site, "/sitemap.xml", published("textual", "sitemap.xml"), real)
    serve(site, "/objects.inv", published("textual", "objects.inv"))
    manifest, reporter = run_build(site.url("/sitemap.xml"))
    assert sum(len(p.symbols) for p in manifest.pages) > 2000
    assert any(n.startswith(site.url("/objects.inv")) for n in reporter.notes)
    bare, _ = run_build(site.url("/sitemap.xml"), no_symbols=True)
    assert not any(p.symbols for p in bare.pages)


@pytest.mark.parametrize(
    ("content", "problem"),
    [
        (b"<!doctype html><html></html>", "not a Sphinx objects.inv"),
        (b"# Sphinx inventory version 2\n# Project: T\n# Version: 1\n# zlib\nxx", "corrupt"),
        (inventory_bytes("a py:function 1 a.html -\n" * 200_000), "inflates to more than"),
    ],
)
def test_a_bad_auxiliary_inventory_is_a_warning_and_no_symbols(
    site, tmp_path, content: bytes, problem: str
) -> None:
    real = {"https://textual.textualize.io": site.origin}
    serve(site, "/sitemap.xml", published("textual", "sitemap.xml"), real)
    bad = tmp_path / "objects.inv"
    bad.write_bytes(content)
    limits = BuildLimits(max_inflated=1 << 20)
    manifest, reporter = run_build(site.url("/sitemap.xml"), symbols=str(bad), limits=limits)
    assert len(manifest.pages) == 301 and not any(p.symbols for p in manifest.pages)
    [warning] = reporter.warnings
    assert warning.startswith(f"{bad}: ") and problem in warning
    assert warning.endswith("the manifest is built without symbols")


def test_hostile_entries_are_skipped_in_bounded_time(tmp_path) -> None:
    """A huge line, control characters, hidden entries: skipped, the rest read."""
    body = (
        "x" * 5_000_000
        + " py:function 1 a.html -\n"
        + "bad\x01name py:function 1 a.html -\n"
        + "hidden py:function -1 a.html#hidden -\n"
        + "mod.good py:function 1 a.html#mod.good -\n"
    )
    parsed = inventory.parse(inventory_bytes(body), "t", 50 << 20)
    assert inventory.symbols(parsed, "https://t.io/") == {
        "https://t.io/a.html": (Symbol("mod.good", "function", "mod.good"),)
    }


def test_symbols_are_added_to_an_existing_manifest(tmp_path) -> None:
    """`pinax build m.json --symbols FILE -o m.json`: the pages as they were, plus symbols."""
    rows = [{"url": "https://t.io/a.html", "title": "A", "description": "API: f"}]
    rows.append({"url": "https://t.io/b/", "title": "B"})
    path = tmp_path / "m.json"
    path.write_text(
        '{"pinax_manifest": 1, "name": "t", "url": "https://t.io", "pages": '
        + str(rows).replace("'", '"')
        + "}"
    )
    inv = tmp_path / "objects.inv"
    inv.write_bytes(
        inventory_bytes("m.f py:function 1 a.html#m.f -\nm.C py:class 1 b/index.html#m.C -\n")
    )
    manifest, reporter = run_build(path, symbols=str(inv))
    assert [p.symbols for p in manifest.pages] == [
        (Symbol("m.f", "function", "m.f"),),
        (Symbol("m.C", "class", "m.C"),),
    ]
    assert manifest.pages[0].description is None  # the symbols replace the API summary
    assert '"symbols": [{"anchor": "m.f", "kind": "function", "name": "m.f"}]' in dump(manifest)
    assert f"{inv}: 2 symbols on 2 pages" in reporter.notes
