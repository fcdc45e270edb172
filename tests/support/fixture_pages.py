"""Real rendered docs pages (../shared/fixtures/sites) served from a loopback `Site`, and a
manifest over them, for the get_page tests."""

from __future__ import annotations

import gzip
import json
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import anyio

from pinax.tools import Tools
from tests.conftest import shared_path
from tests.support.http_site import Reply, Request, Site


def fixture(name: str) -> tuple[dict, Path]:
    folder = shared_path("fixtures", "sites", name)
    return json.loads((folder / "meta.json").read_text()), folder


def page_bytes(folder: Path, meta: dict) -> bytes:
    page = folder / meta["page_file"]
    return gzip.decompress(page.read_bytes()) if page.suffix == ".gz" else page.read_bytes()


def html_reply(folder: Path, meta: dict, site: Site | None = None) -> Reply:
    """The page as a static server sends it; with `site`, its absolute links to its own
    canonical origin point at the loopback site instead (as if the site lived there)."""
    body = page_bytes(folder, meta)
    if site is not None:
        parts = urlsplit(meta["url"])
        body = body.replace(f"{parts.scheme}://{parts.netloc}".encode(), site.origin.encode())
    headers = meta.get("http_headers") or {"Content-Type": "text/html; charset=utf-8"}
    return Reply(200, body, headers)


def markdown_reply(path: Path) -> Reply:
    return Reply(200, path.read_bytes(), {"Content-Type": "text/markdown; charset=utf-8"})


def negotiating(folder: Path, meta: dict):
    """Markdown when the client asks for it (as some docs sites do), HTML otherwise."""
    markdown = markdown_reply(folder / meta["source_file"])

    def answer(request: Request) -> Reply:
        if "text/markdown" in request.headers.get("accept", ""):
            return markdown
        return html_reply(folder, meta)

    return answer


def serve(site: Site, name: str) -> tuple[dict, Path, str]:
    """Serve a fixture's page at its own path; (meta, folder, url)."""
    meta, folder = fixture(name)
    return meta, folder, site.add(meta["url_path"], html_reply(folder, meta, site))


def write_manifest(
    tmp_path: Path, site: Site, pages: list[str | dict[str, Any]], **fields: Any
) -> Path:
    rows = [
        {"url": site.url(p), "title": p.strip("/") or "home"} if isinstance(p, str) else p
        for p in pages
    ]
    data = {"pinax_manifest": 1, "name": "site", "url": site.url("/"), "pages": rows, **fields}
    manifest = tmp_path / f"{data['name']}.json"
    manifest.write_text(json.dumps(data))
    return manifest


def open_tools(
    tmp_path: Path,
    site: Site,
    pages: list[str | dict[str, Any]],
    ttl: float = 3600,
    manifest_fields: dict[str, Any] | None = None,
) -> Tools:
    manifest = write_manifest(tmp_path, site, pages, **(manifest_fields or {}))
    return Tools.open([manifest], cache_dir=tmp_path / "cache", ttl=ttl)


def read(tools: Tools, url: str, **arguments: Any) -> dict:
    async def call() -> dict:
        return await tools.get_page(url, **arguments)

    return anyio.run(call)


def read_whole(tools: Tools, url: str) -> dict:
    """The whole page as the reader returns it, before the token budget."""
    assert tools.reader is not None
    return anyio.run(tools.reader.read, url)
