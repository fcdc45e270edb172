"""Sitemaps: real files (plain, gzip, hreflang, `None` prefixes, an index on two hosts) and
every kind of bad input, each ending in a clear error or warning after bounded work."""

from __future__ import annotations

import gzip
import re

import pytest

from pinax.builder.model import BuildLimits
from pinax.builder.report import Reporter
from pinax.errors import InvalidArgs
from tests.support.build_support import html_page, published, run_build, serve, urls
from tests.support.http_site import Reply, Site


def locs(*parts: str) -> list[str]:
    """`<loc>` values counted independently of the parser."""
    return re.findall(r"<loc>\s*([^<\s]+)\s*</loc>", published(*parts).read_text())


def test_drf_sitemap_plain_and_gzip_give_the_same_manifest() -> None:
    plain, _ = run_build(published("django-rest-framework", "sitemap.xml"))
    packed, _ = run_build(published("django-rest-framework", "sitemap.xml.gz"))
    assert plain == packed
    assert urls(plain) == sorted(locs("django-rest-framework", "sitemap.xml"))
    assert len(plain.pages) == 70
    assert plain.url == "https://www.django-rest-framework.org"
    by_url = {p.url: p for p in plain.pages}
    auth = by_url["https://www.django-rest-framework.org/api-guide/authentication/"]
    assert (auth.title, auth.section) == ("Authentication", "/api-guide")


def test_gzip_sitemap_served_over_http(site) -> None:
    rewrite = {"https://textual.textualize.io": site.origin}
    url = serve(site, "/sitemap.xml.gz", published("textual", "sitemap.xml.gz"), rewrite)
    manifest, _ = run_build(url)
    assert len(manifest.pages) == len(locs("textual", "sitemap.xml")) == 301
    assert all(u.startswith(site.origin) for u in urls(manifest))


def test_lastmod_is_kept_only_when_asked() -> None:
    source = published("google-adk", "sitemap.xml")
    without, _ = run_build(source)
    assert all(p.lastmod is None for p in without.pages)
    with_dates, _ = run_build(source, lastmod=True)
    assert len(with_dates.pages) == 229
    assert {p.lastmod for p in with_dates.pages} == {"2026-08-21"}


def test_mkdocs_none_prefix_survives_with_a_warning_and_one_language(site) -> None:
    # Served where the site serves it; the `None` locations resolve against that folder.
    url = serve(
        site, "/openai-agents-python/sitemap.xml", published("openai-agents-python", "sitemap.xml")
    )
    raw = locs("openai-agents-python", "sitemap.xml")
    assert len(raw) == 1131 and all(loc.startswith("None") for loc in raw)
    translated = [loc for loc in raw if re.match(r"None(ja|ko|zh)/", loc)]
    manifest, reporter = run_build(url)
    assert len(manifest.pages) == len(raw) - len(translated) == 282
    base = site.url("/openai-agents-python/")
    assert urls(manifest)[0] == base and base + "agents/" in urls(manifest)
    assert not any(re.search(r"/(ja|ko|zh)/", u) for u in urls(manifest))
    assert any("1131 locations start with 'None'" in w for w in reporter.warnings)
    assert any("kept en" in n and "(en, ja, ko, zh)" in n for n in reporter.notes)

    japanese, _ = run_build(url, lang="ja")
    ja = {loc for loc in raw if loc.startswith("Noneja/")}  # the real file lists one twice
    assert len(japanese.pages) == len(ja) == 282
    assert all("/ja/" in u for u in urls(japanese))


def test_local_file_with_only_relative_locations_needs_the_site() -> None:
    source = published("openai-agents-python", "sitemap.xml")
    with pytest.raises(InvalidArgs, match="give the site with --url"):
        run_build(source)
    manifest, _ = run_build(source, site_url="https://openai.github.io/openai-agents-python/")
    assert len(manifest.pages) == 282


def test_index_whose_child_lives_on_another_host() -> None:
    # pytorch.org/sitemap.xml lists children on docs.pytorch.org; the one child in the corpus
    # (ao/stable) lists pages back on pytorch.org. Two loopback servers play the two hosts.
    with Site() as home, Site() as docs:
        real = {"https://docs.pytorch.org": docs.origin, "https://pytorch.org": home.origin}
        index = serve(home, "/sitemap.xml", published("pytorch", "sitemap.xml"), real)
        serve(
            docs,
            "/ao/stable/sitemap.xml",
            published("pytorch", "ao", "stable", "sitemap.xml"),
            real,
        )
        docs_host = docs.origin.split("://")[1]

        refused = Reporter()
        with pytest.raises(InvalidArgs, match="no pages"):
            run_build(index, refused)
        assert docs.requests == []  # another host: nothing fetched without --allow-host
        assert any(f"--allow-host {docs_host}" in w for w in refused.warnings)

        manifest, reporter = run_build(index, allow_hosts=(docs_host,))
        assert len(manifest.pages) == len(locs("pytorch", "ao", "stable", "sitemap.xml")) == 135
        assert all(u.startswith(home.url("/ao/en/0.17/")) for u in urls(manifest))
        skipped = [w for w in reporter.warnings if "skipped a child sitemap" in w]
        assert len(skipped) == 3 and all("404" in w for w in skipped)  # partly unreachable


def test_plain_text_sitemap(site, tmp_path) -> None:
    body = f"{site.url('/a/')}\n{site.url('/b/c')}\n".encode()
    manifest, _ = run_build(serve(site, "/sitemap.txt", body))
    assert urls(manifest) == [site.url("/a/"), site.url("/b/c")]
    assert [p.title for p in manifest.pages] == ["A", "C"]
    local = tmp_path / "urls.txt"  # on disk, its kind is read from its first bytes
    local.write_bytes(body)
    assert run_build(local)[0] == manifest


# --- bad input -------------------------------------------------------------------------


def test_html_served_where_xml_was_expected(site) -> None:
    site.add("/sitemap.xml", html_page("Welcome"))
    with pytest.raises(InvalidArgs, match="HTML page was served where a sitemap"):
        run_build(site.url("/sitemap.xml"))


def test_malformed_xml_names_line_and_column(site) -> None:
    body = published("django-rest-framework", "sitemap.xml").read_bytes()[:3000]
    serve(site, "/sitemap.xml", body)
    with pytest.raises(InvalidArgs, match=r"malformed XML at line \d+, column \d+"):
        run_build(site.url("/sitemap.xml"))


def test_entity_bomb_is_refused_before_expanding(site) -> None:
    entities = "".join(f'<!ENTITY l{i} "{f"&l{i - 1};" * 10}">' for i in range(1, 10))
    bomb = (
        f'<?xml version="1.0"?><!DOCTYPE u [<!ENTITY l0 "lol">{entities}]>'
        "<urlset><url><loc>&l9;</loc></url></urlset>"
    )
    serve(site, "/sitemap.xml", bomb.encode())
    with pytest.raises(InvalidArgs, match="DOCTYPE or entity declaration"):
        run_build(site.url("/sitemap.xml"))


def test_gzip_bomb_is_refused(site) -> None:
    serve(site, "/sitemap.xml.gz", gzip.compress(b" " * (3 << 20)))
    limits = BuildLimits(max_inflated=1 << 20)
    with pytest.raises(InvalidArgs, match="inflates to more than 1,048,576 bytes"):
        run_build(site.url("/sitemap.xml.gz"), limits=limits)


def test_deeply_nested_index_stops_at_the_depth_limit(site) -> None:
    def index(request) -> Reply:
        depth = int(request.path.split("/")[1])
        child = site.url(f"/{depth + 1}/sitemap.xml")
        if depth == 50:  # never reached
            return Reply(
                200, f"<urlset><url><loc>{site.url('/deep')}</loc></url></urlset>".encode()
            )
        return Reply(
            200, f"<sitemapindex><sitemap><loc>{child}</loc></sitemap></sitemapindex>".encode()
        )

    for depth in range(60):
        site.add(f"/{depth}/sitemap.xml", index)
    with pytest.raises(InvalidArgs, match="no pages"):
        run_build(site.url("/0/sitemap.xml"))
    assert len(site.requests) == BuildLimits().max_sitemap_depth + 1


def test_huge_index_reads_a_bounded_number_of_files(site) -> None:
    children = "".join(
        f"<sitemap><loc>{site.url(f'/s/{i}.xml')}</loc></sitemap>" for i in range(5000)
    )
    site.add("/sitemap.xml", Reply(200, f"<sitemapindex>{children}</sitemapindex>".encode()))

    def child(request) -> Reply:
        return Reply(
            200,
            f"<urlset><url><loc>{site.url(request.path + '/page')}</loc></url></urlset>".encode(),
        )

    for i in range(5000):
        site.add(f"/s/{i}.xml", child)
    limits = BuildLimits(max_sitemaps=20)
    manifest, reporter = run_build(site.url("/sitemap.xml"), limits=limits)
    sitemaps = [r for r in site.requests if not r.path.endswith("/objects.inv")]
    assert len(sitemaps) == 20 and len(manifest.pages) == 19
    assert any(
        "read 20 sitemap files, the limit; 4981 more not read" in w for w in reporter.warnings
    )


def test_too_many_locations_stop_the_read(site) -> None:
    entries = "".join(f"<url><loc>{site.url(f'/p{i}')}</loc></url>" for i in range(1000))
    serve(site, "/sitemap.xml", f"<urlset>{entries}</urlset>".encode())
    manifest, reporter = run_build(site.url("/sitemap.xml"), limits=BuildLimits(max_locs=100))
    assert len(manifest.pages) == 100
    assert any("stopped reading sitemaps at 100 locations" in w for w in reporter.warnings)


def test_max_pages_keeps_the_first_pages_and_says_so() -> None:
    manifest, reporter = run_build(published("textual", "sitemap.xml"), max_pages=50)
    assert len(manifest.pages) == 50
    assert urls(manifest) == sorted(locs("textual", "sitemap.xml"))[:50]
    assert any("kept the first 50 of 301 pages" in w for w in reporter.warnings)


def test_not_a_sitemap_root_element(site) -> None:
    serve(site, "/sitemap.xml", b"<?xml version='1.0'?><rss><channel/></rss>")
    with pytest.raises(InvalidArgs, match="root element is <rss>"):
        run_build(site.url("/sitemap.xml"))
