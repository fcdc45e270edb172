"""Issue 38 items 6 and 8, on the shipped manifests: a section without its leading slash, and
sections that agree with their pages (fasthtml lists pages on other hosts)."""

from __future__ import annotations

from pathlib import Path

import pytest

from pinax.tools import Tools
from tests.support.serving import ROOT

SHIPPED = sorted((ROOT / "manifests").glob("*.json"))


@pytest.fixture(scope="module")
def tools(tmp_path_factory: pytest.TempPathFactory) -> Tools:
    return Tools.open(SHIPPED, cache_dir=tmp_path_factory.mktemp("cache"))


# Item 6: `patterns` is `/patterns`, also below the base path ---------------------------------


@pytest.mark.parametrize(
    ("docs", "bare"),
    [("drf", "topics"), ("drf", "api-guide"), ("fasthtml", "explains"), ("textual", "guide")],
)
def test_a_section_without_its_slash_is_the_same_section(tools: Tools, docs, bare) -> None:
    slashed = tools.get_section_pages("/" + bare, docs=docs)
    assert tools.get_section_pages(bare, docs=docs) == slashed
    assert slashed["total"] > 0


def test_a_bare_section_is_tried_below_the_base_path(tools: Tools) -> None:
    found = tools.get_section_pages("tutorials", docs="fasthtml")  # the base path is /docs
    assert found["section"] == "/docs/tutorials" and found["total"] == 3


# Item 8: every section's count is what get_section_pages of it lists -------------------------


@pytest.mark.parametrize("manifest", SHIPPED, ids=lambda p: p.stem)
def test_sections_agree_with_their_pages(tools: Tools, manifest: Path) -> None:
    name = manifest.stem
    sections = tools.list_sections(name)["sections"]
    assert sections
    for section in sections:
        listed = tools.get_section_pages(section["section"], docs=name, limit=1000)
        assert listed["total"] == section["pages"], (name, section, listed["total"])


def test_fasthtml_pages_on_other_hosts_are_their_own_sections(tools: Tools) -> None:
    sections = {s["section"]: s["pages"] for s in tools.list_sections("fasthtml")["sections"]}
    assert sections["/docs"] == 14  # every page below the base path
    assert sections["/AnswerDotAI"] == 4 and sections["/jph00"] == 2


def test_list_docs_shows_the_other_hosts_get_page_may_read(tools: Tools) -> None:
    docs = {d["name"]: d for d in tools.list_docs()["docs"]}
    assert docs["fasthtml"]["hosts"] == ["gist.githubusercontent.com", "raw.githubusercontent.com"]
    assert docs["stripe"]["hosts"] == ["support.stripe.com"]
    assert "hosts" not in docs["drf"]  # only its own site
    reader = tools.reader
    assert reader is not None
    assert "https://raw.githubusercontent.com" in tools.library.site_roots()
