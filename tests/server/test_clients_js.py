"""Pinax through the official third-party clients: the MCP Inspector CLI, the TypeScript SDK
client and the MCP conformance suite, over stdio and streamable HTTP.

The Node packages come from tests/js (`npm ci` there; .ci/run does it). A developer without
them gets a skip that says so; with PINAX_REQUIRE_NODE=1 (set by .ci/run) a missing client is
a failure, never a silent skip.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.conftest import SHARED
from tests.support.http_site import Reply, Site
from tests.support.serving import (
    MCP_HEADERS,
    ROOT,
    Served,
    child_env,
    pinax_command,
    served_http,
    server_env,
)

JS = ROOT / "tests" / "js"
MODULES = JS / "node_modules"
INSPECTOR = MODULES / "@modelcontextprotocol" / "inspector" / "clients" / "launcher" / "build"
CONFORMANCE = MODULES / "@modelcontextprotocol" / "conformance" / "dist" / "index.js"
TOKEN = "js-clients-test-token-0123456789"
# Conformance scenarios that apply to a server like Pinax (the others call fixture tools,
# prompts and resources that only the suite's reference server has).
SCENARIOS = (
    "server-initialize",
    "ping",
    "tools-list",
    "resources-list",
    "prompts-list",
    "server-sse-multiple-streams",
    "dns-rebinding-protection",
)
SLOW_SECONDS = 1.4  # the slow page: long enough for one progress notification


NPM_CI = "(cd tests/js && npm ci)"


def unavailable(reason: str) -> None:
    if os.environ.get("PINAX_REQUIRE_NODE") == "1":
        pytest.fail(f"{reason} (PINAX_REQUIRE_NODE=1: the Node clients must be installed)")
    pytest.skip(f"{reason}: the Node clients are installed by {NPM_CI}")


def shared_for_node(*parts: str) -> Path:
    """Shared data for a Node client test; its skip says the Node clients are needed too
    (else a developer who sets PINAX_SHARED meets a second skip only then)."""
    path = SHARED.joinpath(*parts)
    if not path.exists():
        node = "installed" if MODULES.is_dir() else f"not installed yet: {NPM_CI}"
        pytest.skip(
            f"real data not found at {path} (set PINAX_SHARED to the shared folder); "
            f"these tests also need the Node clients ({node})"
        )
    return path


def node_version(node: str) -> int:
    try:
        out = subprocess.run([node, "--version"], capture_output=True, text=True, timeout=30)
    except OSError:
        return 0
    return int(out.stdout.strip().lstrip("v").split(".")[0] or 0) if out.returncode == 0 else 0


def find_node(minimum: int) -> str:
    """Node from tests/js (the node-* package pins 22) or from PATH, if recent enough."""
    for candidate in (MODULES / ".bin" / "node", shutil.which("node")):
        if candidate and node_version(str(candidate)) >= minimum:
            return str(candidate)
    unavailable(f"no Node >= {minimum} found")
    raise AssertionError  # unreachable: unavailable() fails or skips


def require(path: Path) -> Path:
    if not path.exists():
        unavailable(f"{path.relative_to(ROOT)} is missing")
    return path


@pytest.fixture(scope="module")
def docs(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Site, list[str]]]:
    """react.json plus a manifest of a loopback site, so get_page reads a real page."""
    react = shared_for_node("corpora", "manifests", "react.json")
    folder = tmp_path_factory.mktemp("docs")
    with Site() as site:
        site.add(
            "/guide/",
            Reply(
                200, b"<main><h1>Guide</h1><p>Read me.</p></main>", {"Content-Type": "text/html"}
            ),
        )

        def slow(_request: Any) -> Reply:
            time.sleep(SLOW_SECONDS)
            return Reply(200, b"# Slow\n\nFinally.", {"Content-Type": "text/markdown"})

        site.add("/slow", slow)
        pages = [{"url": site.url(p), "title": p.strip("/")} for p in ("/guide/", "/slow")]
        local = folder / "local.json"
        manifest = {"pinax_manifest": 1, "name": "local", "url": site.url("/"), "pages": pages}
        local.write_text(json.dumps(manifest))
        yield site, ["--docs", str(react), "--docs", str(local)]


@pytest.fixture(scope="module")
def tokened(
    docs: tuple[Site, list[str]], tmp_path_factory: pytest.TempPathFactory
) -> Iterator[Served]:
    """An HTTP server that wants the token; only the TypeScript test reads the slow page."""
    cache = tmp_path_factory.mktemp("cache")
    with served_http(*docs[1], "--cache-dir", str(cache), env={"PINAX_TOKEN": TOKEN}) as served:
        yield served


def tool_calls(site: Site) -> list[dict[str, Any]]:
    """One successful call of each tool, then an error result."""
    return [
        {"name": "list_docs", "arguments": {}},
        {"name": "list_sections", "arguments": {"docs": "react"}},
        {"name": "search_pages", "arguments": {"query": "useState hook", "limit": 3}},
        {"name": "get_section_pages", "arguments": {"section": "/learn", "docs": "react"}},
        {"name": "get_page", "arguments": {"url": site.url("/guide/")}},
        {"name": "list_sections", "arguments": {"docs": "reactt"}},
    ]


# The MCP Inspector CLI -------------------------------------------------------------------


def inspector(target: list[str], *args: str, home: Path) -> tuple[int, dict[str, Any]]:
    node = find_node(20)
    launcher = require(INSPECTOR / "index.js")
    env = {
        **os.environ,
        "HOME": str(home),  # the Inspector keeps a catalog and settings in ~/.mcp-inspector
        "MCP_CATALOG_PATH": str(home / "catalog.json"),
        "MCP_CLIENT_CONFIG_PATH": str(home / "client.json"),
    }
    # A loaded CI box can take a while to start a stdio server: give it a minute.
    options = ["--cli", "--format", "json", "-q", "--connect-timeout", "60000"]
    command = [node, str(launcher), *options, *target, *args]
    done = subprocess.run(command, capture_output=True, text=True, timeout=120, env=env)
    output = done.stdout.strip() or done.stderr.strip()
    try:
        return done.returncode, json.loads(output.splitlines()[-1])
    except (json.JSONDecodeError, IndexError):
        message = f"Inspector exit {done.returncode}: {done.stdout}\n{done.stderr}"
        raise AssertionError(message) from None


def inspector_runs(site: Site, modern: bool) -> list[tuple[str, list[str]]]:
    """tools/list, a call of each tool, an error result, resources/list; `modern` adds one
    call in the 2026-07-28 era (the Python client covers that era over stdio)."""
    runs = [("tools/list", ["--method", "tools/list"])]
    for call in tool_calls(site):
        arguments = json.dumps(call["arguments"])
        runs.append(
            (
                f"tools/call {call['name']} {arguments}",
                [
                    "--method",
                    "tools/call",
                    "--tool-name",
                    call["name"],
                    "--tool-args-json",
                    arguments,
                ],
            )
        )
    runs.append(("resources/list", ["--method", "resources/list"]))
    if modern:
        call = ["--protocol-era", "modern", "--method", "tools/call", "--tool-name", "search_pages"]
        runs.append(("modern search_pages", [*call, "--tool-args-json", '{"query": "refs"}']))
    return runs


def check_inspector(outcomes: dict[str, tuple[int, dict[str, Any]]]) -> None:
    status, listed = outcomes["tools/list"]
    assert status == 0
    tools = {tool["name"]: tool for tool in listed["result"]["tools"]}
    assert set(tools) == {
        "list_docs",
        "list_sections",
        "search_pages",
        "get_section_pages",
        "get_page",
    }
    assert tools["get_page"]["annotations"]["openWorldHint"] is True
    assert tools["search_pages"]["outputSchema"]["properties"]["results"]["type"] == "array"
    calls = {label: result for label, result in outcomes.items() if label.startswith("tools/call")}
    for label, (status, body) in calls.items():
        if "reactt" in label:
            # Exit 5: the tool answered with isError, its text the error JSON, accepted as is.
            assert status == 5, body
            result = body["result"]
            assert result["isError"] is True and "structuredContent" not in result
            assert json.loads(result["content"][0]["text"])["error"]["code"] == "not_found"
            continue
        assert status == 0, (label, body)
        result = body["result"]
        assert result["isError"] is False and result["structuredContent"], label
    status, body = next(value for label, value in calls.items() if "search_pages" in label)
    assert body["result"]["structuredContent"]["results"][0]["title"] == "useState"
    status, body = next(value for label, value in calls.items() if "get_page" in label)
    assert "Read me." in body["result"]["structuredContent"]["markdown"]
    status, resources = outcomes["resources/list"]
    assert status == 0
    uris = [r["uri"] for r in resources["result"]["resources"]]
    assert uris == ["pinax://docs", "pinax://docs/react", "pinax://docs/local"]
    if "modern search_pages" in outcomes:
        status, modern = outcomes["modern search_pages"]
        assert status == 0 and modern["result"]["structuredContent"]["query"] == "refs"


def run_all(runs: list[tuple[str, list[str]]], target: list[str], home: Path) -> dict:
    """The first run alone (it warms the caches a fresh checkout has cold), the rest 3 at once."""
    (label, args), rest = runs[0], runs[1:]
    outcomes = {label: inspector(target, *args, home=home)}
    with ThreadPoolExecutor(3) as pool:
        futures = {label: pool.submit(inspector, target, *args, home=home) for label, args in rest}
        return outcomes | {label: future.result() for label, future in futures.items()}


def test_inspector_over_stdio(docs: tuple[Site, list[str]], tmp_path: Path) -> None:
    site, args = docs
    variables = [f"{k}={v}" for k, v in child_env().items()]
    target = [
        *(flag for v in variables for flag in ("-e", v)),
        *pinax_command(*args, "--cache-dir", str(tmp_path)),
    ]
    check_inspector(run_all(inspector_runs(site, modern=False), target, tmp_path))


def test_inspector_over_http(docs: tuple[Site, list[str]], tokened: Served, tmp_path: Path) -> None:
    site, _ = docs
    target = [tokened.url, "--header", f"Authorization: Bearer {TOKEN}"]
    check_inspector(run_all(inspector_runs(site, modern=True), target, tmp_path))
    # Without the token the server answers 401, and the Inspector asks for credentials.
    status, body = inspector(
        [tokened.url, "--stored-auth-only"], "--method", "tools/list", home=tmp_path
    )
    assert status != 0 and body["error"]["code"] == "auth_required", body
    # ... and shows what the 401 said: a bearer token in the headers, no OAuth (issue 38).
    assert "Authorization: Bearer <token>" in body["error"]["message"], body
    assert "no OAuth" in body["error"]["message"], body


def test_a_401_advertises_no_oauth(tokened: Served) -> None:
    """Issue 38 item 4: nothing in a 401 starts OAuth discovery (the MCP authorization spec's
    `resource_metadata`), no well-known metadata is served, and the body says what to send."""
    refused = httpx.post(tokened.url, json={}, headers=MCP_HEADERS)
    assert refused.status_code == 401
    assert "resource_metadata" not in refused.headers.get("www-authenticate", "")
    message = refused.json()["message"]
    assert "'Authorization: Bearer <token>'" in message and "no OAuth" in message, message
    for path in (
        "/.well-known/oauth-protected-resource",
        "/.well-known/oauth-protected-resource/mcp",
        "/.well-known/oauth-authorization-server",
    ):
        answer = httpx.get(tokened.base + path)
        assert answer.status_code in (401, 404), (path, answer.status_code)
        assert "authorization_servers" not in answer.text and "issuer" not in answer.text


# The TypeScript SDK client ---------------------------------------------------------------


def ts_client(plan: dict[str, Any]) -> dict[str, Any]:
    node = find_node(20)
    require(MODULES / "@modelcontextprotocol" / "sdk")
    done = subprocess.run(
        [node, str(JS / "ts_client.mjs"), json.dumps(plan)],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=JS,
    )
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def check_ts_report(report: dict[str, Any], site: Site) -> None:
    assert report["server"]["name"] == "pinax"
    assert report["capabilities"]["completions"] == {}
    assert "search_pages" in report["instructions"]
    tools = {tool["name"]: tool for tool in report["tools"]}
    assert all(tool["hasOutputSchema"] for tool in tools.values())
    assert tools["get_page"]["annotations"]["openWorldHint"] is True
    assert tools["search_pages"]["annotations"]["readOnlyHint"] is True
    calls = report["calls"]
    assert [c["isError"] for c in calls] == [False] * 5 + [True, False]
    error = json.loads(calls[5]["text"])["error"]
    assert error == {
        "code": "not_found",
        "message": "no manifest named 'reactt' (did you mean 'react'?)",
    }
    assert calls[5]["structured"] is None
    assert (
        calls[2]["structured"]["results"][0]["url"] == "https://react.dev/reference/react/useState"
    )
    assert calls[2]["text"].startswith("3 results for 'useState hook':")
    assert calls[4]["structured"]["url"] == site.url("/guide/")
    slow = calls[6]
    assert slow["structured"]["markdown"].endswith("Finally.") and slow["progress"] >= 1
    assert report["resources"] == ["pinax://docs", "pinax://docs/react", "pinax://docs/local"]
    assert "pinax://docs/{name}/search{?q}" in report["templates"]
    assert "- react: React" in report["reads"][0]["text"]


def ts_plan(site: Site) -> dict[str, Any]:
    calls = [*tool_calls(site), {"name": "get_page", "arguments": {"url": site.url("/slow")}}]
    calls[-1]["progress"] = True
    return {"calls": calls, "read": ["pinax://docs"]}


def test_typescript_sdk_over_stdio(docs: tuple[Site, list[str]], tmp_path: Path) -> None:
    site, args = docs
    command = pinax_command(*args, "--cache-dir", str(tmp_path / "cache"))
    plan = ts_plan(site) | {
        "transport": "stdio",
        "command": command[0],
        "args": command[1:],
        "env": {**child_env(), "PATH": os.environ.get("PATH", "")},
    }
    check_ts_report(ts_client(plan), site)


def test_typescript_sdk_over_http(docs: tuple[Site, list[str]], tokened: Served) -> None:
    site, _ = docs
    plan = ts_plan(site) | {"transport": "http", "url": tokened.url, "token": TOKEN}
    check_ts_report(ts_client(plan), site)


# The conformance suite -------------------------------------------------------------------


@pytest.mark.parametrize("mode", ["stateless", "sessions"])
def test_conformance_scenarios(docs: tuple[Site, list[str]], tmp_path: Path, mode: str) -> None:
    """The suite against both HTTP modes. Stateless (the default) opens no session, so the
    one scenario that needs a session id says so with a warning, and nothing else."""
    node = find_node(22)
    suite = require(CONFORMANCE)
    extra = ["--sessions"] if mode == "sessions" else []
    with served_http(*docs[1], "--cache-dir", str(tmp_path / "cache"), *extra) as served:
        subprocess.run(
            [
                node,
                str(suite),
                "server",
                "--url",
                served.url,
                "--suite",
                "all",
                "-o",
                str(tmp_path),
            ],
            capture_output=True,
            text=True,
            timeout=300,
            env=server_env(),
        )
    for scenario in SCENARIOS:
        found = list(tmp_path.glob(f"server-{scenario}-*/checks.json"))
        assert found, f"the suite ran no scenario {scenario}"
        checks = json.loads(found[0].read_text())
        statuses = {check["status"] for check in checks}
        if mode == "stateless" and scenario == "server-sse-multiple-streams":
            assert [(c["id"], c["status"]) for c in checks] == [
                ("server-sse-multiple-streams-session", "WARNING")
            ], checks
            continue
        assert "SUCCESS" in statuses and statuses <= {"SUCCESS", "INFO"}, (scenario, checks)
