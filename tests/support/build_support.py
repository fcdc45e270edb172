"""Helpers for the build tests: real published files served on loopback, laid out as the
site serves them, and a build run synchronously.

The published files name their real hosts (https://docs.stripe.com/...). Where a test must
follow those URLs, `serve` rewrites the real origin to the loopback origin on the fly
(`rewrite={"https://docs.stripe.com": site.origin}`), so nothing ever leaves the machine.
"""

from __future__ import annotations

import asyncio
import gzip
from pathlib import Path
from typing import Any

from pinax.builder import BuildOptions
from pinax.builder.core import build
from pinax.builder.report import Reporter
from pinax.manifest import Manifest
from tests.conftest import shared_path
from tests.support.http_site import Reply, Site

CONTENT_TYPES = {
    ".txt": "text/plain; charset=utf-8",
    ".xml": "application/xml",
    ".gz": "application/gzip",
    ".inv": "application/octet-stream",
    ".html": "text/html; charset=utf-8",
}


def published(*parts: str) -> Path:
    """A file of ../shared/corpora/published (the test skips when the data is absent)."""
    return shared_path("corpora", "published", *parts)


def serve(
    site: Site, path: str, source: Path | bytes, rewrite: dict[str, str] | None = None
) -> str:
    """Serve `source` at `path`; real origins in it replaced per `rewrite`. Returns the URL."""
    body = source if isinstance(source, bytes) else source.read_bytes()
    gzipped = body[:2] == b"\x1f\x8b"
    if rewrite:
        text = gzip.decompress(body) if gzipped else body
        for real, local in rewrite.items():
            text = text.replace(real.encode(), local.encode())
        body = gzip.compress(text, mtime=0) if gzipped else text
    suffix = Path(path).suffix
    content_type = CONTENT_TYPES.get(suffix, "application/octet-stream")
    return site.add(path, Reply(200, body, {"Content-Type": content_type}))


def html_page(title: str, links: tuple[str, ...] = (), h1: str | None = None) -> Reply:
    anchors = "".join(f'<a href="{href}">{href}</a>' for href in links)
    heading = f"<h1>{h1}</h1>" if h1 else ""
    head = f"<title>{title}</title>" if title else ""
    body = f"<!doctype html><html><head>{head}</head><body>{heading}{anchors}</body></html>"
    return Reply(200, body.encode(), {"Content-Type": "text/html; charset=utf-8"})


def run_build(
    source: str | Path, reporter: Reporter | None = None, **options: Any
) -> tuple[Manifest, Reporter]:
    """Build synchronously with test-friendly defaults (no pacing delay). Pass a `reporter`
    to read what a failing build said."""
    options.setdefault("delay", 0.0)
    reporter = reporter or Reporter()
    manifest = asyncio.run(build(str(source), BuildOptions(**options), reporter))
    return manifest, reporter


def urls(manifest: Manifest) -> list[str]:
    return [page.url for page in manifest.pages]
