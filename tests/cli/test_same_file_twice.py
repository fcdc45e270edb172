"""Issue 38 item 7: the same manifest file named twice (a folder and a file in it, another
relative path, a symlink) is loaded once, by every command that takes --docs."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest
from typer.testing import CliRunner

from pinax.cli import app
from pinax.manifest import manifest_files
from tests.support.serving import ROOT

runner = CliRunner()


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    shipped = tmp_path / "manifests"
    shipped.mkdir()
    for name in ("stripe", "drf"):
        shutil.copy(ROOT / "manifests" / f"{name}.json", shipped / f"{name}.json")
    (tmp_path / "link.json").symlink_to(shipped / "stripe.json")
    return shipped


def twice(folder: Path) -> list[str]:
    other = folder / ".." / folder.name / "stripe.json"  # another path to the same file
    return [str(folder), str(folder / "stripe.json"), str(other), str(folder.parent / "link.json")]


def test_manifest_files_lists_a_file_once(folder: Path) -> None:
    files = manifest_files([Path(p) for p in twice(folder)])
    assert [f.name for f in files] == ["drf.json", "stripe.json"]


@pytest.mark.parametrize("command", ["search", "doctor"])
def test_every_command_loads_a_file_named_twice_once(
    folder: Path, command: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(folder.parent)
    args = [a for p in twice(folder) for a in ("--docs", p)] + ["--cache-dir", str(tmp_path / "c")]
    if command == "search":
        args += ["--json", "refund a payment"]
    result = runner.invoke(app, [command, *args])
    assert "also the name" not in result.output, result.output
    if command == "search":
        assert result.exit_code == 0, result.output
        assert json.loads(result.stdout)["results"], result.stdout
    else:  # doctor: the sites cannot be reached from here (exit 1), but each set loads once
        assert result.exit_code in (0, 1), result.output
        assert result.stdout.count("stripe: 444 pages") == 1, result.stdout


def test_the_server_loads_a_file_named_twice_once(folder: Path, tmp_path: Path) -> None:
    from pinax.cli.common import open_tools

    tools = open_tools(twice(folder), tmp_path / "c", read_pages=False)
    assert [d["name"] for d in tools.list_docs()["docs"]] == ["drf", "stripe"]
    assert os.path.samefile(folder / "stripe.json", folder.parent / "link.json")
