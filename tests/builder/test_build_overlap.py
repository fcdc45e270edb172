"""A manifest built from what a site publishes covers the manifest made from its docs source.

../shared/corpora/manifests holds DRF, ADK and Textual manifests made from the docs source
repositories, each kept to the pages the published sitemap lists (source ∩ sitemap). So the
sitemap build must cover every one of their URLs: the tolerance is zero, and any miss is a
builder bug (URL normalisation, a dropped entry). Measured: DRF 70/70, ADK 229/229, Textual
240/240; the Textual sitemap also lists 61 blog posts the source manifest leaves out.
"""

from __future__ import annotations

import pytest

from pinax import manifest as manifest_io
from tests.conftest import shared_path
from tests.support.build_support import published, run_build, urls


def reference_urls(name: str) -> set[str]:
    path = shared_path("corpora", "manifests", f"{name}.json")
    return {page.url for page in manifest_io.load(path).pages}


@pytest.mark.parametrize(
    ("name", "site", "extra"),
    [("drf", "django-rest-framework", 0), ("adk", "google-adk", 0), ("textual", "textual", 61)],
)
def test_sitemap_build_covers_the_source_manifest(name: str, site: str, extra: int) -> None:
    expected = reference_urls(name)
    built = set(urls(run_build(published(site, "sitemap.xml"))[0]))
    assert expected <= built, sorted(expected - built)[:5]
    assert len(built - expected) == extra


def test_textual_blog_is_the_only_difference() -> None:
    built, _ = run_build(published("textual", "sitemap.xml"), exclude=("/blog/*",))
    assert set(urls(built)) == reference_urls("textual")


def test_adk_llms_txt_lists_every_page_but_the_home_page() -> None:
    # adk.dev/llms.txt links the Markdown twin of each page; the twins map back to the HTML
    # URLs the sitemap and the source manifest use. Its one page not listed: the home page.
    built = set(urls(run_build(published("google-adk", "llms.txt"))[0]))
    expected = reference_urls("adk")
    assert built <= expected
    assert expected - built == {"https://adk.dev/"}
