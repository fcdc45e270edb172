"""The documentation site: it builds with `mkdocs build --strict` (the `docs` extra; skipped,
saying so, where it is absent), every page is reachable from the navigation, and the pages
generated from the code (commands, client configuration, tools, error codes, environment
variables) are exactly what the code makes now."""

from __future__ import annotations

import importlib.util
import re
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from pinax.cli import reference as cli_reference

ROOT = Path(__file__).resolve().parents[2]
DOCS = ROOT / "docs"
REGENERATE = "run python -m pinax.cli.reference --write docs/reference"


def nav_pages(entries: list) -> list[str]:
    found = []
    for entry in entries:
        value = next(iter(entry.values())) if isinstance(entry, dict) else entry
        found += nav_pages(value) if isinstance(value, list) else [value]
    return found


def test_every_page_is_in_the_navigation_and_every_entry_is_a_page() -> None:
    config = yaml.safe_load((ROOT / "mkdocs.yml").read_text())
    listed = nav_pages(config["nav"])
    pages = sorted(str(p.relative_to(DOCS)) for p in DOCS.rglob("*.md"))
    assert sorted(listed) == pages
    assert len(set(listed)) == len(listed), "a page is listed twice"


@pytest.mark.skipif(
    importlib.util.find_spec("mkdocs") is None or importlib.util.find_spec("material") is None,
    reason="the docs extra is not installed (pip install -e '.[docs]'): mkdocs build not run",
)
def test_the_site_builds_strict(tmp_path: Path) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "-q", "-d", str(tmp_path / "site")],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    assert (tmp_path / "site" / "reference" / "cli" / "index.html").is_file()
    assert (tmp_path / "site" / "manifest.schema.json").is_file()
    security = (tmp_path / "site" / "concepts" / "security" / "index.html").read_text()
    assert "Threat model" in security  # SECURITY.md itself, included
    changelog = (tmp_path / "site" / "changelog" / "index.html").read_text()
    assert "Unreleased" in changelog


def test_the_cli_reference_is_what_the_code_makes() -> None:
    for name, make in cli_reference.PAGES.items():
        committed = (DOCS / "reference" / name).read_text()
        assert committed == make(), f"docs/reference/{name} is stale: {REGENERATE}"


def test_the_cli_reference_lists_every_command_and_option() -> None:
    import typer

    from pinax.cli import app

    text = (DOCS / "reference" / "cli.md").read_text()
    group = typer.main.get_command(app)
    for words, command in cli_reference._commands(group):
        assert f"## `pinax {words}`" in text
        for param in command.params:
            for option in getattr(param, "opts", ()):
                if option.startswith("-") and not param.hidden:
                    assert option in text, (words, option)


def test_the_weights_the_help_gives_are_the_ones_search_uses() -> None:
    """The help said 0.8 / 0.2 after the defaults had become 0.65 / 0.35."""
    from pinax.tools import CONTENT_WEIGHT, EMBEDDING_WEIGHT, LEXICAL_WEIGHT

    text = (DOCS / "reference" / "cli.md").read_text()
    for option, default in (
        ("--lexical-weight W", LEXICAL_WEIGHT),
        ("--embedding-weight W", EMBEDDING_WEIGHT),
        ("--content-weight W", CONTENT_WEIGHT),
    ):
        rows = [row for row in text.splitlines() if row.startswith(f"| `{option}` |")]
        assert rows and all(f"[default: {default}]" in row for row in rows), option


def test_the_environment_page_lists_every_variable_pinax_reads() -> None:
    code = "\n".join(p.read_text() for p in (ROOT / "pinax").rglob("*.py"))
    used = set(re.findall(r"\bPINAX_[A-Z_]+[A-Z]\b", code))
    text = (DOCS / "reference" / "environment.md").read_text()
    documented = set(re.findall(r"^\| `(PINAX_[A-Z_]+)` \|", text, re.MULTILINE))
    assert documented == used


def test_security_and_changelog_are_linked_from_the_site() -> None:
    assert (DOCS / "concepts" / "security.md").read_text().count('--8<-- "SECURITY.md"') == 1
    assert (DOCS / "changelog.md").read_text().strip() == '--8<-- "CHANGELOG.md"'
    changelog = (ROOT / "CHANGELOG.md").read_text()
    assert "## [Unreleased]" in changelog and "## [0.1.0]" in changelog


def test_the_readmes_links_lead_somewhere() -> None:
    """Every relative link of the README names a file of the checkout (the site's pages are
    read as Markdown from a checkout too)."""
    readme = (ROOT / "README.md").read_text()
    targets = re.findall(r"\]\(([^)#:]+)(?:#[^)]*)?\)", readme)
    assert len(targets) > 15
    missing = [t for t in targets if not (ROOT / t).exists()]
    assert missing == []


def test_the_readme_stays_short() -> None:
    assert len((ROOT / "README.md").read_text().splitlines()) <= 250
