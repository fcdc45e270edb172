"""Bad arguments: every tool, through the real MCP server, fed what hypothesis can think of.

Random and huge strings, control characters, unicode edge cases, wrong types, missing and
extra fields. No call may crash, hang or come back `internal`; an invalid argument is an
`invalid_args` (or `not_found`, `fetch_failed`) result, and the server answers the next call.
The server runs in process (`mcp.Client(create_server(...))`) for volume; get_page's DNS is a
stub that knows only the loopback site, so no fuzzed URL can reach the internet.

Then `pinax serve` over stdio gets malformed JSON-RPC: garbage lines, broken UTF-8, invalid
requests, a 32 MB line, JSON nested 100,000 deep; it must stay up and answer a valid call.
"""

from __future__ import annotations

import json
import os
import queue
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import anyio
import pytest
from anyio.from_thread import start_blocking_portal
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from mcp import Client

from pinax.library import Library
from pinax.pages import (
    AddressPolicy,
    Fetcher,
    Limits,
    PageCache,
    PageReader,
    UrlPolicy,
    site_origins,
)
from pinax.server import create_server
from pinax.tools import Tools
from tests.conftest import LOOPBACK, ROOT, shared_path
from tests.support.http_site import Reply, Site

EXAMPLES = int(os.environ.get("PINAX_FUZZ_EXAMPLES", "120"))
FUZZ = settings(
    max_examples=EXAMPLES,
    deadline=None,
    database=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
RESULT_CODES = {"invalid_args", "not_found", "fetch_failed"}
REQUIRED = {"search_pages": "query", "get_section_pages": "section", "get_page": "url"}
TOOLS = {
    "list_docs": (),
    "list_sections": ("docs",),
    "search_pages": ("query", "limit", "docs"),
    "get_section_pages": ("section", "docs"),
    "get_page": ("url",),
}

# Text a model could be steered into sending.
EDGES = [
    "",
    " ",
    "\u202eevil",  # right-to-left override
    "\u200b\u200c\u200d\ufeff",  # zero-width and BOM
    "e\u0301\u0301\u0301",  # stacked combining marks
    "\U0001f600\U0001f9d1\u200d\U0001f4bb",  # emoji, ZWJ sequence
    "\uffff\ufffe\U0010ffff",  # noncharacters
    "ｆｕｌｌｗｉｄｔｈ",
    "İıßẞǅ",  # case mapping oddities
    "\x00",
    "\x1b[31mred",
    "line\nbreak\r\n",
    "\ud800",  # lone surrogate (only in process: JSON transports refuse it)
    "null",
    "[1, 2]",
    '{"a": 1}',
    "'; DROP TABLE pages; --",
    "../../../../etc/passwd",
    "%00%2e%2e%2f",
    "${jndi:ldap://x}",
    "<script>alert(1)</script>",
    "react",
    "/reference/react",
    "https://react.dev/reference/react/useState",
]
texts = st.one_of(
    st.sampled_from(EDGES),
    st.text(max_size=60),
    st.text(st.characters(codec="utf-8", categories=["Cc", "Cf", "Zs", "Mn", "So"]), max_size=40),
    st.builds(lambda c, n: c * n, st.characters(), st.integers(400, 200_000)),  # huge
)
scalars = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(),
    st.integers(min_value=2**63, max_value=2**200),
    st.floats(),
    texts,
)
values = st.recursive(
    scalars,
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4)
    ),
    max_leaves=12,
)


@pytest.fixture(scope="module")
def site() -> Iterator[Site]:
    with Site() as running:
        running.add(
            "/docs/intro", Reply(200, b"<main><h1>Intro</h1></main>", {"Content-Type": "text/html"})
        )
        yield running


def wire(tmp: Path, site: Site) -> Tools:
    local = tmp / "local.json"
    local.write_text(
        json.dumps(
            {
                "pinax_manifest": 1,
                "name": "local",
                "url": site.url("/"),
                "pages": [{"url": site.url("/docs/intro"), "title": "Intro"}],
            }
        )
    )
    manifests = shared_path("corpora", "manifests")
    library = Library.load([manifests / "react.json", manifests / "django.json", local])
    addresses = AddressPolicy([LOOPBACK])
    policy = UrlPolicy(site_origins(library.site_urls()), addresses)

    async def no_dns(host: str, port: int) -> list[str]:
        raise OSError(f"no DNS in this test ({host})")

    limits = Limits(total_timeout=5.0)
    fetcher = Fetcher(policy.check, limits, addresses=addresses, resolver=no_dns)
    return Tools(library, PageReader(policy, PageCache(tmp / "cache"), fetcher))


@pytest.fixture(scope="module")
def call(tmp_path_factory: pytest.TempPathFactory, site: Site) -> Iterator[Callable]:
    """call(name, args) -> CallToolResult, through one in-process MCP session."""
    tools = wire(tmp_path_factory.mktemp("fuzz"), site)
    session = Client(create_server(tools, warm=False))
    with start_blocking_portal() as portal, portal.wrap_async_context_manager(session) as client:

        async def within_deadline(name: str, args: dict[str, Any]):
            with anyio.fail_after(30):  # a hang fails the test
                return await client.call_tool(name, args)

        yield lambda name, args: portal.call(within_deadline, name, args)


def check(call: Callable, name: str, args: dict[str, Any]) -> None:
    result = call(name, args)
    text = result.content[0].text if result.content else ""
    if not result.is_error:
        assert isinstance(result.structured_content, dict), (name, args, text)
        return
    if text.startswith(f"Error executing tool {name}: "):
        # The SDK rejects a call without a required argument before Pinax sees it.
        assert REQUIRED.get(name) not in args and "Field required" in text, (name, args, text)
        return
    error = json.loads(text)["error"]
    assert error["code"] in RESULT_CODES, (name, args, error)
    assert error["message"], (name, args)


# Per argument: near-valid values too, so the tools' own paths run, not only the refusals.
PLAUSIBLE = {
    "query": texts,
    "limit": st.integers(-3, 60) | st.sampled_from(["5", " 7 ", "1e3", 5.0, 5.5, True]),
    "docs": st.sampled_from(["react", "django", "local", "reactt", "", "REACT"]),
    "section": st.sampled_from(["/", "/reference", "/en/dev/topics", "/learn/", "reference"]),
    "url": st.sampled_from(["https://react.dev/learn", "https://react.dev/lern", "/learn"]),
}


def arguments(name: str) -> st.SearchStrategy[dict[str, Any]]:
    """The tool's own argument names (some left out) with any values, plus stray fields."""
    known = TOOLS[name]
    chosen = st.fixed_dictionaries({}, optional={key: PLAUSIBLE[key] | values for key in known})
    extra = st.dictionaries(
        st.text(max_size=10).filter(lambda k: k not in known), values, max_size=3
    )
    return st.builds(lambda a, b: {**b, **a}, chosen, extra)


@pytest.mark.parametrize("name", TOOLS)
def test_any_arguments_get_an_answer_never_internal(call: Callable, name: str) -> None:
    @FUZZ
    @given(args=arguments(name))
    def run(args: dict[str, Any]) -> None:
        check(call, name, args)

    run()
    assert not call("list_docs", {}).is_error


def test_any_url_is_refused_or_read_never_internal(call: Callable, site: Site) -> None:
    """URL-shaped text around the loaded sites' origins, with hostile tails."""
    origins = ["http://", "https://", site.url(""), "https://react.dev", "file://", "http://[", ""]

    @FUZZ
    @given(head=st.sampled_from(origins), tail=texts)
    def run(head: str, tail: str) -> None:
        check(call, "get_page", {"url": head + tail})

    run()
    answer = call("get_page", {"url": site.url("/docs/intro")})
    assert not answer.is_error and answer.structured_content["title"] == "Intro"


# Malformed JSON-RPC on stdio


class StdioServer:
    """`pinax serve` as a raw subprocess: write lines, collect answers by id."""

    def __init__(self, manifest: Path, cache: Path) -> None:
        env = {"PATH": os.environ["PATH"], "PYTHONPATH": str(ROOT)}
        self.process = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "pinax",
                "serve",
                "--docs",
                str(manifest),
                "--cache-dir",
                str(cache),
            ],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            env=env,
        )
        self.answers: queue.Queue[dict] = queue.Queue()
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        assert self.process.stdout is not None
        for line in self.process.stdout:
            self.answers.put(json.loads(line))

    def send(self, line: bytes) -> None:
        assert self.process.stdin is not None
        self.process.stdin.write(line + b"\n")
        self.process.stdin.flush()

    def request(self, id_: int, method: str, params: dict | None = None) -> None:
        message = {"jsonrpc": "2.0", "id": id_, "method": method, "params": params or {}}
        self.send(json.dumps(message).encode())

    def answer(self, id_: int, timeout: float = 30) -> dict:
        deadline = time.monotonic() + timeout
        while True:
            message = self.answers.get(timeout=max(0.01, deadline - time.monotonic()))
            if message.get("id") == id_:
                return message

    def alive(self) -> bool:
        return self.process.poll() is None

    def close(self) -> None:
        if self.process.stdin:
            self.process.stdin.close()
        try:
            self.process.wait(10)
        except subprocess.TimeoutExpired:
            self.process.kill()


def tool_call(name: str, arguments: dict[str, Any]) -> dict[str, Any]:
    return {"name": name, "arguments": arguments}


MALFORMED = [
    b"garbage",
    b"{",
    b"}",
    b"[]",
    b"null",
    b"42",
    b'"a string"',
    b"\xff\xfe\xfd not utf-8",
    b"\x00\x00\x00",
    b"   ",
    b"\r",
    b'{"jsonrpc":"2.0"}',
    b'{"jsonrpc":"1.0","id":900,"method":"tools/list"}',
    b'{"jsonrpc":"2.0","id":901}',
    b'{"jsonrpc":"2.0","id":902,"method":"tools/call","params":"x"}',
    b'{"jsonrpc":"2.0","id":903,"method":"tools/call","params":{"name":"search_pages","arguments":{"query":"\\ud800"}}}',
    b'{"jsonrpc":"2.0","id":904,"method":"tools/call","params":{"name":"search_pages","arguments":"q"}}',
    b'[{"jsonrpc":"2.0","id":905,"method":"tools/list"}]',
    b'{"jsonrpc":"2.0","id":{"a":1},"method":"tools/list"}',
    b'{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":12345}}',
    b'{"jsonrpc":"2.0","method":"no/such/notification"}',
    b'{"jsonrpc":"2.0","id":77777,"result":{}}',
    b'{"a":' * 100_000 + b"1" + b"}" * 100_000,
    b"x" * (32 << 20),
]


def test_malformed_json_rpc_on_stdio_does_not_kill_the_server(tmp_path: Path) -> None:
    manifest = shared_path("corpora", "manifests", "react.json")
    server = StdioServer(manifest, tmp_path / "cache")
    try:
        server.request(
            1,
            "initialize",
            {
                "protocolVersion": "2025-11-25",
                "capabilities": {},
                "clientInfo": {"name": "fuzz", "version": "0"},
            },
        )
        assert server.answer(1)["result"]["serverInfo"]["name"] == "pinax"
        server.send(b'{"jsonrpc":"2.0","method":"notifications/initialized"}')
        for line in MALFORMED:
            server.send(line)
            assert server.alive(), line[:80]
        server.request(2, "no/such/method")
        assert server.answer(2)["error"]["code"] == -32601
        huge = {"query": "q" * (16 << 20)}
        server.request(3, "tools/call", tool_call("search_pages", huge))
        error = json.loads(server.answer(3)["result"]["content"][0]["text"])["error"]
        assert error["code"] == "invalid_args" and "16777216 characters" in error["message"]
        server.request(4, "tools/call", tool_call("search_pages", {"query": "useState hook"}))
        found = server.answer(4)["result"]["structuredContent"]["results"]
        assert found[0]["url"] == "https://react.dev/reference/react/useState"
        assert server.alive()
    finally:
        server.close()
