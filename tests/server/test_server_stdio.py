"""The server through a real MCP client over stdio, against `pinax serve` as a subprocess."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import anyio
import pytest
from mcp import Client, StdioServerParameters
from mcp.types import ResourceListChangedNotification

from tests.conftest import LOOPBACK, shared_path
from tests.support.http_site import Reply, Site
from tests.support.work import HANG

pytestmark = pytest.mark.anyio


def serve(*args: str, cache: Path) -> StdioServerParameters:
    return StdioServerParameters(
        command=sys.executable,
        # The test site is on loopback, which the operator must allow.
        args=[
            "-m",
            "pinax",
            "serve",
            *args,
            "--cache-dir",
            str(cache),
            "--allow-private",
            LOOPBACK,
        ],
        env={"PYTHONPATH": str(Path(__file__).resolve().parents[2])},
    )


def error_of(result) -> dict:
    assert result.is_error, result
    return json.loads(result.content[0].text)["error"]


@pytest.fixture(params=["auto", "legacy"])
def era(request: pytest.FixtureRequest) -> str:
    return request.param


async def test_every_tool_over_stdio(tmp_path: Path, era: str) -> None:
    folder = shared_path("corpora", "manifests")
    params = serve(
        "--docs", str(folder / "react.json"), "--docs", str(folder / "django.json"), cache=tmp_path
    )
    async with Client(params, mode=era) as client:
        assert client.server_info.name == "pinax"
        assert client.instructions and "search_pages" in client.instructions
        tools = {t.name: t for t in (await client.list_tools()).tools}
        assert set(tools) == {
            "list_docs",
            "list_sections",
            "search_pages",
            "get_section_pages",
            "get_page",
        }
        assert tools["search_pages"].input_schema["properties"]["limit"]["maximum"] == 50
        assert tools["get_page"].annotations.open_world_hint is True
        assert tools["search_pages"].annotations.read_only_hint is True

        docs = (await client.call_tool("list_docs", {})).structured_content["docs"]
        assert [(d["name"], d["pages"]) for d in docs] == [("react", 223), ("django", 667)]

        sections = await client.call_tool("list_sections", {"docs": "react"})
        assert sections.structured_content["sections"][0]["section"].startswith("/")

        found = await client.call_tool("search_pages", {"query": "useState hook", "limit": 3})
        assert not found.is_error
        top = found.structured_content["results"][0]
        assert top["url"] == "https://react.dev/reference/react/useState"
        assert top["docs"] == "react"
        text = found.content[0].text  # the reading copy of the structured result
        assert text.startswith("3 results for 'useState hook':\n1. useState [react]: ")

        listed = await client.call_tool(
            "get_section_pages", {"section": "/reference/react-dom/hooks", "docs": "react"}
        )
        assert listed.structured_content["total"] == len(listed.structured_content["pages"]) > 0


async def test_errors_are_results_with_codes(tmp_path: Path, era: str) -> None:
    folder = shared_path("corpora", "manifests")
    params = serve("--docs", str(folder / "django.json"), cache=tmp_path)
    async with Client(params, mode=era) as client:
        missing = error_of(await client.call_tool("list_sections", {"docs": "djnago"}))
        assert missing == {
            "code": "not_found",
            "message": "no manifest named 'djnago' (did you mean 'django'?)",
        }
        section = error_of(
            await client.call_tool("get_section_pages", {"section": "/en/dev/topcs"})
        )
        assert (
            section["code"] == "not_found"
            and "did you mean '/en/dev/topics'?" in section["message"]
        )
        bad = error_of(await client.call_tool("search_pages", {"query": "x", "limit": 500}))
        assert bad["code"] == "invalid_args" and "between 1 and 50" in bad["message"]
        wrong_type = error_of(await client.call_tool("search_pages", {"query": ["a", "b"]}))
        assert wrong_type["code"] == "invalid_args"
        refused = error_of(await client.call_tool("get_page", {"url": "http://169.254.169.254/"}))
        assert refused["code"] == "invalid_args"
        # The server is still up and answering after all of that.
        assert not (await client.call_tool("search_pages", {"query": "models"})).is_error


async def test_reload_notifies_over_stdio(tmp_path: Path, era: str) -> None:
    folder = tmp_path / "manifests"
    folder.mkdir()
    source = shared_path("corpora", "manifests")
    (folder / "react.json").write_bytes((source / "react.json").read_bytes())
    heard = anyio.Event()

    async def on_message(message: object) -> None:
        if isinstance(message, ResourceListChangedNotification):
            heard.set()

    params = serve("--docs", str(folder), "--watch-interval", "0.1", cache=tmp_path / "cache")
    async with Client(params, mode=era, message_handler=on_message) as client:
        assert client.server_capabilities.resources.list_changed is True
        add = folder / "drf.json"
        with anyio.fail_after(HANG):
            if era == "legacy":
                add.write_bytes((source / "drf.json").read_bytes())
                await heard.wait()
            else:
                async with client.listen(resources_list_changed=True) as events:
                    add.write_bytes((source / "drf.json").read_bytes())
                    async for _ in events:
                        break
        uris = [str(r.uri) for r in (await client.list_resources()).resources]
        assert uris == ["pinax://docs", "pinax://docs/drf", "pinax://docs/react"]


async def test_get_page_and_fetch_failures_over_stdio(tmp_path: Path, site: Site) -> None:
    site.add(
        "/guide/",
        Reply(200, b"<main><h1>Guide</h1><p>Read me.</p></main>", {"Content-Type": "text/html"}),
    )
    site.add("/down", Reply(503, b"", {}))
    manifest = tmp_path / "local.json"
    pages = [
        {"url": site.url("/guide/"), "title": "Guide"},
        {"url": site.url("/down"), "title": "Down"},
    ]
    manifest.write_text(
        json.dumps({"pinax_manifest": 1, "name": "local", "url": site.url("/"), "pages": pages})
    )
    async with Client(serve("--docs", str(manifest), cache=tmp_path / "cache")) as client:
        first = await client.call_tool("get_page", {"url": site.url("/guide/")})
        page = first.structured_content
        assert (page["title"], page["source"], page["cached"]) == ("Guide", "html", False)
        assert "Read me." in page["markdown"]
        again = await client.call_tool("get_page", {"url": site.url("/guide/")})
        assert again.structured_content["cached"] is True and site.hits("/guide/") == 1
        failed = error_of(await client.call_tool("get_page", {"url": site.url("/down")}))
        assert failed["code"] == "fetch_failed" and "HTTP 503" in failed["message"]
