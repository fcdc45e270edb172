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
from pinax.pages.budget import DEFAULT_MAX_TOKENS, MAX_MAX_TOKENS, MIN_MAX_TOKENS
from pinax.tools import (
    DEFAULT_LIMIT,
    MAX_CURSOR_LENGTH,
    MAX_HEADING_LENGTH,
    MAX_LIMIT,
    MAX_QUERY_LENGTH,
    Tools,
)

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
SectionArg = _arg(
    {
        "type": "string",
        "description": "URL path prefix from list_sections, e.g. '/reference/react'",
    }
)
UrlArg = _arg({"type": "string", "description": "Page URL from search_pages or get_section_pages"})
MaxTokensArg = _arg(
    {
        "type": "integer",
        "minimum": MIN_MAX_TOKENS,
        "maximum": MAX_MAX_TOKENS,
        "description": f"Largest result, in estimated tokens (default {DEFAULT_MAX_TOKENS})",
    }
)
HeadingArg = _arg(
    {
        "type": "string",
        "maxLength": MAX_HEADING_LENGTH,
        "description": "Return only this section: a heading's text or anchor from the outline",
    }
)
CursorArg = _arg(
    {
        "type": "string",
        "maxLength": MAX_CURSOR_LENGTH,
        "description": "next_cursor from the previous get_page result, to read on",
    }
)
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
        query: QueryArg, limit: LimitArg = DEFAULT_LIMIT, docs: DocsArg = None
    ) -> Result:
        """Search page titles and URLs (typo-tolerant); returns url, title, section and a 0..1
        score, best first. Then call get_page with a url to read the page."""
        return _call("search_pages", tools.search_pages, query, limit, docs)

    @mcp.tool(title="List the pages of a section", annotations=READ_ONLY)
    def get_section_pages(section: SectionArg, docs: DocsArg = None) -> Result:
        """List every page whose URL path starts with `section` (any depth, e.g. '/api/charges').
        Then call get_page with a url to read a page."""
        return _call("get_section_pages", tools.get_section_pages, section, docs)

    @mcp.tool(title="Read a page", annotations=READS_WEB)
    async def get_page(
        url: UrlArg,
        max_tokens: MaxTokensArg = None,
        section: HeadingArg = None,
        cursor: CursorArg = None,
    ) -> Result:
        """Read a documentation page live (through a cache) as Markdown, with its final url,
        title, source, fetch time and content hash. A page over max_tokens comes back as its
        outline (headings with anchors and token counts) and its first part, with
        truncated: true and a next_cursor; pass section (a heading or anchor) or cursor to read
        on. Only pages of loaded docs."""
        return await _acall("get_page", tools.get_page, url, max_tokens, section, cursor)

    return mcp
