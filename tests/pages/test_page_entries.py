"""get_page(section=...) on API entries: a Sphinx `<dt id>` and its `<dd>`, and nothing else."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from pinax.errors import NotFound
from pinax.pages import extract_page
from tests.support.fixture_pages import open_tools, read, serve
from tests.support.http_site import Site

PYTHON = [
    "sphinx/python-howto-logging",
    "sphinx/python-library-argparse",
    "sphinx/python-library-itertools",
    "sphinx/python-library-json",
    "sphinx/python-library-stdtypes",
]


def test_json_dumps_opens_its_entry_and_not_json_loads(tmp_path: Path, site: Site) -> None:
    meta, _, url = serve(site, "sphinx/python-library-json")
    tools = open_tools(tmp_path, site, [meta["url_path"]])
    answer = read(tools, url, section="json.dumps")
    assert answer["section"] == {"symbol": "json.dumps", "anchor": "json.dumps"}
    markdown = answer["markdown"]
    assert markdown.startswith("`json.dumps(obj, *,") and "Serialize *obj* to a JSON" in markdown
    assert "json.load(" not in markdown and "Deserialize" not in markdown
    assert "entries" not in answer  # the spans are the cache's, not the caller's
    assert read(tools, url + "#json.dumps")["markdown"] == markdown
    # A class's entry holds its methods'; a method's is its own.
    decoder = read(tools, url, section="json.JSONDecoder")["markdown"]
    method = read(tools, url, section="json.JSONDecoder.decode")["markdown"]
    assert method in decoder and len(method) < len(decoder)


def test_the_page_markdown_is_unchanged_by_finding_entries() -> None:
    from tests.support.fixture_pages import fixture

    meta, folder = fixture("sphinx/python-library-json")
    html = (folder / meta["page_file"]).read_text()
    extracted = extract_page(html, meta["url"])
    assert "\ue000" not in extracted.markdown and "\ue002" not in extracted.markdown
    assert "\n\n\n" not in extracted.markdown
    assert len(extracted.entries) == len(re.findall(r'<dt class="sig[^"]*"[^>]*id=', html))


@pytest.mark.parametrize("name", PYTHON)
def test_every_api_anchor_of_the_python_fixtures_opens_its_entry(
    tmp_path: Path, site: Site, name: str
) -> None:
    meta, _, url = serve(site, name)
    html = site.routes[meta["url_path"]].body.decode("utf-8", "replace")
    ids = re.findall(r'<dt class="sig[^"]*"[^>]*id="([^"]+)"', html)
    assert ids
    tools = open_tools(tmp_path, site, [meta["url_path"]])
    for anchor in ids:
        answer = read(tools, url, section=anchor, max_tokens=20000)
        assert answer["section"]["symbol"] == anchor
        signature = answer["markdown"].split("\n", 1)[0]
        assert signature.startswith("`"), (anchor, signature[:80])
        if re.fullmatch(r"[\w.]+", anchor):  # a Python name (not `cmdoption-...`)
            last = anchor.rsplit(".", 1)[-1]
            assert last in answer["markdown"].split("\n\n", 1)[0], (anchor, signature[:80])


def test_a_symbol_name_and_the_not_found_list(tmp_path: Path, site: Site) -> None:
    meta, _, url = serve(site, "sphinx/python-library-json")
    tools = open_tools(tmp_path, site, [meta["url_path"]])
    assert read(tools, url, section="dumps()")["section"]["symbol"] == "json.dumps"
    with pytest.raises(NotFound, match=r"its headings and API entries: .*json\.dumps"):
        read(tools, url + "#no-such-entry")


@pytest.mark.parametrize(
    ("marked", "clean"),
    [
        ("\ue0000\ue001\n\nsig\n\ndesc\n\n\ue0020\ue001\n", "sig\n\ndesc\n"),
        ("intro\n\n\ue0000\ue001\n\nsig\n\ndesc\n\n\ue0020\ue001\n\nafter\n", None),
        ("`\ue0000\ue001sig`\n\ndesc\ue0020\ue001\n", "`sig`\n\ndesc\n"),
    ],
)
def test_markers_leave_the_text_as_extraction_would(marked: str, clean: str | None) -> None:
    from pinax.pages.entries import take_entries

    text, spans = take_entries(marked, ["a"])
    expected = clean or "intro\n\nsig\n\ndesc\n\nafter\n"
    assert text == expected
    [(anchor, start, end)] = spans
    assert anchor == "a" and text[start:end].replace("`", "") == "sig\n\ndesc"


@pytest.mark.anyio
async def test_an_entry_section_matches_the_published_schema(tmp_path: Path, site: Site) -> None:
    import jsonschema
    from mcp import Client

    from pinax.server import create_server

    meta, _, url = serve(site, "sphinx/python-library-json")
    tools = open_tools(tmp_path, site, [meta["url_path"]])
    async with Client(create_server(tools, warm=False)) as client:
        schemas = {t.name: t.output_schema for t in (await client.list_tools()).tools}
        result = await client.call_tool("get_page", {"url": url, "section": "json.dumps"})
    assert not result.is_error, result
    jsonschema.validate(result.structured_content, schemas["get_page"])
    assert result.structured_content["section"]["symbol"] == "json.dumps"
