"""`pinax serve --http` stateless by default (issue 39): real clients of both protocol eras,
an older-protocol client with no session, JSON answers and SSE only for a call that streams,
/health and /ready without the token, and the forwarded headers of a trusted proxy."""

from __future__ import annotations

import json
from pathlib import Path

import httpx
import pytest
from mcp import Client

from tests.support.serving import INITIALIZE, MCP_HEADERS, run_pinax, served_http

TOKEN = "stateless-test-token-0123456789"
DRF = Path(__file__).resolve().parents[2] / "manifests" / "drf.json"


def _call(number: int, version: str, meta: dict | None = None) -> tuple[dict, dict]:
    params: dict = {"name": "search_pages", "arguments": {"docs": "drf", "query": "serializers"}}
    if meta:
        params["_meta"] = meta
    body = {"jsonrpc": "2.0", "id": number, "method": "tools/call", "params": params}
    return body, {**MCP_HEADERS, "mcp-protocol-version": version}


def _hello(version: str) -> dict:
    return {**INITIALIZE, "params": {**INITIALIZE["params"], "protocolVersion": version}}


@pytest.mark.anyio
@pytest.mark.parametrize("mode", ["auto", "legacy"])
async def test_the_python_sdk_client_in_both_eras(mode: str) -> None:
    with served_http("--docs", str(DRF)) as served:
        async with Client(served.url, mode=mode) as client:
            found = await client.call_tool("search_pages", {"query": "serializers", "limit": 2})
            assert not found.is_error
            assert "erializer" in found.structured_content["results"][0]["title"]
            assert len((await client.list_tools()).tools) == 5


@pytest.mark.parametrize("version", ["2025-06-18", "2025-11-25"])
def test_an_older_protocol_client_needs_no_session(version: str) -> None:
    """Its `initialize` is answered (in its own version), no session id is given, and its
    calls are answered without one: any replica can answer them."""
    with served_http("--docs", str(DRF)) as served:
        hello = httpx.post(served.url, json=_hello(version), headers=MCP_HEADERS)
        assert hello.status_code == 200 and "mcp-session-id" not in hello.headers
        assert hello.json()["result"]["protocolVersion"] == version
        body, headers = _call(2, version)
        answer = httpx.post(served.url, json=body, headers=headers)
        assert answer.status_code == 200
        assert answer.headers["content-type"] == "application/json"
        assert answer.json()["result"]["structuredContent"]["results"]


def test_json_answers_and_sse_only_for_a_call_that_streams() -> None:
    with served_http("--docs", str(DRF)) as served:
        body, headers = _call(3, "2025-11-25")
        plain = httpx.post(served.url, json=body, headers=headers)
        assert plain.headers["content-type"] == "application/json"
        body, headers = _call(4, "2025-11-25", {"progressToken": "p1"})
        streamed = httpx.post(served.url, json=body, headers=headers)
        assert streamed.headers["content-type"].startswith("text/event-stream")
        data = [line for line in streamed.text.splitlines() if line.startswith("data: ")]
        assert json.loads(data[-1][6:])["result"]["structuredContent"]["results"]


def test_health_and_ready_answer_without_the_token_and_say_nothing_secret() -> None:
    with served_http("--docs", str(DRF), env={"PINAX_TOKEN": TOKEN}) as served:
        health = httpx.get(f"{served.base}/health")
        assert health.status_code == 200 and health.json()["status"] == "ok"
        ready = httpx.get(f"{served.base}/ready")
        assert ready.status_code == 200
        state = ready.json()
        assert state["ready"] is True and state["docs"] == 1 and state["pages"] == 70
        assert len(state["generation"]) == 12
        assert set(state) == {"ready", "generation", "docs", "pages", "content_pending"}
        for text in (health.text, ready.text):
            assert TOKEN not in text and "/" not in text  # no token, no paths
        refused = httpx.post(served.url, json=INITIALIZE, headers=MCP_HEADERS)
        assert refused.status_code == 401


def _forwarded(url: str, public: str) -> int:
    port = url.split(":")[2].split("/")[0]
    headers = {
        **MCP_HEADERS,
        "Host": f"pinax-replica-2:{port}",  # the name the proxy used for this replica
        "X-Forwarded-Host": public,
        "X-Forwarded-For": "203.0.113.7",
        "X-Forwarded-Proto": "https",
        "Origin": f"https://{public}",
    }
    return httpx.post(url, json=INITIALIZE, headers=headers).status_code


def test_behind_a_trusted_proxy_the_public_name_is_checked() -> None:
    args = ["--docs", str(DRF), "--allow-host", "docs.example.com"]
    args += ["--allow-origin", "https://docs.example.com"]
    with served_http(*args, "--forwarded-allow-ips", "127.0.0.1") as trusted:
        assert _forwarded(trusted.url, "docs.example.com") == 200
        assert _forwarded(trusted.url, "evil.example") == 421
    with served_http(*args, "--forwarded-allow-ips", "10.0.0.0/8") as untrusted:
        # Loopback is no proxy it trusts: the headers are ignored, the Host is refused.
        assert _forwarded(untrusted.url, "docs.example.com") == 421
    with served_http(*args) as plain:
        assert _forwarded(plain.url, "docs.example.com") == 421


def test_a_bad_forwarded_allow_ips_is_refused_at_start_up() -> None:
    refused = run_pinax("serve", "--http", "--docs", str(DRF), "--forwarded-allow-ips", "10.0.0/x")
    assert refused.returncode == 2
    assert "--forwarded-allow-ips '10.0.0/x' is not an address or a network" in refused.stderr
