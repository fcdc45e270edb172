"""Issue 38, the server's part of a newcomer's first hour, through a real MCP client on a
real `pinax serve` over stdio (or the in-process server where only the tools' answers
matter), against the shipped manifests."""

from __future__ import annotations

import json
import shutil

import pytest
from mcp import Client

from pinax.server.app import create_server
from pinax.server.reload import LiveTools
from pinax.tools import Tools
from tests.support.serving import ROOT, stdio_params

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


# Item 5: a failed live reload is visible to the model: list_docs marks the stale set --------


async def test_a_failed_reload_marks_the_set_stale_in_list_docs(tmp_path) -> None:
    folder = tmp_path / "manifests"
    folder.mkdir()
    for name in ("stripe", "textual"):
        shutil.copy(ROOT / "manifests" / f"{name}.json", folder / f"{name}.json")
    live = LiveTools(
        lambda: Tools.open(sorted(folder.glob("*.json")), cache_dir=tmp_path / "c"),
        [folder],
        interval=3600,
    )
    async with Client(create_server(live, warm=False)) as client:
        docs = (await client.call_tool("list_docs", {})).structured_content["docs"]
        assert [d.get("stale") for d in docs] == [None, None]

        (folder / "stripe.json").write_text('{"pinax_manifest": 1, "name": "stripe", "pages": [}')
        assert await live.check() is False  # kept the loaded docs
        result = await client.call_tool("list_docs", {})
        docs = {d["name"]: d for d in result.structured_content["docs"]}
        assert set(docs) == {"stripe", "textual"}
        stale = docs["stripe"]["stale"]
        assert "stripe.json" in stale["error"] and stale["since"].endswith("Z"), stale
        assert "stale" not in docs["textual"]
        assert "stale" in result.content[0].text  # the text a model reads says it too

        shutil.copy(ROOT / "manifests" / "stripe.json", folder / "stripe.json")
        assert await live.check() is True
        docs = (await client.call_tool("list_docs", {})).structured_content["docs"]
        assert [d.get("stale") for d in docs] == [None, None]
