"""Every word is what it was typed as: a stop word in prose is no symbol's name, a word the
page text uses is no typo, and a stem shared by unrelated words does not merge them."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from pinax.library import Library
from pinax.manifest import PageText, Section, companion_path, from_dict, load, write_page_texts
from pinax.tools import Tools

SHIPPED = Path(__file__).resolve().parents[2] / "manifests"


@pytest.fixture(scope="module")
def shipped() -> Tools:
    names = ("textual", "adk", "stripe")
    return Tools(Library([load(SHIPPED / f"{name}.json") for name in names]))


@pytest.mark.parametrize(
    ("query", "wanted"),
    [
        ("what is a session", "adk.dev/sessions/session/"),
        ("refund a charge", "docs.stripe.com/refunds"),
    ],
)
def test_a_stop_word_in_prose_matches_no_symbol(shipped: Tools, query: str, wanted: str) -> None:
    results = shipped.search_pages(query, limit=5)["results"]
    assert wanted in results[0]["url"], [r["url"] for r in results]
    assert not any(r.get("symbol", "").endswith(".a") for r in results), query


@pytest.mark.parametrize("query", [".a", "Color.a"])
def test_a_stop_word_typed_as_code_still_finds_its_symbol(shipped: Tools, query: str) -> None:
    first = shipped.search_pages(query, limit=3)["results"][0]
    assert first["symbol"] == "textual.color.Color.a", query


def site(folder: Path, pages: dict[str, list[Section]]) -> Tools:
    """A manifest of `pages` (title, outline) with its content file, loaded."""
    rows = [
        {
            "url": f"https://docs.example.com/{name}",
            "title": sections[0].heading,
            "outline": [
                {"level": s.level, "title": s.heading, "anchor": s.heading.lower()}
                for s in sections[1:]
            ],
        }
        for name, sections in pages.items()
    ]
    manifest = folder / "site.json"
    data = {"pinax_manifest": 1, "name": "site", "url": "https://docs.example.com/", "pages": rows}
    manifest.write_text(json.dumps(data))
    texts = [
        PageText(f"https://docs.example.com/{name}", tuple(sections), "2026-11-01T00:00:00Z")
        for name, sections in pages.items()
    ]
    write_page_texts(companion_path(manifest), texts)
    library = Library.load([manifest], index_dir=folder / "cache")
    library.load_contents()
    return Tools(library)


FILLER = "Settings are read once at start. " * 3
SPHINX = {
    "project": [Section(1, "Project", "A project holds settings. " + FILLER)],
    "projects": [Section(1, "Projects layout", "Lay out projects in folders. " + FILLER)],
    "security": [
        Section(1, "Security", "Keep your site safe. " + FILLER),
        Section(2, "Forms", "Middleware and tokens protect against CSRF in every form."),
    ],
}


def test_a_word_the_page_text_uses_is_never_corrected(tmp_path: Path) -> None:
    answer = site(tmp_path, SPHINX).search_pages("protect against CSRF", limit=3)
    assert "also_matched" not in answer, answer.get("also_matched")
    assert answer["results"][0]["url"].endswith("/security")


VUE = {
    "composables": [
        Section(1, "Composables", "Reuse stateful logic with composables. " + FILLER),
        Section(2, "Tracking", "A composable tracks the mouse."),
    ],
    "composition": [Section(1, "Composition API FAQ", "Why the composition style. " + FILLER)],
    "watchers": [Section(1, "Watchers", "Watch a ref and run a side effect. " + FILLER)],
}


def test_a_word_known_only_as_the_stem_of_others_is_still_corrected(tmp_path: Path) -> None:
    answer = site(tmp_path, VUE).search_pages("composion api", limit=3)
    assert answer.get("also_matched", {}).get("composion") == ["composition"], answer
    # beside what was typed: the composables page, which its stem matches, is still found
    assert any(r["url"].endswith("/composables") for r in answer["results"])


CODE = {
    "install": [
        Section(1, "Install", "Get the client. " + FILLER),
        Section(
            2,
            "Extras",
            "For HTTP/2 run `pip install httpx[http2]`, then read the limits. "
            "```\nMAX_BODY = 16 * 1000 * 1000  # sixteen megabytes\n```\n"
            "A **bold** word, a [link](https://example.com/x) and ![a picture](p.png). " * 2,
        ),
    ],
    "other": [Section(1, "Other", "Nothing about extras. " + FILLER)],
}


def test_snippets_keep_code_characters(tmp_path: Path) -> None:
    answer = site(tmp_path, CODE).search_pages("extras http2 megabytes install body", limit=2)
    snippet = answer["results"][0]["snippet"]
    assert "pip install httpx[http2]" in snippet, snippet
    assert "16 * 1000 * 1000" in snippet, snippet
    # Markdown's own marks still go
    assert "**" not in snippet and "](" not in snippet and "![" not in snippet, snippet
    assert "bold word, a link and a picture" in snippet, snippet


def titled(*titles: str) -> Tools:
    pages = [
        {"url": f"https://docs.example.com/{t.lower().replace(' ', '-')}", "title": t}
        for t in titles
    ]
    data = {"pinax_manifest": 1, "name": "t", "url": "https://docs.example.com/", "pages": pages}
    return Tools(Library([from_dict(data)]))


def test_a_stem_two_written_words_share_does_not_merge_them() -> None:
    tools = titled("Custom portal", "Customer portal settings", "Billing", "Invoices")
    results = tools.search_pages("customer portal", limit=3)["results"]
    assert results[0]["title"] == "Customer portal settings", results
    # the form typed is what is preferred: "custom portal" still finds its own page first
    assert tools.search_pages("custom portal", limit=1)["results"][0]["title"] == "Custom portal"


def test_the_index_names_exactly_the_texts_that_have_a_stems_words() -> None:
    """surface_first reads only the title and headings the index lists under a typed word's
    stem: they must be exactly those whose words have that stem, read as the rule reads them."""
    from pinax.search.tokens import stem, words

    outlines = [
        ["Custom fields", "Billing", "Re-rendering a customer's portal", "customize"],
        ["Customize the theme", "Customs declarations", "Installation", "CustomerPortal"],
        [],
        ["Rendered output", "renders", "Render props", "The customer_id field"],
    ]
    titles = ["Customers", "Rendering", "Guide", "Render"]
    pages = [
        {
            "url": f"https://docs.example.com/{n}",
            "title": title,
            "outline": [{"level": 2, "title": text} for text in outline],
        }
        for n, (title, outline) in enumerate(zip(titles, outlines, strict=True))
    ]
    data = {"pinax_manifest": 1, "name": "t", "url": "https://docs.example.com/", "pages": pages}
    library = Library([from_dict(data)])
    collection = library.all()[0]
    table, index = collection.pages, collection.index
    for word in ("customer", "custom", "customize", "render", "rendering", "portal", "billing"):
        root = stem(word)
        listed = index.kernels.texts_with(list(range(len(pages))), [index.vocabulary.term(root)])
        for doc, numbers in enumerate(listed):
            texts = [(-1, table.title(doc))] + [
                (h, table.heading(h).title)
                for h in range(int(table.outline_start[doc]), int(table.outline_start[doc + 1]))
            ]
            holding = [n for n, text in texts if any(stem(w) == root for w, _ in words(text))]
            assert numbers == holding, (word, doc, numbers, holding)
