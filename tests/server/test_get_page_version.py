"""get_page of a page of versioned docs says which docs and version it belongs to (a real
page from a real HTTP server on loopback); a page of unversioned docs says nothing of it."""

from __future__ import annotations

from pathlib import Path

import anyio

from pinax import manifest as manifest_io
from pinax.manifest import Manifest, Page
from pinax.server.render import render
from pinax.tools import Tools
from tests.conftest import LOOPBACK
from tests.support.http_site import Reply, Site

HTML = (
    b"<html><head><title>Generated field</title></head><body><main><h1>Generated field</h1>"
    b"<p>A field that is always computed from other fields.</p></main></body></html>"
)


def test_get_page_carries_the_version(tmp_path: Path) -> None:
    with Site() as site:
        page = site.add(
            "/en/5.2/ref/generated/", Reply(body=HTML, headers={"Content-Type": "text/html"})
        )
        plain = site.add("/plain/", Reply(body=HTML, headers={"Content-Type": "text/html"}))
        paths = []
        for name, version, url in (("django", "5.2", page), ("notes", None, plain)):
            made = Manifest(
                name=name,
                url=site.url("/"),
                title=name,
                version=version,
                pages=(Page(url=url, title="Generated field", section="/"),),
            )
            path = tmp_path / f"{name}.json"
            path.write_text(manifest_io.dump(made))
            paths.append(path)
        tools = Tools.open(paths, tmp_path / "cache", allow_private=[LOOPBACK])
        read = anyio.run(tools.get_page, page)
        assert (read["docs"], read["version"]) == ("django", "5.2")
        assert "docs: django 5.2" in render("get_page", read)
        other = anyio.run(tools.get_page, plain)
        assert "version" not in other
