"""Versions and projects through a real MCP client over stdio (`pinax serve` as a subprocess,
the SDK's ClientSession): list_docs' versions, labelled hits, a refusal as an isError result,
`--project` as the default scope, and a client's roots as projects (read when it declares the
capability, again after roots/list_changed; never asked when it does not)."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest
from mcp import ClientSession, StdioServerParameters, types
from mcp.client.stdio import stdio_client

from bench.quality.versions import build_manifests
from tests.conftest import shared_path

pytestmark = pytest.mark.anyio
ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="session")
def manifests(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    shared_path("corpora", "versions", "django-5.2.19-docs.tar.gz")
    return build_manifests(tmp_path_factory.getbasetemp() / "django-versions")


def _params(manifests: dict[str, Path], cache: Path, *extra: str) -> StdioServerParameters:
    docs = [arg for path in manifests.values() for arg in ("--docs", str(path))]
    return StdioServerParameters(
        command=sys.executable,
        args=["-m", "pinax", "serve", *docs, "--cache-dir", str(cache), *extra],
        env={"PYTHONPATH": str(ROOT)},
    )


async def _call(session: ClientSession, name: str, **arguments) -> types.CallToolResult:
    return await session.call_tool(name, arguments)


def _data(result: types.CallToolResult) -> dict:
    assert not result.is_error, result.content[0].text
    return result.structured_content


async def test_versions_labels_and_refusals_over_stdio(manifests, tmp_path: Path) -> None:
    async with (
        stdio_client(_params(manifests, tmp_path)) as (read, write),
        ClientSession(read, write) as session,
    ):
        await session.initialize()
        listed = _data(await _call(session, "list_docs"))["docs"]
        assert [(d["name"], d["version"]) for d in listed] == [("django", "4.2"), ("django", "5.2")]
        found = await _call(session, "search_pages", query="GeneratedField", docs="django@5.2")
        data = _data(found)
        assert data["version"] == "5.2" and data["versions"] == ["4.2", "5.2"]
        assert "GeneratedField" in data["results"][0]["symbol"]
        assert all(r["version"] == "5.2" for r in data["results"])
        lines = [t for t in found.content[0].text.splitlines() if t[:1].isdigit() and ". " in t]
        assert lines and all("[version 5.2]" in line for line in lines)
        old = _data(await _call(session, "search_pages", query="index_together", ver="4.2"))
        assert old["results"][0]["version"] == "4.2"
        refused = await _call(session, "search_pages", query="GeneratedField", docs="django@3.2")
        assert refused.is_error
        error = json.loads(refused.content[0].text)["error"]
        assert error == {"code": "not_found", "message": "no docs for django 3.2; loaded: 4.2, 5.2"}
        mixed = _data(await _call(session, "search_pages", query="Model field reference"))
        assert {r["version"] for r in mixed["results"]} == {"5.2"}
        assert mixed["highest_only"]["django"]["versions"] == ["4.2", "5.2"]


async def test_project_on_the_command_line_is_the_default_scope(manifests, tmp_path) -> None:
    project = tmp_path / "project"
    project.mkdir()
    (project / "requirements.txt").write_text("Django==4.2.11\n")
    params = _params(manifests, tmp_path / "cache", "--project", str(project))
    async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
        await session.initialize()
        data = _data(await _call(session, "search_pages", query="GeneratedField"))
        assert data["scope"]["project"] == ["django@4.2"]
        assert {r["version"] for r in data["results"]} == {"4.2"}
        chosen = _data(await _call(session, "search_pages", query="GeneratedField", docs="django"))
        assert chosen["version"] == "5.2" and "scope" not in chosen  # docs given wins


@pytest.mark.filterwarnings("ignore:The roots capability is deprecated")
async def test_roots_are_projects_and_a_client_without_them_is_never_asked(
    manifests, tmp_path
) -> None:
    old, new = tmp_path / "old", tmp_path / "new"
    for folder, pin in ((old, "4.2.11"), (new, "5.2.4")):
        folder.mkdir()
        (folder / "requirements.txt").write_text(f"django=={pin}\n")
    roots = [old]
    asked = []

    async def list_roots(_context) -> types.ListRootsResult:
        asked.append(len(asked))
        return types.ListRootsResult(roots=[types.Root(uri=r.as_uri()) for r in roots])

    params = _params(manifests, tmp_path / "cache")
    async with (
        stdio_client(params) as (read, write),
        ClientSession(read, write, list_roots_callback=list_roots) as session,
    ):
        await session.initialize()
        first = _data(await _call(session, "search_pages", query="GeneratedField"))
        assert first["scope"]["project"] == ["django@4.2"]
        assert {r["version"] for r in first["results"]} == {"4.2"}
        again = _data(await _call(session, "list_sections"))
        assert again["scope"]["project"] == ["django@4.2"] and len(asked) == 1  # read once
        roots[:] = [new]
        await session.send_roots_list_changed()
        changed = _data(await _call(session, "search_pages", query="GeneratedField"))
        assert changed["scope"]["project"] == ["django@5.2"] and len(asked) == 2
        assert "GeneratedField" in changed["results"][0]["symbol"]

    logged = tmp_path / "stderr.log"
    params = _params(manifests, tmp_path / "cache", "--log-level", "debug")
    with logged.open("w") as errlog:
        async with (
            stdio_client(params, errlog=errlog) as (read, write),
            ClientSession(read, write) as session,
        ):
            await session.initialize()  # no roots capability: never asked
            plain = _data(await _call(session, "search_pages", query="GeneratedField"))
            assert "scope" not in plain and plain["highest_only"]["django"]["version"] == "5.2"
    log = logged.read_text()
    assert "search_pages ok" in log  # the log is the server's, at a level that shows calls
    assert "roots" not in log
