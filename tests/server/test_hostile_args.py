"""Arguments that pass a check and then fail (issue 19, item 9), through the real MCP server.

`isdigit()` takes "²" and "①", which `int()` refuses; a 5,000-digit integer is past what
`int()` and `str()` convert; `https://[::1` is refused by `urlsplit`. Each ended as
`internal`. Every argument error must be `invalid_args` (or not_found / fetch_failed) with a
message that says what was wrong.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from typing import Any

import anyio
import pytest
from anyio.from_thread import start_blocking_portal
from mcp import Client

from pinax.server.app import create_server
from tests.server.test_fuzz_args import wire
from tests.support.http_site import Reply, Site

HUGE = "9" * 5_000
NUMBERS = [
    "²",
    "①",
    "¹²",
    "𝟗",
    "٣٣٣٣",
    HUGE,
    "-" + HUGE,
    10**4000,
    -(10**4000),
    1e308,
    " 1_0 ",
    "0x10",
]
URLS = [
    "https://[::1",
    "http://[::1]x/",
    "https://[",
    "http://[fe80::1%25eth0]/",
    "http://127.0.0.1:99999/",
    "http://127.0.0.1:-1/",
    "http://a:b:c/",
    "https://react.dev:0/learn",
    "https://react.dev/" + "%" * 3000,
    "https://\u0000/",
]
CASES: list[tuple[str, dict[str, Any]]] = [
    *[("search_pages", {"query": "hooks", "limit": n}) for n in NUMBERS],
    *[("get_section_pages", {"section": "/reference", "limit": n}) for n in NUMBERS],
    *[("get_section_pages", {"section": "/reference", "offset": n}) for n in NUMBERS],
    *[("get_page", {"url": "https://react.dev/learn", "max_tokens": n}) for n in NUMBERS],
    *[("get_section_pages", {"section": u}) for u in URLS],
    *[("get_page", {"url": u}) for u in URLS],
    *[("get_page", {"url": "https://react.dev/learn#" + u}) for u in URLS],
    *[("get_page", {"url": "https://react.dev/learn", "section": u}) for u in URLS],
    *[("get_page", {"url": "https://react.dev/learn", "cursor": u}) for u in [*URLS, "²", HUGE]],
    *[("search_pages", {"query": "hooks", "threshold": n}) for n in NUMBERS],
]


@pytest.fixture(scope="module")
def call(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Callable]:
    with Site() as site:
        site.add(
            "/docs/intro", Reply(200, b"<main><h1>Intro</h1></main>", {"Content-Type": "text/html"})
        )
        tools = wire(tmp_path_factory.mktemp("args"), site)
        session = Client(create_server(tools, warm=False))
        with (
            start_blocking_portal() as portal,
            portal.wrap_async_context_manager(session) as client,
        ):

            async def within_deadline(name: str, args: dict[str, Any]):
                with anyio.fail_after(30):
                    return await client.call_tool(name, args)

            yield lambda name, args: portal.call(within_deadline, name, args)


@pytest.mark.parametrize(("name", "args"), CASES, ids=lambda v: repr(v)[:40])
def test_every_argument_error_is_invalid_args_with_a_message(
    call: Callable, name: str, args: dict[str, Any]
) -> None:
    result = call(name, args)
    if not result.is_error:
        return  # a value Pinax can take ("1_0" is not one; "٣٣٣٣" reads as 3333)
    error = json.loads(result.content[0].text)["error"]
    assert error["code"] in {"invalid_args", "not_found", "fetch_failed"}, (args, error)
    assert error["message"] and len(error["message"]) < 12_000, error
