"""Every word is what it was typed as: a stop word in prose is no symbol's name, a word the
page text uses is no typo, and a stem shared by unrelated words does not merge them."""

from __future__ import annotations

from pathlib import Path

import pytest

from pinax.library import Library
from pinax.manifest import load
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
