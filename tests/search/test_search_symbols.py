"""API lookup by name: symbols are their own field, an exact name ranks its page first and
the hit names it; a shared name is a choice among equals, never `high`."""

from __future__ import annotations

from typing import Any

import pytest

from pinax.builder import inventory
from pinax.library import Library
from pinax.manifest import Manifest, from_dict
from pinax.tools import Tools
from tests.conftest import shared_path

PY = "https://docs.python.org/3/library"


def symbols(*names: str) -> list[dict]:
    kinds = {"environ": "data", "JSONDecoder": "class", "json": "module", "pickle": "module"}
    return [
        {"name": n, "kind": kinds.get(n.rsplit(".", 1)[-1], "function"), "anchor": n} for n in names
    ]


def stdlib() -> Manifest:
    pages = [
        {
            "url": f"{PY}/json.html",
            "title": "json — JSON encoder and decoder",
            "symbols": symbols("json", "json.dumps", "json.loads", "json.JSONDecoder"),
        },
        {
            "url": f"{PY}/pickle.html",
            "title": "pickle — Python object serialization",
            "symbols": symbols("pickle", "pickle.dumps", "pickle.loads"),
        },
        {"url": f"{PY}/os.html", "title": "os — Miscellaneous operating system interfaces"},
        {"url": f"{PY}/exceptions.html", "title": "Built-in Exceptions"},
        {"url": f"{PY}/sndhdr.html", "title": "sndhdr — Determine type of sound file"},
        {"url": f"{PY}/environment.html", "title": "Environment variables"},
    ]
    pages[2]["symbols"] = symbols("os", "os.environ", "os.getenv")
    pages[3]["symbols"] = symbols("FileNotFoundError")
    data = {
        "pinax_manifest": 1,
        "name": "python",
        "url": "https://docs.python.org/3",
        "pages": pages,
    }
    return from_dict(data)


@pytest.fixture(scope="module")
def tools() -> Tools:
    return Tools(Library([stdlib()]))


@pytest.mark.parametrize(
    ("query", "page", "symbol"),
    [
        ("json.dumps", "json", "json.dumps"),
        ("JSON.DUMPS", "json", "json.dumps"),  # lower-case or not: the same name
        ("json.dumps()", "json", "json.dumps"),
        ("JSONDecoder", "json", "json.JSONDecoder"),  # bare, unique
        ("os.environ", "os", "os.environ"),
        ("getenv()", "os", "os.getenv"),
        ("FileNotFoundError", "exceptions", "FileNotFoundError"),
    ],
)
def test_an_exact_name_ranks_its_page_first_and_names_it(
    tools: Tools, query: str, page: str, symbol: str
) -> None:
    answer = tools.search_pages(query, limit=3)
    first = answer["results"][0]
    assert first["url"] == f"{PY}/{page}.html", query
    assert (first["symbol"], first["anchor"]) == (symbol, symbol)
    assert first["kind"] and "heading" not in first
    assert "also_matched" not in answer


@pytest.mark.parametrize(
    ("query", "symbol"),
    [
        ("show_facets", "django.contrib.admin.ModelAdmin.show_facets"),
        ("ShowFacets", "django.contrib.admin.ShowFacets"),
        ("ModelAdmin.show_facets", "django.contrib.admin.ModelAdmin.show_facets"),
    ],
)
def test_the_hit_names_the_symbol_written_as_typed(query: str, symbol: str) -> None:
    """Two names of one page alike in their words (`show_facets`, `ShowFacets`): the one whose
    last part is written as typed is named, not the shorter one (Django 5.2's admin page)."""
    names = [
        "django.contrib.admin.ModelAdmin.list_filter",
        "django.contrib.admin.ModelAdmin.show_facets",
        "django.contrib.admin.ShowFacets",
        "django.contrib.admin.ShowFacets.ALWAYS",
    ]
    admin = {
        "url": "https://docs.djangoproject.com/en/5.2/ref/contrib/admin/",
        "title": "The Django admin site",
        "symbols": [{"name": n, "kind": "attribute", "anchor": n} for n in names],
    }
    other = {"url": "https://docs.djangoproject.com/en/5.2/ref/forms/", "title": "Forms"}
    data = {"pinax_manifest": 1, "name": "django", "url": "https://docs.djangoproject.com"}
    tools = Tools(Library([from_dict({**data, "pages": [admin, other]})]))
    top = tools.search_pages(query)["results"][0]
    assert top["symbol"] == symbol


def test_an_owner_typed_beside_its_member_names_the_member() -> None:
    """`URLField assume_scheme`: the owner's name is a word of the symbol field (each dotted
    segment of a name is joined on its own), so the member of that owner is named, not the
    owner alone nor a namesake member of another owner (Django 5.2's forms fields page)."""
    names = [
        "django.forms.Field",
        "django.forms.Field.required",
        "django.forms.CharField",
        "django.forms.URLField",
        "django.forms.URLField.max_length",
        "django.forms.URLField.assume_scheme",
        "django.forms.fields.SchemeField.assume_scheme",
    ]
    fields = {
        "url": "https://docs.djangoproject.com/en/5.2/ref/forms/fields/",
        "title": "Form fields",
        "symbols": [{"name": n, "kind": "attribute", "anchor": n} for n in names],
    }
    data = {"pinax_manifest": 1, "name": "django", "url": "https://docs.djangoproject.com"}
    tools = Tools(Library([from_dict({**data, "pages": [fields]})]))
    top = tools.search_pages("URLField assume_scheme")["results"][0]
    assert top["symbol"] == "django.forms.URLField.assume_scheme"


def test_a_shared_name_ranks_its_pages_together_and_is_never_high(tools: Tools) -> None:
    rows = tools.search_pages("dumps", limit=3)["results"]
    assert {r["symbol"] for r in rows[:2]} == {"json.dumps", "pickle.dumps"}
    assert all(r["confidence"] != "high" for r in rows)
    assert tools.search_pages("json.dumps")["results"][0]["confidence"] == "high"


def test_prose_prefers_titles_to_api_names(tools: Tools) -> None:
    """A plain word in a title outweighs the same word in symbols elsewhere (`environ`
    is the stem of `Environment` too); written as code, the name wins."""
    assert tools.search_pages("environ")["results"][0]["title"] == "Environment variables"
    assert tools.search_pages("os.environ")["results"][0]["symbol"] == "os.environ"


def test_symbols_of_a_real_inventory_are_found_by_every_form() -> None:
    data = shared_path("corpora", "published", "textual", "objects.inv").read_bytes()
    parsed = inventory.parse(data, "textual", 50 << 20)
    pages = inventory.pages(parsed, "https://textual.textualize.io/")
    manifest = Manifest("textual", "https://textual.textualize.io", "Textual", tuple(pages))
    tools = Tools(Library([manifest]))
    app = "https://textual.textualize.io/api/app/"
    for query in ("textual.app.App.exit", "App.exit()", "textual.app.app.exit"):
        first = tools.search_pages(query)["results"][0]
        assert (first["url"], first["symbol"]) == (app, "textual.app.App.exit"), query
    answer = tools.search_pages("textual.app.App.exit", explain=True)["results"][0]
    fields = {f for t in answer["explain"]["terms"] for f in t.get("fields", {})}
    assert "symbol" in fields


def test_a_heading_that_is_a_symbol_is_indexed_once_as_the_symbol() -> None:
    """mkdocstrings gives each documented name a heading with the name's anchor: those
    headings count in the symbol field only, other headings as headings."""
    base = "https://textual.textualize.io/api"
    pages = [
        {
            "url": f"{base}/app/",
            "title": "textual.app",
            "outline": [
                {"level": 2, "title": "App", "anchor": "textual.app.App"},
                {"level": 2, "title": "Usage notes", "anchor": "usage-notes"},
            ],
            "symbols": [{"name": "textual.app.App", "kind": "class", "anchor": "textual.app.App"}],
        },
        {"url": f"{base}/other/", "title": "Other"},
    ]
    data = {
        "pinax_manifest": 1,
        "name": "t",
        "url": "https://textual.textualize.io",
        "pages": pages,
    }
    tools = Tools(Library([from_dict(data)]))
    hit = tools.search_pages("App", explain=True)["results"][0]
    fields = {f for t in hit["explain"]["terms"] for f in t.get("fields", {})}
    assert hit["symbol"] == "textual.app.App" and "heading" not in fields
    hit = tools.search_pages("textual.app usage notes")["results"][0]
    assert hit["heading"] == "Usage notes"


def test_a_heading_that_is_a_symbol_adds_nothing_to_the_heading_field() -> None:
    """In the index itself: a page whose outline has a heading at a symbol's anchor is
    indexed as if that heading were not in its outline (other pages' alike headings stay)."""
    from pinax.manifest import PageColumns
    from pinax.search.indexing import build

    def page(i: int, outline: list[dict[str, object]]) -> dict[str, object]:
        symbol = {"name": f"pkg.App{i}", "kind": "class", "anchor": f"pkg.App{i}"}
        return {
            "url": f"https://x.org/{i}",
            "title": f"Page {i}",
            "outline": outline,
            "symbols": [symbol],
        }

    def arrays(with_headings: bool) -> dict[str, Any]:
        pages = []
        for i in range(6):
            outline = [{"level": 2, "title": "Usage notes", "anchor": f"usage-{i}"}]
            if with_headings:  # App0..App5 at their symbols' anchors, but page 5's elsewhere
                anchor = f"pkg.App{i}" if i < 5 else "elsewhere"
                outline.insert(0, {"level": 2, "title": f"App{i} class", "anchor": anchor})
            elif i == 5:
                outline.insert(0, {"level": 2, "title": "App5 class", "anchor": "elsewhere"})
            pages.append(page(i, outline))
        data = {"pinax_manifest": 1, "name": "t", "url": "https://x.org", "pages": pages}
        return build(PageColumns.of(from_dict(data).pages))

    def postings(found: dict[str, Any]) -> dict[bytes, list[tuple[int, float]]]:
        start, doc, weight = found["post_start"], found["post_doc"], found["post_weight"]
        return {
            term: list(zip(doc[a:b].tolist(), weight[a:b].tolist(), strict=True))
            for term, a, b in zip(found["terms"].tolist(), start[:-1], start[1:], strict=True)
            if b > a
        }

    assert postings(arrays(True)) == postings(arrays(False))


def builtin_types() -> Manifest:
    """Pages of Python's docs where `str methods` used to find C-API pages by their titles."""
    methods = ["capitalize", "casefold", "center", "count", "zfill"]
    pages = [
        {
            "url": f"{PY}/stdtypes.html",
            "title": "Built-in Types",
            "symbols": [
                *({"name": f"str.{m}", "kind": "method", "anchor": f"str.{m}"} for m in methods),
                {"name": "str", "kind": "class", "anchor": "str"},
                {"name": "list.append", "kind": "method", "anchor": "list.append"},
            ],
        },
        {"url": "https://docs.python.org/3/c-api/method.html", "title": "Instance Method Objects"},
        {"url": "https://docs.python.org/3/c-api/float.html", "title": "Floating-Point Objects"},
        {"url": "https://docs.python.org/3/c-api/unicode.html", "title": "Unicode str Objects"},
        {
            "url": f"{PY}/asyncio-exceptions.html",
            "title": "Exceptions",
            "symbols": [
                {"name": f"asyncio.{e}", "kind": "exception", "anchor": f"asyncio.{e}"}
                for e in ("TimeoutError", "CancelledError", "InvalidStateError")
            ],
        },
        {"url": f"{PY}/exceptions.html", "title": "Built-in Exceptions"},
    ]
    return from_dict({"pinax_manifest": 1, "name": "py", "url": PY, "pages": pages})


@pytest.mark.parametrize(
    ("query", "page"),
    [
        ("str methods", f"{PY}/stdtypes.html"),
        ("asyncio exceptions", f"{PY}/asyncio-exceptions.html"),
    ],
)
def test_an_owner_and_a_kind_of_member_find_where_they_are_documented(
    query: str, page: str
) -> None:
    results = Tools(Library([builtin_types()])).search_pages(query, limit=3)["results"]
    assert results[0]["url"] == page, [r["url"] for r in results]
