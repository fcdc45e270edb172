"""The generators' fixture pages of $PINAX_SHARED/fixtures/sites (real pages, each beside its
author's source), served on loopback as their live sites serve them, for the benches that
build from them (`pinax build --outline`, `--content`)."""

from __future__ import annotations

from bench.harness.corpora import SHARED
from tests.support.extraction import Fixture
from tests.support.http_site import Reply, Site

SITES = SHARED.resolve() / "fixtures" / "sites"
NOT_SCORED = ("redirect-stub", "js-rendered-shell")  # hard cases without content of their own


def scored(fixture: Fixture) -> bool:
    return fixture.meta.get("hard_case") not in NOT_SCORED


def serve_fixtures(site: Site, chosen: list[Fixture]) -> dict[str, Fixture]:
    """Each page at /<generator><its path>, its links to its own origin pointed at the site;
    a sitemap listing them all. Returns the fixtures by served URL."""
    by_url: dict[str, Fixture] = {}
    for fixture in chosen:
        path = f"/{fixture.generator}{fixture.meta['url_path']}"
        body = fixture.html_bytes()
        alternate = fixture.path / "alternate.md"
        if alternate.exists():  # Docsy advertises its Markdown: get_page reads that first
            origin = "/".join(fixture.meta["url"].split("/")[:3])
            twin = f"/{fixture.generator}{fixture.meta['url_path']}index.md"
            advertised = f'type="text/markdown" href="{origin}{fixture.meta["url_path"]}index.md"'
            body = body.replace(advertised.encode(), f'type="text/markdown" href="{twin}"'.encode())
            site.add(twin, Reply(200, alternate.read_bytes(), {"Content-Type": "text/markdown"}))
        headers = fixture.meta.get("http_headers") or {"Content-Type": "text/html; charset=utf-8"}
        by_url[site.add(path, Reply(200, body, dict(headers)))] = fixture
    locs = "".join(f"<url><loc>{url}</loc></url>" for url in by_url)
    sitemap = f'<?xml version="1.0"?><urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">{locs}</urlset>'
    site.add("/sitemap.xml", Reply(200, sitemap.encode(), {"Content-Type": "application/xml"}))
    return by_url
