"""Issue 38 item 14: a page nothing of the query matched (score 0) is not a hit. Scores are
rounded to 4 decimals by the library; tools.py drops a hit whose score is 0 there, so the CLI's
two-decimal table never shows `0.00` for a page that matched nothing."""

from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

from pinax.cli import app
from pinax.tools import Tools
from tests.support.serving import ROOT

SHIPPED = sorted((ROOT / "manifests").glob("*.json"))
# Queries where one word matches and one matches nothing: the fan-out used to pad the list
# with pages that scored 0.
QUERIES = ("refund zzzzqq", "webhook qqqxx", "serializer zzyzx", "widget xqxqx")


@pytest.fixture(scope="module")
def tools(tmp_path_factory: pytest.TempPathFactory) -> Tools:
    return Tools.open(SHIPPED, cache_dir=tmp_path_factory.mktemp("cache"))


@pytest.mark.parametrize("query", QUERIES)
def test_no_result_scores_zero(tools: Tools, query: str) -> None:
    results = tools.search_pages(query, limit=50)["results"]
    assert results, query
    assert all(r["score"] > 0 for r in results), [(r["title"], r["score"]) for r in results]


def test_the_cli_lists_no_zero_scores(tmp_path) -> None:
    runner = CliRunner()
    docs = [a for p in SHIPPED for a in ("-d", str(p))]
    args = ["search", *docs, "--cache-dir", str(tmp_path), "-n", "50", "refund zzzzqq"]
    table = runner.invoke(app, args)
    assert table.exit_code == 0 and "0.00  " not in table.stdout, table.stdout
    rows = json.loads(runner.invoke(app, [*args, "--json"]).stdout)["results"]
    assert rows and min(r["score"] for r in rows) > 0
