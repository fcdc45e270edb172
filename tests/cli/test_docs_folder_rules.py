"""Issue 37's "broken" list, each through the command a user runs: a docs repository served
the way its site publishes it. Every test here failed on main before this change.
"""

from __future__ import annotations

import json
import shutil
import sys
from pathlib import Path

import pytest

from tests.support.serving import run_pinax

FIXTURES = Path(__file__).resolve().parent.parent / "builder" / "fixtures"


def built(tmp_path: Path, *args: str) -> dict:
    out = tmp_path / "out.json"
    done = run_pinax("build", *args, "-o", str(out))
    assert done.returncode == 0, done.stderr
    assert "Traceback" not in done.stderr
    return json.loads(out.read_text())


def searched(*args: str) -> dict:
    done = run_pinax("search", *args, "--json")
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def small_folder(tmp_path: Path) -> Path:
    folder = tmp_path / "docs"
    (folder / "guide").mkdir(parents=True)
    (folder / "index.md").write_text("# Home\n\nWelcome to the widget docs.\n")
    (folder / "guide" / "install.md").write_text(
        "# Installing widgets\n\n## Proxy settings\n\nSet the widget proxy with WIDGET_PROXY.\n"
    )
    (folder / "guide" / "changelog.md").write_text("# Changelog\n\n## 1.0\n\nWidget proxy added.\n")
    return folder


# VitePress: no layout, src/ and .md in URLs, README and example fragments as pages


def test_a_vitepress_repository_is_served_as_vuejs_org_publishes_it(tmp_path: Path) -> None:
    manifest = built(tmp_path, str(FIXTURES / "vitepress-vuejs-docs"), "--layout", "vitepress")
    urls = [page["url"] for page in manifest["pages"]]
    assert "https://vuejs.org/guide/introduction.html" in urls
    assert not [url for url in urls if "/src/" in url or url.endswith(".md")]
    titles = {page["title"] for page in manifest["pages"]}
    assert not titles & {"README", "template", "description", "{{ message }}"}
    assert len(urls) == 11  # the Markdown pages under srcDir, none of the fragments


# MkDocs: docs_dir ignored, nav titles replaced by slugs, a theme template as a page


def test_an_mkdocs_repository_keeps_docs_dir_nav_titles_and_no_templates(tmp_path: Path) -> None:
    manifest = built(tmp_path, str(FIXTURES / "mkdocs-httpx"), "--url", "https://x.org/")
    pages = {page["url"]: page["title"] for page in manifest["pages"]}
    assert pages["https://x.org/async/"] == "Async Support"
    assert pages["https://x.org/advanced/proxies/"] == "Proxies"
    assert not [url for url in pages if "/docs/" in url or "nav" in url or "overrides" in url]
    assert manifest["name"] == "httpx" and manifest["title"] == "HTTPX"


# Sphinx: the docs set named after the folder


def test_a_sphinx_folder_is_named_after_its_project() -> None:
    found = searched("--docs", str(FIXTURES / "sphinx-flask" / "docs"), "blueprints")
    assert found["results"] and {r["docs"] for r in found["results"]} == {"flask"}


# Any folder


@pytest.mark.parametrize(
    "name",
    ["versions.json", "sidebars.json", "mint.json", "docs.json", "typedoc.json", "book.json"],
)
def test_a_docs_tool_json_at_the_top_does_not_refuse_the_folder(tmp_path: Path, name: str) -> None:
    folder = small_folder(tmp_path)
    (folder / name).write_text('{"version": ["1.0"], "navigation": []}')
    found = searched("--docs", str(folder), "widget proxy")
    assert found["results"][0]["title"] == "Installing widgets"


def test_docs_folder_option_and_dir_prefix_say_it_outright(tmp_path: Path) -> None:
    folder = small_folder(tmp_path)
    manifest = {"pinax_manifest": 1, "name": "m", "url": "https://m.org/", "pages": []}
    (folder / "m.json").write_text(json.dumps(manifest))  # a manifest: a folder of manifests
    for args in (["--docs-folder", str(folder)], ["--docs", f"dir:{folder}"]):
        found = searched(*args, "widget proxy")
        assert found["results"][0]["title"] == "Installing widgets", args


def test_a_file_that_cannot_be_parsed_is_skipped_and_the_rest_served(tmp_path: Path) -> None:
    folder = small_folder(tmp_path)
    deep = "<html><body>" + "<div>" * 30_000 + "x" + "</div>" * 30_000 + "</body></html>"
    (folder / "deep.html").write_text(deep)
    out = tmp_path / "m.json"
    done = run_pinax("build", str(folder), "-o", str(out))
    assert done.returncode == 0, done.stderr
    assert done.stderr.count("deep.html") == 2 and "skipped" in done.stderr  # one warning
    assert len(json.loads(out.read_text())["pages"]) == 3
    found = searched("--docs", str(folder), "widget proxy")
    assert found["results"][0]["title"] == "Installing widgets"


def test_sections_are_relative_to_the_folder_without_url(tmp_path: Path) -> None:
    folder = small_folder(tmp_path)
    manifest = built(tmp_path, str(folder))
    sections = {page["section"] for page in manifest["pages"]}
    assert sections == {"/", "/guide"}
    found = searched("--docs", str(folder), "widget proxy")
    assert str(tmp_path) not in json.dumps([r["section"] for r in found["results"]])


def test_heading_hits_in_a_markdown_folder_carry_the_generators_anchor(tmp_path: Path) -> None:
    folder = small_folder(tmp_path)
    found = searched("--docs", str(folder), "proxy settings")
    hit = found["results"][0]
    assert (hit["heading"], hit["anchor"]) == ("Proxy settings", "proxy-settings")


def test_get_page_of_an_html_page_reports_its_own_heading_id(tmp_path: Path) -> None:
    folder = tmp_path / "site"
    folder.mkdir()
    (folder / "config.html").write_text(
        "<html><body><main><h1>Configuration</h1><p>Intro.</p>"
        '<h2 id="env">Environment variables</h2><p>Set WIDGET_HOME.</p>'
        "<h2>Files</h2><p>A file.</p></main></body></html>"
    )
    url = (folder / "config.html").as_uri()
    done = run_pinax("page", url, "--docs", str(folder), "--section", "env", "--json")
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["section"] == {
        "heading": "Environment variables",
        "anchor": "env",
    }


def test_get_page_of_a_mistyped_page_is_not_found_with_the_nearest(tmp_path: Path) -> None:
    folder = small_folder(tmp_path)
    wrong = (folder / "guide" / "instal.md").as_uri()
    done = run_pinax("page", wrong, "--docs", str(folder))
    assert done.returncode != 0 and "Traceback" not in done.stderr
    assert "no page at" in done.stderr and (folder / "guide" / "install.md").as_uri() in done.stderr
    assert "not a page of a served docs folder" not in done.stderr
    # a folder published under its config's site: the site's URL, never fetched
    site = tmp_path / "site"
    shutil.copytree(FIXTURES / "mkdocs-httpx", site)
    done = run_pinax("page", "https://www.python-httpx.org/asyncc/", "--docs", str(site))
    assert "no page at" in done.stderr and "https://www.python-httpx.org/async/" in done.stderr


def test_search_takes_include_and_exclude_at_any_depth(tmp_path: Path) -> None:
    folder = small_folder(tmp_path)
    found = searched("--docs", str(folder), "--exclude", "changelog*", "widget proxy")
    assert found["results"] and "Changelog" not in {r["title"] for r in found["results"]}
    found = searched("--docs", str(folder), "--include", "install.md", "widget")
    assert {r["title"] for r in found["results"]} == {"Installing widgets"}


@pytest.mark.anyio
async def test_serve_takes_exclude_and_answers_not_found_over_mcp(tmp_path: Path) -> None:
    """Through a real MCP client over stdio: the excluded page is not served, and a page
    of the folder that is not there is `not_found` with the nearest pages."""
    from mcp import Client, StdioServerParameters

    folder = small_folder(tmp_path)
    params = StdioServerParameters(
        command=sys.executable,
        args=[
            *("-m", "pinax", "serve", "--docs", str(folder), "--exclude", "changelog*"),
            *("--cache-dir", str(tmp_path / "cache")),
        ],
        env={"PYTHONPATH": str(Path(__file__).resolve().parent.parent.parent)},
    )
    async with Client(params) as client:
        docs = (await client.call_tool("list_docs", {})).structured_content["docs"]
        assert [d["pages"] for d in docs] == [2]
        missing = await client.call_tool("get_page", {"url": (folder / "guide/instal.md").as_uri()})
        assert missing.is_error
        error = json.loads(missing.content[0].text)["error"]
        assert error["code"] == "not_found" and "install.md" in error["message"]
