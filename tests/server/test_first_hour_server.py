"""Issue 38, the server's part of a newcomer's first hour, through a real MCP client on a
real `pinax serve` over stdio (or the in-process server where only the tools' answers
matter), against the shipped manifests."""

from __future__ import annotations

import json

import pytest
from mcp import Client

from tests.serving import ROOT, stdio_params

pytestmark = pytest.mark.anyio
STRIPE = str(ROOT / "manifests" / "stripe.json")


def error_of(result) -> dict:
    assert result.is_error and result.structured_content is None, result
    return json.loads(result.content[0].text)["error"]


# Item 3: an unknown tool answers in the same error shape as every other failure ------------


async def test_an_unknown_tool_is_a_not_found_error(tmp_path) -> None:
    params = stdio_params("--docs", STRIPE, env={"PINAX_CACHE_DIR": str(tmp_path)})
    async with Client(params) as client:
        error = error_of(await client.call_tool("search_page", {"query": "refund"}))
        assert error["code"] == "not_found"
        assert error["message"].startswith("no tool named 'search_page' (did you mean ")
        assert "search_pages" in error["message"]
        long = error_of(await client.call_tool("x" * 5000, {}))
        assert long["code"] == "not_found" and len(long["message"]) < 400, long
