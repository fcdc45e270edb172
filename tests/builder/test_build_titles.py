"""`--titles fetch`: real MkDocs Material pages served on loopback, titles read from them."""

from __future__ import annotations

import json

from pinax.builder.console import ConsoleReporter
from tests.conftest import shared_path
from tests.support.build_support import run_build, serve
from tests.support.http_site import Reply


def serve_material_site(site) -> dict[str, str]:
    """The 16 real MkDocs Material pages at their paths; returns url -> <title> text."""
    titles = {}
    for folder in sorted(shared_path("fixtures", "sites", "mkdocs-material").iterdir()):
        meta = json.loads((folder / "meta.json").read_text())
        body = (folder / meta["page_file"]).read_bytes()
        site.add(meta["url_path"], Reply(200, body, {"Content-Type": "text/html; charset=utf-8"}))
        titles[site.url(meta["url_path"])] = meta["html_title"]
    return titles


def sitemap_of(site, page_urls: list[str]) -> str:
    entries = "".join(f"<url><loc>{url}</loc></url>" for url in page_urls)
    return serve(site, "/mkdocs-material/sitemap.xml", f"<urlset>{entries}</urlset>".encode())


def test_titles_are_read_from_the_pages_and_the_site_suffix_removed(site) -> None:
    titles = serve_material_site(site)
    manifest, reporter = run_build(sitemap_of(site, list(titles)), titles="fetch", concurrency=4)
    assert len(manifest.pages) == 16
    for page in manifest.pages:
        assert page.title == titles[page.url].removesuffix(" - Material for MkDocs")
    assert manifest.title == "Material for MkDocs"
    assert "fetched 16 of 16 page titles (4 at a time)" in reporter.notes


def test_pages_that_fail_keep_their_url_title_with_one_warning(site) -> None:
    titles = serve_material_site(site)
    missing = site.url("/mkdocs-material/gone/")
    private = next(url for url in titles if "/reference/lists/" in url)
    site.add(
        "/robots.txt", Reply(200, b"User-agent: *\nDisallow: /mkdocs-material/reference/lists/\n")
    )
    manifest, reporter = run_build(sitemap_of(site, [*titles, missing]), titles="fetch")
    by_url = {p.url: p for p in manifest.pages}
    assert by_url[missing].title == "Gone" and by_url[private].title == "Lists"
    assert site.hits("/mkdocs-material/reference/lists/") == 0
    [warning] = reporter.warnings
    assert warning.startswith("2 pages keep a title made from their URL")
    assert "1 disallowed by robots.txt" in warning and "1 failed" in warning and "404" in warning


def test_progress_bar_is_drawn_on_the_reporter_console_only(site, capsys) -> None:
    from io import StringIO

    from rich.console import Console

    titles = serve_material_site(site)
    stream = StringIO()
    reporter = ConsoleReporter(console=Console(file=stream, force_terminal=True, width=100))
    run_build(sitemap_of(site, list(titles)), reporter, titles="fetch")
    drawn = stream.getvalue()
    assert "Fetching page titles" in drawn and "16/16" in drawn
    assert capsys.readouterr().out == ""
