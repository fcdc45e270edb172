"""llms.txt: real files parsed whole, built as the site serves them, other llms files followed."""

from __future__ import annotations

import re

import pytest

from pinax.builder import llmstxt
from pinax.errors import FetchFailed, InvalidArgs
from tests.support.build_support import html_page, published, run_build, serve, urls


def read(name: str) -> str:
    return published(name, "llms.txt").read_text(encoding="utf-8")


def bullet_count(text: str) -> int:
    """Links counted independently of the parser: lines starting `- [`."""
    return len(re.findall(r"^- \[", text, re.M))


def test_stripe_titles_sections_descriptions_and_markdown_twins() -> None:
    text = read("stripe")
    doc = llmstxt.parse(text, "https://docs.stripe.com/llms.txt")
    assert doc.title == "Stripe Documentation"
    assert len(doc.links) == bullet_count(text) == 447
    assert len(doc.groups) == len(re.findall(r"^## ", text, re.M)) == 23
    assert doc.groups[0] == "Docs" and doc.groups[-1] == "Optional"
    testing = doc.links[0]
    assert (testing.title, testing.url, testing.group) == (
        "Testing",
        "https://docs.stripe.com/testing.md",
        "Docs",
    )
    assert testing.description == "Simulate payments to test your integration."
    page = llmstxt.to_page(testing, own_site=True)
    assert page.url == "https://docs.stripe.com/testing"
    assert page.markdown_url == "https://docs.stripe.com/testing.md"


def test_stripe_built_from_the_file_keeps_one_page_per_url() -> None:
    manifest, reporter = run_build(published("stripe", "llms.txt"))
    assert manifest.name == "stripe" and manifest.url == "https://docs.stripe.com"
    # 447 links, 3 of them listed twice (e.g. checkout/quickstart.md under Docs and Checkout).
    assert len(manifest.pages) == 444
    assert any("3 repeated URLs" in note for note in reporter.notes)
    twins = [p for p in manifest.pages if p.markdown_url]
    assert len(twins) == 443  # every link but https://support.stripe.com
    assert all(p.markdown_url == p.url + ".md" for p in twins)
    assert {p.group for p in manifest.pages} >= {"Docs", "Payments", "Optional"}
    assert "support.stripe.com" in " ".join(urls(manifest))


def test_langgraph_has_no_site_h1_its_h1s_are_sections() -> None:
    text = read("langgraph")
    doc = llmstxt.parse(text, "https://langchain-ai.github.io/langgraph/llms.txt")
    assert doc.title is None and doc.summary is None
    assert doc.groups == ("Guides", "Examples", "Resources")
    assert len(doc.links) == bullet_count(text) == 140
    assert all(link.description for link in doc.links)
    manifest, _ = run_build(published("langgraph", "llms.txt"), name="langgraph")
    assert manifest.title == "langgraph"  # no H1 to take it from
    assert manifest.url == "https://langchain-ai.github.io/langgraph/"


def test_fasthtml_canonical_example() -> None:
    manifest, _ = run_build(published("fasthtml", "llms.txt"), name="fasthtml")
    assert manifest.title == "FastHTML"
    assert manifest.description.startswith("FastHTML is a python library")
    assert len(manifest.pages) == 21
    by_url = {p.url: p for p in manifest.pages}
    guide = by_url["https://www.fastht.ml/docs/ref/concise_guide.html"]
    assert guide.markdown_url == "https://www.fastht.ml/docs/ref/concise_guide.html.md"
    assert guide.group == "Docs"
    # A Markdown file on another host is a page of its own, not a twin of some HTML page.
    htmx = "https://raw.githubusercontent.com/bigskysoftware/htmx/master/www/content/reference.md"
    assert by_url[htmx].markdown_url is None
    optional = read("fasthtml").split("## Optional", 1)[1]
    assert [p.group for p in manifest.pages].count("Optional") == bullet_count(optional) == 14


def test_relative_links_resolve_against_the_file_url(site) -> None:
    body = (
        b"# Tiny\n\n> A summary\n\n## Guides\n\n- [Start](start.md): first\n- [Up](/api/x.html)\n"
    )
    url = serve(site, "/docs/llms.txt", body)
    manifest, _ = run_build(url)
    assert urls(manifest) == [site.url("/docs/start"), site.url("/api/x.html")]
    assert manifest.pages[0].markdown_url == site.url("/docs/start.md")
    assert manifest.description == "A summary"


def test_svelte_index_of_llms_files_is_followed_one_level(site) -> None:
    # svelte.dev's own per-package files are not in the corpus: small children stand in, and
    # the real parent is served rewritten to the loopback origin.
    serve(site, "/llms.txt", published("svelte", "llms.txt"), {"https://svelte.dev": site.origin})
    serve(
        site, "/docs/svelte/llms.txt", b"# Svelte\n\n## Runes\n\n- [$state](/docs/svelte/$state)\n"
    )
    serve(
        site,
        "/docs/kit/llms.txt",
        b"# Kit\n\n- [Routing](/docs/kit/routing)\n- [Deeper](/docs/kit/more/llms.txt)\n",
    )
    # /docs/cli/llms.txt is missing (404): a warning, the rest still builds.
    manifest, reporter = run_build(site.url("/llms.txt"))
    assert urls(manifest) == [site.url("/docs/svelte/$state"), site.url("/docs/kit/routing")]
    assert [p.group for p in manifest.pages] == [
        "Svelte documentation / Runes",
        "SvelteKit documentation",
    ]
    assert site.hits("/llms-full.txt") == site.hits("/llms-small.txt") == 0  # full text skipped
    assert site.hits("/docs/kit/more/llms.txt") == 0  # one level only
    assert any("docs/cli/llms.txt" in w and "404" in w for w in reporter.warnings)


def test_llms_file_on_another_host_is_not_followed(site) -> None:
    body = b"# A\n\n- [Elsewhere](https://other.invalid/llms.txt)\n- [Page](/page)\n"
    manifest, reporter = run_build(serve(site, "/llms.txt", body))
    assert urls(manifest) == [site.url("/page")]
    assert any("did not follow https://other.invalid/llms.txt" in w for w in reporter.warnings)


def test_adk_links_only_index_md_twins() -> None:
    manifest, _ = run_build(published("google-adk", "llms.txt"))
    assert len(manifest.pages) == 228
    assert all(p.url.endswith("/") and p.markdown_url == p.url + "index.md" for p in manifest.pages)
    assert manifest.title == "Agent Development Kit (ADK)"


def test_torchao_site_is_taken_from_the_first_link() -> None:
    manifest, _ = run_build(published("torchao", "llms.txt"))
    assert manifest.url == "https://docs.pytorch.org/ao/"
    code = [p for p in manifest.pages if p.group == "Code"]
    assert code and all(p.url.startswith("https://github.com/") for p in code)


def test_404_llms_txt_is_a_clear_error(site) -> None:
    with pytest.raises(FetchFailed, match=r"llms\.txt: HTTP 404"):
        run_build(site.url("/llms.txt"))


def test_html_served_as_llms_txt_is_an_error(site) -> None:
    site.add("/llms.txt", html_page("Home"))
    with pytest.raises(InvalidArgs, match=r"HTML page was served where an llms\.txt"):
        run_build(site.url("/llms.txt"))


def test_text_without_links_is_not_an_llms_txt(tmp_path) -> None:
    path = tmp_path / "notes.txt"
    path.write_text("# Notes\n\nJust prose, no index.\n")
    with pytest.raises(InvalidArgs, match="no '- \\[Title\\]\\(url\\)' links"):
        run_build(path, site_url="https://example.com/")
