"""Short queries and page text: a word only the text uses finds the pages that use it, a
title that answers still leads, and a heading that is the whole question is a strong signal."""

from __future__ import annotations

import json
from pathlib import Path

from pinax.library import Library
from pinax.manifest import PageText, Section, companion_path, write_page_texts
from pinax.search import RANKING
from pinax.search.tokens import holds_marks, stem, stem_mark, stemmer
from pinax.tools import Tools

FILLER = "Components render templates and update the page when state changes. " * 3


def site(folder: Path, pages: dict[str, list[Section]]) -> Tools:
    """A manifest of `pages` (title, outline) with its content file, loaded."""
    rows = [
        {
            "url": f"https://vue.example.com/{name}",
            "title": sections[0].heading,
            "outline": [
                {"level": s.level, "title": s.heading, "anchor": f"s{at}"}
                for at, s in enumerate(sections[1:])
            ],
        }
        for name, sections in pages.items()
    ]
    manifest = folder / "vue.json"
    data = {"pinax_manifest": 1, "name": "vue", "url": "https://vue.example.com/", "pages": rows}
    manifest.write_text(json.dumps(data))
    texts = [
        PageText(f"https://vue.example.com/{name}", tuple(sections), "2026-11-01T00:00:00Z")
        for name, sections in pages.items()
    ]
    write_page_texts(companion_path(manifest), texts)
    library = Library.load([manifest], index_dir=folder / "cache")
    library.load_contents()
    return Tools(library)


VUE = {
    "introduction": [
        Section(1, "Introduction", "Vue is a framework. " + FILLER),
        Section(2, "What is Vue?", "Vue is a JavaScript framework for building interfaces."),
        Section(2, "Progressive", "Vue can be petite: a single script tag is enough. " + FILLER),
    ],
    "faq": [
        Section(1, "Frequently Asked Questions", FILLER),
        Section(2, "Who maintains Vue?", "Vue is maintained by a team. Vue Vue Vue. " + FILLER),
        Section(2, "Size", "For a small widget a full build is overkill; petite builds exist."),
    ],
    "vue-and-web-components": [
        Section(1, "Vue and Web Components", "Vue works with web components. Vue. " + FILLER),
    ],
    "watchers": [Section(1, "Watchers", "Watch reactive state. " + FILLER)],
    "reactivity": [
        Section(1, "Reactivity in Depth", "Watchers watchers watchers track state. " + FILLER),
    ],
}


def urls(tools: Tools, query: str) -> list[str]:
    return [r["url"].rsplit("/", 1)[-1] for r in tools.search_pages(query, limit=5)["results"]]


def test_a_word_only_the_text_uses_finds_the_pages_that_use_it(tmp_path: Path) -> None:
    tools = site(tmp_path, VUE)
    assert set(urls(tools, "petite")[:2]) == {"introduction", "faq"}
    assert urls(tools, "overkill")[0] == "faq"
    assert urls(tools, "petite build")[0] == "faq"  # two words, one only the text knows


def test_a_short_query_a_title_answers_still_finds_that_title_first(tmp_path: Path) -> None:
    assert urls(site(tmp_path, VUE), "watchers")[0] == "watchers"


def test_a_heading_that_is_the_whole_question_leads(tmp_path: Path) -> None:
    tools = site(tmp_path, VUE)
    first = tools.search_pages("What is Vue?", limit=5)["results"][0]
    assert first["url"].endswith("/introduction"), first
    assert first.get("heading", "").endswith("What is Vue?"), first


def test_short_queries_give_content_a_share() -> None:
    assert 0 < RANKING.content_share(1) < RANKING.content_weight


def test_an_irregular_participle_meets_its_verb_by_its_stem(tmp_path: Path) -> None:
    """ "shown" is stemmed as "show" (the stemmer leaves it alone): found as typed, in the
    titles and in the text, never corrected into another word."""
    assert stem("shown") == stem("show") == stem("shows")
    assert stemmer()(["shown", "written", "shows"]) == [stem("show"), stem("write"), "show"]
    tools = site(tmp_path, {**VUE, "dialogs": [Section(1, "Show a dialog", FILLER)]})
    found = tools.search_pages("shown", limit=5)
    assert found["results"][0]["url"].endswith("/dialogs"), found
    assert "shown" not in json.dumps(found.get("also_matched", {})), found  # not a correction


def test_every_form_of_a_stem_holds_its_mark() -> None:
    """The cheap checks skip a heading without a stem's mark: no form may lack it (`using`
    is stemmed `use`, `lazily` `lazili`, `shown` `show`)."""
    forms = "using uses lazily lazy studies studying configuring shown written vue go gone"
    for word in forms.split():
        assert stem_mark(stem(word)) in word, word
    # `re-render` is also one token, `rerend`: a heading "Re-rendering" holds its mark
    assert holds_marks("Re-rendering a list", [stem_mark(stem("rerender"))])
    assert not holds_marks("Rendering a list", [stem_mark(stem("rerender"))])
