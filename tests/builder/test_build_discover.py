"""Discovery from a site URL (llms.txt, sitemaps, robots.txt, crawl) against loopback sites
laid out as the real ones, and the bad input a live site can serve."""

from __future__ import annotations

import json
import re
import socket
import threading
import time

import pytest

from pinax.builder.report import Reporter
from pinax.errors import FetchFailed, InvalidArgs
from tests.conftest import shared_path
from tests.support.build_support import html_page, published, run_build, serve, urls
from tests.support.http_site import Reply, Site


def notes_and_warnings(reporter: Reporter) -> str:
    return "\n".join(reporter.notes + reporter.warnings)


def test_llms_txt_at_the_given_path_wins(site) -> None:
    rewrite = {"https://www.fastht.ml": site.origin}
    serve(site, "/docs/llms.txt", published("fasthtml", "llms.txt"), rewrite)
    serve(site, "/sitemap.xml", f"<urlset><url><loc>{site.url('/x')}</loc></url></urlset>".encode())
    manifest, reporter = run_build(site.url("/docs/"))
    assert manifest.title == "FastHTML" and len(manifest.pages) == 21
    assert f"using llms.txt at {site.url('/docs/llms.txt')}: 21 pages" in reporter.notes
    assert site.hits("/sitemap.xml") == 0


def test_llms_txt_at_the_host_root_gives_the_pages_under_the_path(site) -> None:
    text = published("stripe", "llms.txt").read_text()
    under = {
        re.sub(r"\.md$", "", url)
        for url in re.findall(
            r"^- \[.*?\]\((https://docs\.stripe\.com/payments[/.][^)]*)\)", text, re.M
        )
    }
    serve(
        site, "/llms.txt", published("stripe", "llms.txt"), {"https://docs.stripe.com": site.origin}
    )
    manifest, reporter = run_build(site.url("/payments"))
    assert len(manifest.pages) == len(under) > 20
    assert all(u.startswith(site.url("/payments/")) for u in urls(manifest))
    assert site.hits("/payments/llms.txt") == 1  # asked at the path first
    assert any("of 447 pages under" in n for n in reporter.notes)  # 447 links in the file


def test_missing_llms_txt_falls_back_to_the_sitemap(site) -> None:
    real = {"https://www.django-rest-framework.org": site.origin}
    serve(site, "/sitemap.xml", published("django-rest-framework", "sitemap.xml"), real)
    manifest, reporter = run_build(site.url("/"))
    assert len(manifest.pages) == 70
    assert f"no {site.url('/llms.txt')} (HTTP 404)" in reporter.notes
    assert f"using sitemap at {site.url('/sitemap.xml')}: 70 pages" in reporter.notes


def test_html_catch_all_for_llms_txt_is_skipped(site) -> None:
    # Single-page apps answer every path with their index.html and a 200.
    site.add("/llms.txt", html_page("My App"))
    real = {"https://textual.textualize.io": site.origin}
    serve(site, "/sitemap.xml", published("textual", "sitemap.xml"), real)
    manifest, reporter = run_build(site.url("/"))
    assert len(manifest.pages) == 301
    assert any("HTML page was served where an llms.txt" in w for w in reporter.warnings)


def test_sitemap_listed_in_robots_txt(site) -> None:
    real = {"https://textual.textualize.io": site.origin}
    serve(site, "/static/maps/site.xml.gz", published("textual", "sitemap.xml.gz"), real)
    child = site.url("/static/maps/site.xml.gz")
    index = f"<sitemapindex><sitemap><loc>{child}</loc></sitemap></sitemapindex>"
    serve(site, "/static/maps/index.xml", index.encode())
    robots = f"User-agent: *\nAllow: /\nSitemap: {site.url('/static/maps/index.xml')}\n"
    site.add("/robots.txt", Reply(200, robots.encode(), {"Content-Type": "text/plain"}))
    manifest, reporter = run_build(site.url("/"))
    assert len(manifest.pages) == 301
    assert f"using sitemap at {site.url('/static/maps/index.xml')}: 301 pages" in reporter.notes


def serve_fixture_site(site: Site, generator: str) -> list[dict]:
    """Real rendered pages of ../shared/fixtures, each at its own URL path."""
    metas = []
    for folder in sorted(shared_path("fixtures", "sites", generator).iterdir()):
        meta = json.loads((folder / "meta.json").read_text())
        reply = Reply(200, (folder / meta["page_file"]).read_bytes(), {"Content-Type": "text/html"})
        site.add(meta["url_path"], reply)
        if meta["url_path"].endswith("/index.html"):
            site.add(meta["url_path"][: -len("index.html")], reply)  # as a static server does
        metas.append(meta)
    return metas


def test_crawl_of_a_real_mdbook_site_is_polite_and_stays_inside(site) -> None:
    metas = serve_fixture_site(site, "mdbook")
    robots = b"User-agent: *\nDisallow: /mdBook/format/configuration/\n"
    site.add("/robots.txt", Reply(200, robots, {"Content-Type": "text/plain"}))
    manifest, reporter = run_build(site.url("/mdBook/"), concurrency=3)
    titles = {
        site.url(m["url_path"]): m["html_title"].removesuffix(" - mdBook Documentation")
        for m in metas
    }
    titles[site.url("/mdBook/")] = titles[site.url("/mdBook/index.html")]
    # The fixture holds 12 of the book's pages; the crawl reaches those linked from reached
    # pages (mdBook renders its sidebar in JavaScript, so links are prev/next and inline).
    assert 6 <= len(manifest.pages) <= len(titles)
    for page in manifest.pages:
        assert page.title == titles[page.url]
    assert manifest.title == "mdBook Documentation"  # the suffix the titles share
    paths = [r.path for r in site.requests]
    assert all(
        p.startswith("/mdBook/")
        or p in ("/robots.txt", "/llms.txt", "/sitemap.xml", "/objects.inv")  # site-wide files
        for p in paths
    )
    assert not any(p.startswith("/mdBook/format/configuration/") for p in paths)
    assert len(paths) == len(set(paths))  # nothing fetched twice
    assert "crawling it" in notes_and_warnings(reporter)


def small_site(site: Site) -> None:
    """A docs prefix with links inside, outside, off-site, to assets and with queries."""
    pages = {
        "/docs/": ["a", "b/", "/elsewhere/", "https://example.invalid/x", "logo.png", "a?page=2"],
        "/docs/a": ["/docs/b/", "#top", "mailto:me@example.com"],
        "/docs/b/": ["c", "../a", "/docs/private/secret"],
        "/docs/b/c": ["/docs/", "d"],
        "/docs/b/d": [],
        "/docs/private/secret": [],
        "/elsewhere/": [],
    }
    for path, links in pages.items():
        site.add(
            path,
            html_page(f"{path.strip('/').split('/')[-1] or 'home'} | Small Docs", tuple(links)),
        )
    site.add("/robots.txt", Reply(200, b"User-agent: pinax\nDisallow: /docs/private/\n"))


def test_crawl_keeps_to_the_prefix_and_robots(site) -> None:
    small_site(site)
    manifest, _ = run_build(site.url("/docs/"))
    assert urls(manifest) == [
        site.url(p) for p in ("/docs/", "/docs/a", "/docs/b/", "/docs/b/c", "/docs/b/d")
    ]
    assert [p.title for p in manifest.pages] == ["docs", "a", "b", "c", "d"]
    assert manifest.title == "Small Docs"
    for never in ("/elsewhere/", "/docs/private/secret", "/docs/logo.png"):
        assert site.hits(never) == 0
    assert not any("?" in r.path for r in site.requests)


def test_crawl_stops_at_max_pages(site) -> None:
    small_site(site)
    manifest, reporter = run_build(site.url("/docs/"), max_pages=2)
    assert len(manifest.pages) == 2
    assert any("stopped at 2 pages" in w for w in reporter.warnings)
    page_requests = [r for r in site.requests if r.path.startswith("/docs/")]
    assert len(page_requests) <= 2 + 10  # max_pages plus the small budget for failures


def test_crawl_concurrency_and_per_host_delay_are_bounded(site) -> None:
    lock = threading.Lock()
    state = {"now": 0, "peak": 0}
    starts: list[float] = []
    links = tuple(f"p{i}" for i in range(12))

    def slow(request) -> Reply:
        with lock:
            state["now"] += 1
            state["peak"] = max(state["peak"], state["now"])
            starts.append(time.monotonic())
        time.sleep(0.05)
        with lock:
            state["now"] -= 1
        return html_page("page", links if request.path == "/site/" else ())

    site.add("/site/", slow)
    for link in links:
        site.add(f"/site/{link}", slow)
    manifest, _ = run_build(site.url("/site/"), concurrency=3, delay=0.0)
    assert len(manifest.pages) == 13
    assert 2 <= state["peak"] <= 3

    starts.clear()
    run_build(site.url("/site/"), concurrency=3, delay=0.08)
    # Starts are spaced by the delay on our side; seen from the server, one gap may shrink by
    # connection set-up jitter, so the whole span is checked (12 gaps, one allowed to shrink).
    assert len(starts) == 13 and starts[-1] - starts[0] >= 0.08 * 11


# --- bad input -------------------------------------------------------------------------


def test_robots_txt_disallowing_everything_stops_the_crawl(site) -> None:
    small_site(site)
    site.add("/robots.txt", Reply(200, b"User-agent: *\nDisallow: /\n"))
    with pytest.raises(InvalidArgs, match=r"robots\.txt of .* disallows .* not crawling it"):
        run_build(site.url("/docs/"))
    assert site.hits("/docs/") == 0


def test_unreachable_site_is_one_quick_clear_error() -> None:
    with socket.socket() as sock:  # a port nobody listens on
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    # One attempt, not a round of retries: the one error names the one cause.
    with pytest.raises(FetchFailed, match=r"cannot reach the site: .*could not connect"):
        run_build(f"http://127.0.0.1:{port}/docs/")


def test_redirect_off_site_is_refused_and_discovery_moves_on(site) -> None:
    with Site() as other:
        other.add("/llms.txt", Reply(200, b"# Other\n\n- [X](/x)\n"))
        site.add("/llms.txt", Reply(302, b"", {"Location": other.url("/llms.txt")}))
        real = {"https://www.django-rest-framework.org": site.origin}
        serve(site, "/sitemap.xml", published("django-rest-framework", "sitemap.xml"), real)
        manifest, reporter = run_build(site.url("/"))
        assert len(manifest.pages) == 70
        assert any("redirects to" in w and "refused" in w for w in reporter.warnings)
        with pytest.raises(FetchFailed, match=r"redirects to .* refused"):
            run_build(site.url("/llms.txt"))
        assert other.requests == []
