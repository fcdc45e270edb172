"""The MCP surface through the real Python client, in process, in both protocol eras.

Tool definitions, structured results against their published schemas, the text a model reads,
tolerant arguments, error results, resources, completion, progress and cancellation of a slow
get_page, and live reload with its notifications.
"""

from __future__ import annotations

import json
import logging
import threading
import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

import anyio
import jsonschema
import pytest
from mcp import Client, MCPError
from mcp.types import ResourceListChangedNotification, ResourceTemplateReference

from pinax.server import app as server
from pinax.server.app import create_server
from pinax.server.reload import LiveTools
from pinax.server.toolspecs import SPECS
from pinax.tools import Tools
from tests.conftest import shared_path
from tests.support.http_site import Reply, Request, Site
from tests.support.work import HANG

pytestmark = pytest.mark.anyio


@pytest.fixture(scope="module")
def tools(tmp_path_factory: pytest.TempPathFactory) -> Tools:
    folder = shared_path("corpora", "manifests")
    cache = tmp_path_factory.mktemp("cache")
    return Tools.open([folder / "react.json", folder / "django.json"], cache_dir=cache)


@pytest.fixture(params=["auto", "legacy"])
def era(request: pytest.FixtureRequest) -> str:
    return request.param


@pytest.fixture
async def client(tools: Tools, era: str) -> AsyncIterator[Client]:
    async with Client(create_server(tools, warm=False), mode=era) as connected:
        yield connected


def error_of(result) -> dict:
    assert result.is_error and result.structured_content is None, result
    return json.loads(result.content[0].text)["error"]


async def test_tool_definitions(client: Client) -> None:
    listed = {t.name: t for t in (await client.list_tools()).tools}
    assert list(listed) == [spec.name for spec in SPECS]
    for tool in listed.values():
        assert tool.title and tool.annotations.title == tool.title
        assert 80 < len(tool.description) < 400
        assert tool.annotations.read_only_hint and tool.annotations.idempotent_hint
        assert tool.annotations.open_world_hint is (tool.name == "get_page")
        assert tool.output_schema["type"] == "object"
        for name, schema in tool.input_schema["properties"].items():
            assert schema.get("description"), (tool.name, name)
    search = listed["search_pages"].input_schema
    assert search["required"] == ["query"]
    assert (search["properties"]["limit"]["minimum"], search["properties"]["limit"]["maximum"]) == (
        1,
        50,
    )
    assert "e.g." in search["properties"]["query"]["description"]
    assert search["properties"]["query"]["examples"]
    assert listed["get_section_pages"].input_schema["properties"]["limit"]["maximum"] == 1000
    # Only what tools.py takes today is published; get_page's newer arguments appear with it.
    assert set(listed["get_page"].input_schema["properties"]) <= {
        "url",
        "max_tokens",
        "section",
        "cursor",
    }


async def test_results_match_their_schemas_and_read_well(client: Client) -> None:
    schemas = {t.name: t.output_schema for t in (await client.list_tools()).tools}
    calls = {
        "list_docs": {},
        "list_sections": {},
        "search_pages": {"query": "useState hok", "limit": 3},
        "get_section_pages": {"section": "/topics/db", "docs": "django", "limit": 2},
    }
    for name, arguments in calls.items():
        result = await client.call_tool(name, arguments)
        assert not result.is_error, result
        jsonschema.validate(result.structured_content, schemas[name])
        text = result.content[0].text
        assert "null" not in text and not text.startswith("{"), text
    found = await client.call_tool("search_pages", {"query": "useState hook", "limit": 2})
    lines = found.content[0].text.splitlines()
    assert lines[0] == "2 results for 'useState hook':"
    best = found.structured_content["results"][0]
    assert lines[1] == (
        "1. useState [react]: https://react.dev/reference/react/useState "
        f"(section /reference/react; score {best['score']:.2f}; confidence {best['confidence']})"
    )
    listed = await client.call_tool(
        "get_section_pages", {"section": "/topics/db", "docs": "django"}
    )
    text = listed.content[0].text
    assert text.startswith("Section /en/dev/topics/db in django: 18 pages:")
    assert "- Aggregation (/en/dev/topics/db): https://docs.djangoproject.com/en/dev/" in text


def timeless(result) -> dict:
    """A search result without its latency (which differs from call to call)."""
    return {k: v for k, v in result.structured_content.items() if k != "latency_ms"}


async def test_aliases_a_model_invents(client: Client) -> None:
    plain = await client.call_tool("search_pages", {"query": "refs", "docs": "react", "limit": 4})
    for aliased in (
        {"q": "refs", "library": "react", "limit": 4},
        {"search": "refs", "site": "react", "max_results": 4},
        {"query": "refs", "q": "refs", "docs": "react", "top_k": 4},  # the same value twice
    ):
        result = await client.call_tool("search_pages", aliased)
        assert timeless(result) == timeless(plain), aliased
    section = await client.call_tool("get_section_pages", {"path": "/learn", "docs": "react"})
    assert section.structured_content["section"] == "/learn"
    both = error_of(await client.call_tool("search_pages", {"query": "a", "q": "b"}))
    assert both == {
        "code": "invalid_args",
        "message": "'query' and 'q' both set query; give it once",
    }
    unknown = error_of(await client.call_tool("search_pages", {"query": "a", "sort": "new"}))
    assert "it takes: query, limit, docs" in unknown["message"]
    missing = error_of(await client.call_tool("search_pages", {"docs": "react"}))
    assert missing["code"] == "invalid_args" and missing["message"].startswith(
        "search_pages needs 'query'"
    )
    # A null is an omitted argument: all docs, default limit.
    nulls = await client.call_tool("search_pages", {"query": "state", "docs": None, "limit": None})
    omitted = await client.call_tool("search_pages", {"query": "state"})
    assert timeless(nulls) == timeless(omitted)
    assert len(omitted.structured_content["results"]) == 10


async def test_errors_are_text_only_results(client: Client) -> None:
    missing = error_of(await client.call_tool("list_sections", {"docs": "djnago"}))
    assert missing == {
        "code": "not_found",
        "message": "no manifest named 'djnago' (did you mean 'django'?)",
    }
    bounds = error_of(await client.call_tool("search_pages", {"query": "x", "limit": 51}))
    assert bounds["code"] == "invalid_args" and "between 1 and 50" in bounds["message"]


async def test_a_bug_is_an_internal_error_result(
    client: Client, tools: Tools, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    def broken() -> dict:
        raise KeyError("secret detail")

    monkeypatch.setattr(tools, "list_docs", broken)
    error = error_of(await client.call_tool("list_docs", {}))
    assert error == {"code": "internal", "message": "internal error (KeyError); see the server log"}
    assert "list_docs failed unexpectedly" in caplog.text and "secret detail" in caplog.text


async def test_resources(client: Client) -> None:
    uris = [str(r.uri) for r in (await client.list_resources()).resources]
    assert uris == ["pinax://docs", "pinax://docs/react", "pinax://docs/django"]
    templates = [
        t.uri_template for t in (await client.list_resource_templates()).resource_templates
    ]
    assert "pinax://docs/{name}" in templates

    index = (await client.read_resource("pinax://docs")).contents[0]
    assert index.mime_type == "text/markdown" and "- react: React" in index.text
    overview = (await client.read_resource("pinax://docs/django")).contents[0].text
    assert "667 pages" in overview and "- /en/dev/topics: 68 pages" in overview
    section = await client.read_resource("pinax://docs/django/section?path=/en/dev/topics/db")
    assert "Section /en/dev/topics/db in django: 18 pages" in section.contents[0].text
    paged = await client.read_resource("pinax://docs/django/section?path=/&offset=660")
    assert "7 shown" in paged.contents[0].text
    found = await client.read_resource("pinax://docs/react/search?q=useEffect")
    assert "1. useEffect: https://react.dev/reference/react/useEffect" in found.contents[0].text

    with pytest.raises(MCPError, match="did you mean 'react'"):
        await client.read_resource("pinax://docs/reactt")

    names = await client.complete(
        ResourceTemplateReference(type="ref/resource", uri="pinax://docs/{name}"),
        {"name": "name", "value": "dj"},
    )
    assert names.completion.values == ["django"]
    paths = await client.complete(
        ResourceTemplateReference(
            type="ref/resource", uri="pinax://docs/{name}/section{?path,offset}"
        ),
        {"name": "path", "value": "/en/dev/t"},
        context_arguments={"name": "django"},
    )
    assert paths.completion.values == ["/en/dev/topics"]


def slow_site_manifest(tmp_path: Path, site: Site, release: threading.Event) -> Path:
    def slow(_request: Request) -> Reply:
        release.wait(10)
        return Reply(200, b"# Slow\n\nFinally.", {"Content-Type": "text/markdown"})

    site.add("/slow", slow)
    manifest = tmp_path / "slow.json"
    pages = [{"url": site.url("/slow"), "title": "Slow"}]
    manifest.write_text(
        json.dumps({"pinax_manifest": 1, "name": "slow", "url": site.url("/"), "pages": pages})
    )
    return manifest


async def test_get_page_reports_progress(
    tmp_path: Path, site: Site, era: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(server, "PROGRESS_EVERY", 0.2)
    release = threading.Event()
    tools = Tools.open([slow_site_manifest(tmp_path, site, release)], cache_dir=tmp_path / "c")
    notes: list[tuple[float, str | None]] = []

    async def on_progress(progress: float, total: float | None, message: str | None) -> None:
        notes.append((progress, message))
        if len(notes) == 2:
            release.set()

    async with Client(create_server(tools, warm=False), mode=era) as client:
        page = await client.call_tool(
            "get_page", {"url": site.url("/slow")}, progress_callback=on_progress
        )
    assert page.structured_content["markdown"].endswith("Finally.")
    assert [p for p, _ in notes] == [1, 2]
    assert notes[0][1] == "Read a page (get_page): 0 s"


async def test_get_page_stops_when_cancelled(
    tmp_path: Path, site: Site, era: str, caplog: pytest.LogCaptureFixture
) -> None:
    release = threading.Event()
    tools = Tools.open([slow_site_manifest(tmp_path, site, release)], cache_dir=tmp_path / "c")
    caplog.set_level(logging.INFO, logger="pinax.server")
    try:
        async with Client(create_server(tools, warm=False), mode=era) as client:
            with anyio.move_on_after(0.5):
                await client.call_tool("get_page", {"url": site.url("/slow")})
            # Cancelled: logged as such (an uncancelled call would end "get_page ok").
            with anyio.fail_after(HANG):
                while "get_page cancelled" not in caplog.text:
                    await anyio.sleep(0.02)
            # The session goes on serving.
            assert not (await client.call_tool("list_docs", {})).is_error
    finally:
        release.set()
    assert "get_page ok" not in caplog.text


def write_manifest(path: Path, name: str, source: Path, pages: int) -> None:
    data = json.loads(source.read_text())
    data["name"] = name
    data["pages"] = data["pages"][:pages]
    path.write_text(json.dumps(data))


@asynccontextmanager
async def resource_changes(client: Client, era: str, heard: anyio.Event) -> AsyncIterator[None]:
    """Set `heard` when the server says the resource list changed (either era's channel)."""
    if era == "legacy":
        yield
        return
    async with client.listen(resources_list_changed=True) as subscription:

        async def wait() -> None:
            async for _ in subscription:
                heard.set()
                return

        async with anyio.create_task_group() as tasks:
            tasks.start_soon(wait)
            yield
            tasks.cancel_scope.cancel()


async def test_live_reload_swaps_docs_and_notifies(
    tmp_path: Path, era: str, caplog: pytest.LogCaptureFixture
) -> None:
    source = shared_path("corpora", "manifests", "react.json")
    folder = tmp_path / "manifests"
    folder.mkdir()
    write_manifest(folder / "react.json", "react", source, 20)
    live = LiveTools(lambda: Tools.open(sorted(folder.glob("*.json"))), [folder], interval=0.05)
    heard = anyio.Event()

    async def on_message(message: object) -> None:
        if isinstance(message, ResourceListChangedNotification):
            heard.set()

    server = create_server(live, warm=False)
    async with Client(server, mode=era, message_handler=on_message) as client:
        assert client.server_capabilities.resources.list_changed is True
        docs = await client.call_tool("list_docs", {})
        assert [d["pages"] for d in docs.structured_content["docs"]] == [20]

        async with resource_changes(client, era, heard):
            write_manifest(folder / "next.json", "next", source, 5)
            with anyio.fail_after(HANG):
                await heard.wait()
        uris = [str(r.uri) for r in (await client.list_resources()).resources]
        assert uris == ["pinax://docs", "pinax://docs/next", "pinax://docs/react"]
        assert not (await client.call_tool("list_sections", {"docs": "next"})).is_error

        # A broken file keeps the loaded docs and says why.
        caplog.set_level(logging.WARNING, logger="pinax.reload")
        (folder / "next.json").write_text('{"pinax_manifest": 1, "name": "next", "pages": [}')
        with anyio.fail_after(HANG):
            while "did not load" not in caplog.text:
                await anyio.sleep(0.05)
        assert "next.json" in caplog.text
        assert not (await client.call_tool("list_sections", {"docs": "next"})).is_error
        assert live.reloads == 1

        # Fixed, it loads; removed, it goes.
        write_manifest(folder / "next.json", "next", source, 7)
        assert await pages_after_reload(client, live, 2) == {"next": 7, "react": 20}
        (folder / "next.json").unlink()
        assert await pages_after_reload(client, live, 3) == {"react": 20}


async def pages_after_reload(client: Client, live: LiveTools, reloads: int) -> dict[str, int]:
    with anyio.fail_after(HANG):
        while live.reloads < reloads:
            await anyio.sleep(0.05)
    docs = (await client.call_tool("list_docs", {})).structured_content["docs"]
    return {d["name"]: d["pages"] for d in docs}


def test_stopping_waits_for_native_warm_up_work_and_then_refuses_more() -> None:
    """The page reader's TLS context is loaded inside OpenSSL on the warm-up thread: a server
    stopping then waits for it (exiting under it crashed the process in OpenSSL's exit
    handlers), and once stopping, no such work starts."""
    native = server._NativeWork()
    inside, release, done = threading.Event(), threading.Event(), []

    def work() -> None:
        inside.set()
        release.wait(5)
        done.append("first")

    warming = threading.Thread(target=native.run, args=(work,))
    warming.start()
    assert inside.wait(5)
    stopping = threading.Thread(target=native.stop)
    stopping.start()
    time.sleep(0.1)
    assert stopping.is_alive()  # waits for the work under way
    release.set()
    stopping.join(5)
    warming.join(5)
    assert not stopping.is_alive() and done == ["first"]
    native.run(lambda: done.append("after"))
    assert done == ["first"]
