"""The MCP binding: registers the five tools of `tools.py` on an mcp 2.x `MCPServer`.

Arguments are declared with their JSON schema but accepted loosely, so `tools.py` checks
them and a bad argument comes back as the same `invalid_args` result the CLI prints.
Results carry `structuredContent`; errors carry their JSON in the text block only, with
`isError: true`, a shape every MCP client accepts (see notes/mcp-sdk-2.md, pitfall 2).
"""

from __future__ import annotations

import json
import logging
import threading
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from typing import Annotated, Any

from mcp.server.mcpserver import MCPServer
from mcp.types import CallToolResult, TextContent, ToolAnnotations
from pydantic import WithJsonSchema

from pinax import __version__
from pinax.errors import error_result
from pinax.tools import DEFAULT_LIMIT, MAX_LIMIT, MAX_QUERY_LENGTH, Tools

log = logging.getLogger("pinax.server")

INSTRUCTIONS = (
    "Pinax indexes documentation sites so you can read the docs as they are today.\n"
    "Find pages with search_pages (or browse with list_docs, list_sections, get_section_pages),\n"
    "then read a page with get_page(url) before relying on an API."
)

Result = Annotated[CallToolResult, dict[str, Any]]


def _arg(schema: dict[str, Any]) -> Any:
    """A parameter the schema describes but tools.py validates."""
    return Annotated[Any, WithJsonSchema(schema)]


DocsArg = _arg(
    {
        "type": "string",
        "description": "Manifest name from list_docs, e.g. 'react'. Omit to use every manifest.",
    }
)
QueryArg = _arg(
    {
        "type": "string",
        "minLength": 1,
        "maxLength": MAX_QUERY_LENGTH,
        "description": "What to look for, e.g. 'use a ref to manipulate the dom'",
    }
)
LimitArg = _arg(
    {
        "type": "integer",
        "minimum": 1,
        "maximum": MAX_LIMIT,
        "description": f"Maximum number of results (default {DEFAULT_LIMIT})",
    }
)
ExplainArg = _arg(
    {
        "type": "boolean",
        "description": "Add to each result where its score comes from (terms, fields, boosts)",
    }
)
ThresholdArg = _arg(
    {
        "type": "number",
        "minimum": 0,
        "maximum": 1,
        "description": "Leave out results scoring below this (scores run from 0 to 1)",
    }
)
SectionArg = _arg(
    {
        "type": "string",
        "description": "URL path prefix from list_sections, e.g. '/reference/react'",
    }
)
UrlArg = _arg({"type": "string", "description": "Page URL from search_pages or get_section_pages"})
READ_ONLY = ToolAnnotations(read_only_hint=True, open_world_hint=False)
READS_WEB = ToolAnnotations(read_only_hint=True, open_world_hint=True)


def _text_result(data: dict[str, Any], is_error: bool = False) -> CallToolResult:
    text = json.dumps(data, ensure_ascii=False, separators=(",", ":"))
    content = [TextContent(type="text", text=text)]
    if is_error:
        return CallToolResult(content=content, is_error=True)
    return CallToolResult(content=content, structured_content=data)


def _outcome(name: str, started: float, result: CallToolResult) -> CallToolResult:
    outcome = "error" if result.is_error else "ok"
    log.info("%s %s in %.1f ms", name, outcome, (time.perf_counter() - started) * 1000)
    return result


def _call(name: str, fn: Callable[..., dict[str, Any]], *args: Any) -> CallToolResult:
    started = time.perf_counter()
    try:
        result = _text_result(fn(*args))
    except Exception as exc:
        if error_result(exc)["error"]["code"] == "internal":
            log.exception("%s failed unexpectedly", name)
        result = _text_result(error_result(exc), is_error=True)
    return _outcome(name, started, result)


async def _acall(
    name: str, fn: Callable[..., Awaitable[dict[str, Any]]], *args: Any
) -> CallToolResult:
    started = time.perf_counter()
    try:
        result = _text_result(await fn(*args))
    except Exception as exc:
        if error_result(exc)["error"]["code"] == "internal":
            log.exception("%s failed unexpectedly", name)
        result = _text_result(error_result(exc), is_error=True)
    return _outcome(name, started, result)


def create_server(tools: Tools, warm: bool = True) -> MCPServer:
    """An MCP server over `tools`; `warm` builds the search indexes in the background."""

    @asynccontextmanager
    async def lifespan(_server: MCPServer) -> AsyncIterator[dict[str, Any]]:
        if warm:
            threading.Thread(target=tools.library.warm, name="pinax-warm", daemon=True).start()
        yield {}

    mcp = MCPServer(
        "pinax",
        version=__version__,
        instructions=INSTRUCTIONS,
        lifespan=lifespan,
        log_level=logging.getLevelName(logging.getLogger().level),
    )

    @mcp.tool(title="List documentation sets", annotations=READ_ONLY)
    def list_docs() -> Result:
        """List the loaded documentation sets: name, title, site url and page count.
        Use a name as the `docs` argument of the other tools."""
        return _call("list_docs", tools.list_docs)

    @mcp.tool(title="List sections", annotations=READ_ONLY)
    def list_sections(docs: DocsArg = None) -> Result:
        """List the top-level URL sections of the docs with their page counts, largest first.
        Pass a section to get_section_pages to list its pages."""
        return _call("list_sections", tools.list_sections, docs)

    @mcp.tool(title="Search pages", annotations=READ_ONLY)
    def search_pages(
        query: QueryArg,
        limit: LimitArg = DEFAULT_LIMIT,
        docs: DocsArg = None,
        explain: ExplainArg = False,
        threshold: ThresholdArg = None,
    ) -> Result:
        """Search page titles and URLs (typo-tolerant); returns url, title, section, a 0..1
        score and a confidence, best first. Then call get_page with a url to read the page."""
        return _call("search_pages", tools.search_pages, query, limit, docs, explain, threshold)

    @mcp.tool(title="List the pages of a section", annotations=READ_ONLY)
    def get_section_pages(section: SectionArg, docs: DocsArg = None) -> Result:
        """List every page whose URL path starts with `section` (any depth, e.g. '/api/charges').
        Then call get_page with a url to read a page."""
        return _call("get_section_pages", tools.get_section_pages, section, docs)

    @mcp.tool(title="Read a page", annotations=READS_WEB)
    async def get_page(url: UrlArg) -> Result:
        """Fetch a documentation page live (through a cache) as clean Markdown, with its final
        url, title, source (markdown or html) and fetch time. Only pages of loaded docs."""
        return await _acall("get_page", tools.get_page, url)

    return mcp
