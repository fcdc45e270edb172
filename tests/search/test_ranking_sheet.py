"""The defaults and formulas a shell user or a client reads come from the one ranking sheet:
`pinax search --help` and `pinax serve --help`, the tool specs, the docs (the tool reference
page and the concepts' prose) and what `pinax serve` and `search_pages` use when nothing is
given. Modelled on datasette's test_settings_are_documented: a rule changed in
`pinax.search.ranking` and not where it is told fails here."""

from __future__ import annotations

import re
from dataclasses import fields

import pytest
from typer.testing import CliRunner

from pinax.cli import app
from pinax.library import Library
from pinax.manifest import from_dict
from pinax.search import RANKING, Ranking, content_formula, meaning_formula
from pinax.server import reference
from pinax.server.toolspecs import SEARCH_PAGES
from pinax.tools import Tools, search_weights
from tests.conftest import ROOT

WEIGHTS = ("lexical_weight", "embedding_weight", "content_weight")


def _help(*words: str) -> str:
    """A command's --help as one line of words (the terminal's width wraps it anywhere)."""
    result = CliRunner().invoke(app, [*words, "--help"], env={"COLUMNS": "200"})
    assert result.exit_code == 0, result.output
    return " ".join(re.sub(r"[│╭╮╰╯─]", " ", result.stdout).split())


@pytest.mark.parametrize("command", ["search", "serve"])
def test_cli_help_states_the_sheets_weights(command: str) -> None:
    """`--lexical-weight [default: 0.8]` was a literal while search used 0.65."""
    text = _help(command)
    for name in WEIGHTS:
        option = "--" + name.replace("_", "-")
        stated = re.search(re.escape(option) + r" W .*?\[default: ([0-9.]+)\]", text)
        assert stated is not None, (option, text)
        assert float(stated.group(1)) == getattr(RANKING, name), option


def test_tool_specs_state_the_sheets_defaults_and_formulas() -> None:
    args = {arg.name: arg.schema for arg in SEARCH_PAGES.args}
    for name in WEIGHTS:
        assert f"(default {getattr(RANKING, name)};" in args[name]["description"], name
        assert args[name]["examples"] == [getattr(RANKING, name)]
    assert meaning_formula() in args["lexical_weight"]["description"]
    assert content_formula() in args["content_weight"]["description"]
    confidence = SEARCH_PAGES.output["properties"]["results"]["items"]["properties"]["confidence"]
    told = confidence["description"]
    for value in (RANKING.high_score, RANKING.high_margin, RANKING.medium_score):
        assert str(value) in told


def test_content_formula_is_the_one_search_uses() -> None:
    """The spec once said (1 - w) x titles + w x content: the share grows with the query's
    length and the title score is a floor."""
    text = content_formula()
    assert f"{RANKING.short_share} of it at {RANKING.name_words} words" in text
    assert f"from {RANKING.question_words}" in text
    assert "larger of" in text and "known only to page text" in text
    short = RANKING.short_share * RANKING.content_weight
    assert RANKING.content_share(RANKING.name_words) == pytest.approx(short)
    assert RANKING.content_share(1, text_only=True) == RANKING.content_weight
    assert RANKING.content_share(RANKING.question_words) == RANKING.content_weight
    assert RANKING.content_share(RANKING.question_words + 5) == RANKING.content_weight
    middle = (RANKING.name_words + RANKING.question_words) // 2
    assert 0.0 < RANKING.content_share(middle) < RANKING.content_weight


def test_the_docs_state_the_sheets_defaults_and_formulas() -> None:
    tools_page = (ROOT / "docs" / "reference" / "tools.md").read_text()
    block = reference.block_of(tools_page)
    assert block == reference.markdown(), (
        "run python -m pinax.server.reference --write docs/reference/tools.md"
    )
    assert content_formula() in block and meaning_formula() in block
    concepts = ROOT / "docs" / "concepts"
    prose = " ".join(
        ((concepts / "search.md").read_text() + (concepts / "content.md").read_text()).split()
    )
    lexical, embedding = RANKING.lexical_weight, RANKING.embedding_weight
    assert f"the defaults are {lexical} and {embedding}" in prose
    assert f"`content_weight` (default {RANKING.content_weight})" in prose
    assert f"`{RANKING.alike_spread} x ln(m)`" in prose
    assert f"(`high` >= {RANKING.high_score}, `medium` >= {RANKING.medium_score}" in prose


def test_serve_and_search_pages_default_to_the_sheet() -> None:
    assert search_weights(None, None, None) == tuple(getattr(RANKING, n) for n in WEIGHTS)
    manifest = from_dict(
        {
            "pinax_manifest": 1,
            "name": "demo",
            "url": "https://demo.example/",
            "pages": [{"url": "https://demo.example/a", "title": "Alpha"}],
        }
    )
    tools = Tools(Library([manifest]))
    assert tools.weights == tuple(getattr(RANKING, n) for n in WEIGHTS)


def test_every_rule_says_where_it_was_measured() -> None:
    """Each field of the sheet follows a comment (its evidence; rules set together share one)."""
    source = (ROOT / "pinax" / "search" / "ranking.py").read_text().splitlines()
    rule_line = re.compile(r"^    \w+: .+ = .+")
    for rule in fields(Ranking):
        at = next(i for i, line in enumerate(source) if line.startswith(f"    {rule.name}: "))
        while rule_line.match(source[at]):
            at -= 1
        assert source[at].strip().startswith("#"), rule.name
