"""`pinax serve --http` as a subprocess: both protocol eras, the token, Host/Origin checks,
/health, start-up refusals, logs, and live reload notifications over HTTP."""

from __future__ import annotations

import json
import subprocess
from collections.abc import Iterator
from pathlib import Path

import anyio
import httpx
import httpx2
import pytest
from mcp import Client
from mcp.client.streamable_http import streamable_http_client
from mcp.types import ResourceListChangedNotification

from tests.conftest import shared_path
from tests.support.serving import (
    INITIALIZE,
    MCP_HEADERS,
    Served,
    pinax_command,
    served_http,
    server_env,
)
from tests.support.work import HANG

TOKEN = "a-test-token-that-is-long-enough"


@pytest.fixture(scope="module")
def react() -> Path:
    return shared_path("corpora", "manifests", "react.json")


@pytest.fixture(scope="module")
def open_server(react: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Served]:
    cache = tmp_path_factory.mktemp("cache")
    with served_http(
        "--docs", str(react), "--cache-dir", str(cache), "--log-level", "info"
    ) as served:
        yield served


@pytest.fixture(scope="module")
def guarded_server(react: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Served]:
    cache = tmp_path_factory.mktemp("cache")
    args = ["--docs", str(react), "--cache-dir", str(cache), "--allow-host", "docs.example"]
    with served_http(*args, env={"PINAX_TOKEN": TOKEN}) as served:
        yield served


@pytest.mark.anyio
@pytest.mark.parametrize("era", ["auto", "legacy"])
async def test_both_eras_over_http(open_server: Served, era: str) -> None:
    async with Client(open_server.url, mode=era) as client:
        assert client.protocol_version == ("2026-07-28" if era == "auto" else "2025-11-25")
        assert len((await client.list_tools()).tools) == 5
        found = await client.call_tool("search_pages", {"query": "useState hook", "limit": 2})
        assert found.structured_content["results"][0]["title"] == "useState"
        failed = await client.call_tool("list_sections", {"docs": "reactt"})
        assert failed.is_error and json.loads(failed.content[0].text)["error"]["code"] == (
            "not_found"
        )
        uris = [str(r.uri) for r in (await client.list_resources()).resources]
        assert uris == ["pinax://docs", "pinax://docs/react"]
    # Info logs: tool name, outcome and time, nothing of the request.
    log = open_server.log_text()
    assert "search_pages ok in" in log and "list_sections error not_found in" in log
    assert "useState" not in log and "reactt" not in log and "session ID" not in log


def test_health_answers_without_auth(guarded_server: Served) -> None:
    health = httpx.get(f"{guarded_server.base}/health")
    assert health.status_code == 200
    assert health.json() == {"status": "ok", "version": "0.1.0", "docs": 1}


def test_http_refuses_without_the_token(guarded_server: Served) -> None:
    url = guarded_server.url
    missing = httpx.post(url, json=INITIALIZE, headers=MCP_HEADERS)
    assert missing.status_code == 401 and missing.headers["www-authenticate"].startswith("Bearer")
    wrong = httpx.post(
        url, json=INITIALIZE, headers={**MCP_HEADERS, "Authorization": "Bearer nope"}
    )
    assert wrong.status_code == 401
    almost = {**MCP_HEADERS, "Authorization": f"Bearer {TOKEN[:-1]}"}
    assert httpx.post(url, json=INITIALIZE, headers=almost).status_code == 401
    basic = {**MCP_HEADERS, "Authorization": f"Basic {TOKEN}"}
    assert httpx.post(url, json=INITIALIZE, headers=basic).status_code == 401
    right = {**MCP_HEADERS, "Authorization": f"Bearer {TOKEN}"}
    assert httpx.post(url, json=INITIALIZE, headers=right).status_code == 200


def test_http_refuses_foreign_origin_and_host(guarded_server: Served) -> None:
    headers = {**MCP_HEADERS, "Authorization": f"Bearer {TOKEN}"}
    port = guarded_server.url.split(":")[2].split("/")[0]
    origin = httpx.post(
        guarded_server.url, json=INITIALIZE, headers={**headers, "Origin": "https://evil.example"}
    )
    assert origin.status_code == 403
    host = httpx.post(
        guarded_server.url, json=INITIALIZE, headers={**headers, "Host": f"evil.example:{port}"}
    )
    assert host.status_code == 421
    allowed = httpx.post(
        guarded_server.url, json=INITIALIZE, headers={**headers, "Host": f"docs.example:{port}"}
    )
    assert allowed.status_code == 200
    local = {**headers, "Origin": f"http://localhost:{port}"}
    assert httpx.post(guarded_server.url, json=INITIALIZE, headers=local).status_code == 200


@pytest.mark.anyio
async def test_a_client_with_the_token_works(guarded_server: Served) -> None:
    http = httpx2.AsyncClient(headers={"Authorization": f"Bearer {TOKEN}"})
    async with http, Client(streamable_http_client(guarded_server.url, http_client=http)) as client:
        result = await client.call_tool("list_docs", {})
        assert result.structured_content["docs"][0]["name"] == "react"


def run_serve(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        pinax_command(*args), capture_output=True, text=True, timeout=30, env=server_env()
    )


def test_serving_beyond_loopback_needs_a_token(react: Path) -> None:
    refused = run_serve("--http", "--host", "0.0.0.0", "--port", "0", "--docs", str(react))
    assert refused.returncode == 2
    assert "a bearer token is required: set PINAX_TOKEN" in refused.stderr
    short = run_serve("--http", "--token", "short", "--port", "0", "--docs", str(react))
    assert short.returncode == 2 and "at least 16 characters" in short.stderr


def test_start_up_says_a_token_is_required(react: Path) -> None:
    with served_http(
        "--host", "0.0.0.0", "--docs", str(react), env={"PINAX_TOKEN": TOKEN}
    ) as served:
        startup = served.log_text()
        assert "serving MCP at http://0.0.0.0:" in startup
        assert "needs 'Authorization: Bearer <token>'" in startup
        root = httpx.get(f"http://127.0.0.1:{served.url.split(':')[2]}")
        assert root.status_code == 401  # anything but /health needs the token


@pytest.mark.anyio
async def test_reload_notifies_both_eras_over_http(react: Path, tmp_path: Path) -> None:
    folder = tmp_path / "manifests"
    folder.mkdir()
    (folder / "react.json").write_bytes(react.read_bytes())
    heard_legacy = anyio.Event()

    async def on_message(message: object) -> None:
        if isinstance(message, ResourceListChangedNotification):
            heard_legacy.set()

    # Handshake-era clients hear of changes in a session of their own: --sessions.
    with served_http("--docs", str(folder), "--watch-interval", "0.1", "--sessions") as served:
        async with (
            Client(served.url, mode="legacy", message_handler=on_message) as legacy,
            Client(served.url) as modern,
        ):
            assert legacy.server_capabilities.resources.list_changed is True
            await legacy.list_tools()  # opens the standalone stream
            async with modern.listen(resources_list_changed=True) as events:
                django = shared_path("corpora", "manifests", "django.json")
                (folder / "django.json").write_bytes(django.read_bytes())
                with anyio.fail_after(HANG):
                    async for _ in events:
                        break
                    await heard_legacy.wait()
            for client in (legacy, modern):
                uris = [str(r.uri) for r in (await client.list_resources()).resources]
                assert "pinax://docs/django" in uris
