"""One-shot `pinax search` on a docs folder: the text is indexed before the answer (saying
so on stderr for a big folder), and `--url` and `--layout` give the URLs `pinax build` gives."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from pinax.cli import app
from pinax.cli import search as search_command


def folder(root: Path, extra: int = 0) -> Path:
    """An MkDocs folder: two pages whose body words no title or heading has, and `extra`
    filler pages."""
    (root / "docs" / "guide").mkdir(parents=True)
    (root / "mkdocs.yml").write_text("site_name: t\n")
    (root / "docs" / "index.md").write_text("# Home\n\nWelcome.\n\n## Install\n\nRun it.\n")
    (root / "docs" / "guide" / "setup.md").write_text(
        "# Guide\n\nThe runtime is petite, a full build is overkill.\n\n## Steps\n\nNone.\n"
    )
    for at in range(extra):
        (root / "docs" / f"page{at}.md").write_text(f"# Page {at}\n\nFiller text {at}.\n")
    return root


def search(*args: str) -> tuple[list[dict], str]:
    result = CliRunner().invoke(app, ["search", "--json", *args])
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)["results"], result.stderr


def test_a_word_only_the_text_uses_is_found_in_one_shot(tmp_path: Path) -> None:
    results, _ = search("--docs", str(folder(tmp_path)), "overkill")
    assert results and results[0]["url"].endswith("guide/setup.md"), results
    assert "overkill" in results[0]["snippet"]


def test_a_big_folder_says_on_stderr_that_its_text_is_read(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(search_command, "PROGRESS_PAGES", 3)
    results, err = search("--docs", str(folder(tmp_path, extra=3)), "petite")
    assert "reading the text of 5 pages" in err and "indexed in" in err, err
    assert results[0]["url"].endswith("guide/setup.md")


@pytest.mark.parametrize("layout", ["mkdocs", "plain"])
def test_url_and_layout_mean_what_they_mean_on_build(tmp_path: Path, layout: str) -> None:
    root = folder(tmp_path / "site")
    site = "https://docs.example.org/"
    out = tmp_path / "built.json"
    built = CliRunner().invoke(
        app, ["build", str(root), "--url", site, "--layout", layout, "-o", str(out), "-q"]
    )
    assert built.exit_code == 0, built.output
    urls = {page["url"] for page in json.loads(out.read_text())["pages"]}
    results, _ = search("--docs", str(root), "--url", site, "--layout", layout, "petite")
    assert results[0]["url"] in urls, (results[0]["url"], urls)
    assert results[0]["url"].startswith(site)
