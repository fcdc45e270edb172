"""The manifests as MCP resources, for clients that let a user browse and attach docs.

`pinax://docs` lists the loaded docs, `pinax://docs/{name}` describes one (and is listed per
manifest, so the list follows live reloads), and templates list a section's pages or search
one manifest. `{name}` and `?path` complete. Contents are the tools' text renderings.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from mcp.server.mcpserver import MCPServer, ResourceSecurity
from mcp.server.mcpserver.exceptions import ResourceError, ResourceNotFoundError
from mcp.types import Completion, Resource, ResourceTemplateReference

from pinax.errors import InvalidArgs, NotFound, PinaxError
from pinax.server.render import plural, render
from pinax.tools import Tools

DOCS_URI = "pinax://docs"
MARKDOWN = "text/markdown"


def docs_resources(docs: list[dict[str, Any]]) -> list[Resource]:
    """One listed resource per loaded manifest (`list_docs` entries in)."""
    return [
        Resource(
            uri=f"{DOCS_URI}/{_identity(d)}",
            name=_identity(d),
            title=d["title"],
            description=f"{d['title']} ({d['url']}): {plural(d['pages'], 'page')}, by section",
            mime_type=MARKDOWN,
        )
        for d in docs
    ]


def _identity(entry: dict[str, Any]) -> str:
    """`name@version` of a list_docs entry, or `name`: one resource per loaded manifest."""
    return f"{entry['name']}@{entry['version']}" if entry.get("version") else entry["name"]


def _resource(read: Callable[[], str]) -> str:
    """Run a resource read, turning Pinax errors into MCP resource errors."""
    try:
        return read()
    except (NotFound, InvalidArgs) as exc:
        raise ResourceNotFoundError(exc.message) from exc
    except PinaxError as exc:
        raise ResourceError(exc.message) from exc


def add_resources(mcp: MCPServer, current: Callable[[], Tools]) -> None:
    """`pinax://docs`, one resource per manifest, and page listings as templates."""
    free_text = ResourceSecurity(exempt_params={"path", "q"})  # not file paths, never used so

    @mcp.resource(
        f"{DOCS_URI}/{{name}}/section{{?path,offset}}",
        name="docs-section",
        title="Pages of a section",
        description="The pages under a URL path prefix, e.g. pinax://docs/react/section?path=/learn",
        mime_type=MARKDOWN,
        security=free_text,
    )
    def section_resource(name: str, path: str = "/", offset: str = "0") -> str:
        return _resource(
            lambda: render(
                "get_section_pages",
                current().get_section_pages(path or "/", docs=name, offset=offset or 0),
            )
        )

    @mcp.resource(
        f"{DOCS_URI}/{{name}}/search{{?q}}",
        name="docs-search",
        title="Search a documentation set",
        description="Pages matching a query, e.g. pinax://docs/react/search?q=useEffect",
        mime_type=MARKDOWN,
        security=free_text,
    )
    def search_resource(name: str, q: str = "") -> str:
        return _resource(lambda: render("search_pages", current().search_pages(q, docs=name)))

    @mcp.resource(
        f"{DOCS_URI}/{{name}}",
        name="docs",
        title="A documentation set",
        description="One documentation set: its site, page count and top-level sections",
        mime_type=MARKDOWN,
    )
    def docs_resource(name: str) -> str:
        def overview() -> str:
            tools = current()
            sections = tools.list_sections(name)  # not_found for an unknown name
            chosen = (sections["docs"], sections.get("version"))
            entry = next(
                d for d in tools.list_docs()["docs"] if (d["name"], d.get("version")) == chosen
            )
            head = f"# {entry['title']} ({name})\n{entry['url']}: {plural(entry['pages'], 'page')}"
            hint = f"List a section's pages: {DOCS_URI}/{name}/section?path=<section>"
            return f"{head}\n\n{render('list_sections', sections)}\n\n{hint}"

        return _resource(overview)

    @mcp.resource(
        DOCS_URI,
        name="docs-index",
        title="Documentation sets",
        description="The loaded documentation sets; each is also pinax://docs/<name>",
        mime_type=MARKDOWN,
    )
    def index_resource() -> str:
        return render("list_docs", current().list_docs())

    @mcp.completion()
    async def complete(ref: Any, argument: Any, context: Any) -> Completion | None:
        if not isinstance(ref, ResourceTemplateReference):
            return None
        tools = current()
        if argument.name == "name":
            choices = [_identity(d) for d in tools.list_docs()["docs"]]
        elif argument.name == "path":
            chosen = (context.arguments or {}).get("name") if context else None
            try:
                sections = tools.list_sections(chosen)["sections"]
            except PinaxError:
                return None
            choices = sorted({s["section"] for s in sections})
        else:
            return None
        found = [c for c in choices if c.startswith(argument.value)]
        return Completion(values=found[:100], total=len(found), has_more=len(found) > 100)
