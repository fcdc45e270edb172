"""The tools with several versions of one library loaded: `docs="name@version"`, `version`
(and its alias `ver`), a `version` on every hit and row, refusal naming the loaded versions,
the highest said when none is asked, and the text for the model naming the version."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from pinax import manifest as manifest_io
from pinax.errors import NotFound, VersionNotLoaded
from pinax.library import Library
from pinax.manifest import Manifest, Page
from pinax.server.render import render
from pinax.server.toolspecs import SEARCH_PAGES, bind
from pinax.tools import Tools
from tests.support.serving import run_pinax


def _docs(name: str, version: str | None, titles: list[str], packages=None) -> Manifest:
    base = f"https://{name}.example.com/{version or 'dev'}"
    pages = tuple(
        Page(url=f"{base}/ref/{t.lower().replace(' ', '-')}/", title=t, section="/ref")
        for t in titles
    )
    return Manifest(
        name=name, url=base + "/", title=name, pages=pages, version=version, packages=packages
    )


MANIFESTS = [
    _docs("django", "4.2", ["Index together", "Model field reference"], ("pypi:django",)),
    _docs("django", "5.2", ["Generated field", "Model field reference"], ("pypi:django",)),
    _docs("react", None, ["Model of hooks"]),
]


@pytest.fixture(scope="module")
def tools() -> Tools:
    return Tools(Library(MANIFESTS))


def test_every_hit_carries_the_version_it_came_from(tools) -> None:
    for docs, version in (("django@4.2", None), ("django", "4.2")):
        answer = tools.search_pages("model field reference", docs=docs, version=version)
        assert answer["version"] == "4.2" and answer["versions"] == ["4.2", "5.2"]
        assert answer["results"] and all(r["version"] == "4.2" for r in answer["results"])
        assert all("/4.2/" in r["url"] for r in answer["results"])


def test_the_alias_ver_binds_to_version() -> None:
    args = SEARCH_PAGES.accepted(Tools.search_pages)
    assert bind(SEARCH_PAGES, args, {"q": "x", "docs": "django", "ver": "5.2"})["version"] == "5.2"


@pytest.mark.parametrize("call", ["search_pages", "list_sections", "get_section_pages"])
def test_a_version_not_loaded_is_refused_by_every_tool(tools, call) -> None:
    args = {"search_pages": ("x",), "list_sections": (), "get_section_pages": ("/ref",)}[call]
    with pytest.raises(VersionNotLoaded) as caught:
        getattr(tools, call)(*args, docs="django", version="3.2")
    assert caught.value.message == "no docs for django 3.2; loaded: 4.2, 5.2"
    assert caught.value.to_dict()["error"]["code"] == "not_found"


def test_no_version_asked_is_the_highest_and_the_text_names_it_on_every_line(tools) -> None:
    answer = tools.search_pages("generated field", docs="django")
    assert (answer["version"], answer["versions"]) == ("5.2", ["4.2", "5.2"])
    text = render("search_pages", answer)
    lines = [line for line in text.splitlines() if line[:1].isdigit() and ". " in line[:4]]
    assert lines and all("[version 5.2]" in line for line in lines)
    assert "version: 5.2" in text


def test_fanned_out_results_never_mix_two_versions_of_one_library(tools) -> None:
    answer = tools.search_pages("model field reference")
    django = [r for r in answer["results"] if r["docs"] == "django"]
    assert django and {r["version"] for r in django} == {"5.2"}
    assert answer["highest_only"] == {"django": {"version": "5.2", "versions": ["4.2", "5.2"]}}
    text = render("search_pages", answer)
    assert "[django@5.2]" in text and "[django@4.2]" not in text
    sections = tools.list_sections()
    assert {(s["docs"], s.get("version")) for s in sections["sections"]} == {
        ("django", "5.2"),
        ("react", None),
    }


def test_section_pages_and_list_docs_name_versions(tools) -> None:
    pages = tools.get_section_pages("/ref", docs="django@4.2")
    assert pages["docs"] == "django" and pages["version"] == "4.2"
    assert {p["version"] for p in pages["pages"]} == {"4.2"}
    assert "in django 4.2" in render("get_section_pages", pages)
    listed = tools.list_docs()["docs"]
    assert [(d["name"], d.get("version"), d.get("packages")) for d in listed] == [
        ("django", "4.2", ["pypi:django"]),
        ("django", "5.2", ["pypi:django"]),
        ("react", None, None),
    ]
    assert "- django@4.2:" in render("list_docs", tools.list_docs())


def test_no_code_path_substitutes_a_version(tools) -> None:
    """Every version asked that is not loaded, by every way of asking, is refused: none
    answers from 4.2, 5.2 or another library."""
    for asked in ["3.2", "4.1", "4.3", "5.0", "5.1", "5.3", "6.0", "stable", "2"]:
        for docs, version in (("django@" + asked, None), ("django", asked)):
            for call, args in (
                ("search_pages", ("field",)),
                ("list_sections", ()),
                ("get_section_pages", ("/ref",)),
            ):
                with pytest.raises(NotFound, match=r"loaded: 4\.2, 5\.2$"):
                    getattr(tools, call)(*args, docs=docs, version=version)


def test_the_cli_refuses_with_exit_2_and_labels_rows(tmp_path: Path) -> None:
    paths = []
    for m in MANIFESTS[:2]:
        path = tmp_path / f"{m.name}-{m.version}.json"
        path.write_text(manifest_io.dump(m))
        paths += ["--docs", str(path)]
    cache = ["--cache-dir", str(tmp_path / "cache")]
    refused = run_pinax("search", *paths, *cache, "--in", "django@3.2", "field")
    assert refused.returncode == 2
    assert "no docs for django 3.2; loaded: 4.2, 5.2" in refused.stderr
    found = run_pinax("search", *paths, *cache, "--in", "django", "--version", "4.2", "index")
    assert found.returncode == 0, found.stderr
    assert "[django@4.2] Index together" in found.stdout
    answer = json.loads(run_pinax("search", *paths, *cache, "--json", "field").stdout)
    assert {r["version"] for r in answer["results"]} == {"5.2"}


@pytest.mark.anyio
async def test_one_resource_per_loaded_version(tools) -> None:
    from mcp import Client

    from pinax.server import create_server

    async with Client(create_server(tools, warm=False)) as client:
        uris = [str(r.uri) for r in (await client.list_resources()).resources]
        assert "pinax://docs/django@4.2" in uris and "pinax://docs/django@5.2" in uris
        overview = (await client.read_resource("pinax://docs/django@4.2")).contents[0].text
        assert "of django 4.2" in overview
