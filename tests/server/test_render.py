"""The text renderings: compact lines, nothing null, and fields added by newer code still shown."""

from __future__ import annotations

from pinax.server.render import render


def test_search_rendering_shows_new_fields_and_hides_nulls() -> None:
    answer = {
        "query": "usestate",
        "also_matched": None,
        "strategy": "bm25",
        "latency_ms": 1.234,
        "results": [
            {
                "url": "https://react.dev/reference/react/useState",
                "title": "useState",
                "section": "/reference/react",
                "score": 0.93456,
                "docs": "react",
                "confidence": 0.8,
                "why": None,
            }
        ],
    }
    assert render("search_pages", answer) == (
        "1 result for 'usestate':\n"
        "1. useState [react]: https://react.dev/reference/react/useState "
        "(section /reference/react; score 0.93; confidence 0.80)\n"
        "strategy: bm25\n"
        "latency_ms: 1.23"
    )
    empty = render("search_pages", {"query": "zzz", "results": []})
    assert empty == "0 results for 'zzz'\nTry other words, or browse with list_sections."


def test_page_rendering_puts_metadata_above_the_markdown() -> None:
    page = {
        "url": "https://x.dev/a",
        "title": "A",
        "source": "html",
        "cached": False,
        "outline": [
            {"level": 1, "heading": "A", "anchor": "a", "tokens": 900},
            {"level": 2, "heading": "Usage", "anchor": "usage", "tokens": 400},
        ],
        "next_cursor": "abc",
        "truncated": True,
        "markdown": "# A\n\nText.",
    }
    assert render("get_page", page) == (
        "title: A\nurl: https://x.dev/a\nsource: html\n"
        "Outline (pass a heading or #anchor as `section` to read it):\n"
        "- A (#a, ~900 tokens)\n  - Usage (#usage, ~400 tokens)\n"
        "More text follows: call again with cursor=abc\n\n# A\n\nText."
    )


def test_page_header_is_short_and_says_source_age_and_staleness() -> None:
    """A model reads the page: four short lines at most above it, the rest structured."""
    page = {
        "url": "https://x.dev/a",
        "requested_url": "https://x.dev/a/",
        "title": "A",
        "source": "negotiated",
        "source_url": "https://x.dev/a",
        "fetched_at": "2026-11-21T22:01:05+00:00",
        "content_hash": "sha256:" + "0" * 64,
        "cached": True,
        "cache": "stale",
        "stale": True,
        "age": 7200.0,
        "stale_reason": "the site answered 503",
        "total_tokens": 12,
        "truncated": False,
        "section": {"heading": "Usage", "anchor": "usage"},
        "markdown": "## Usage\n\nText.",
    }
    header, _, body = render("get_page", page).partition("\n\n")
    assert header.splitlines() == [
        "title: A",
        "url: https://x.dev/a",
        "source: negotiated, fetched 2026-11-21T22:01:05+00:00 (2 h ago); stale copy: the site "
        "answered 503",
        "section: Usage (#usage)",
    ]
    assert body == "## Usage\n\nText."


def test_listings() -> None:
    docs = {"docs": [{"name": "react", "title": "React", "url": "https://react.dev", "pages": 1}]}
    assert render("list_docs", docs) == (
        "1 documentation set (pass a name as `docs`):\n- react: React, https://react.dev (1 page)"
    )
    sections = {"sections": [{"docs": "a", "section": "/x", "pages": 3}]}
    assert render("list_sections", sections) == "1 section, largest first:\n- /x [a]: 3 pages"
    listed = {
        "section": "/x",
        "total": 3,
        "pages": [{"url": "https://a.dev/x/1", "title": "One", "section": "/x"}],
        "truncated": True,
        "next_offset": 1,
    }
    assert render("get_section_pages", listed) == (
        "Section /x: 3 pages, 1 shown:\n- One (/x): https://a.dev/x/1\n"
        "More pages: call again with offset=1."
    )
