"""Issue 38 item 16: skips explain themselves, and a run ends with one line saying what was
skipped and how to run it (the shared data, the Node clients)."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from tests.conftest import skipped_summary
from tests.support.serving import ROOT


def test_the_summary_names_each_cause_and_its_remedy() -> None:
    line = skipped_summary(
        [
            "real data not found at /x (set PINAX_SHARED to the shared folder: ...)",
            "real data not found at /y (set PINAX_SHARED to the shared folder: ...)",
            "tests/js/node_modules is missing: the Node clients are installed by "
            "(cd tests/js && npm ci)",
            "pseudo-terminals are POSIX",
            # A docs line that installs the clients is skipped for the network, not for them.
            "(cd tests/js && npm ci): installs the Node clients (network)",
        ]
    )
    assert line == (
        "pinax: 5 tests skipped: 2 need the shared data (set PINAX_SHARED=/path/to/shared); "
        "1 need the Node clients (run (cd tests/js && npm ci)); "
        "2 for other reasons (pytest -rs lists them)"
    )
    assert skipped_summary([]) is None


def test_a_run_without_the_shared_data_says_so_at_its_end(tmp_path: Path) -> None:
    """A real pytest run (of a test that needs the shared data) ends with the line."""
    test = tmp_path / "test_needs_shared.py"
    test.write_text(
        textwrap.dedent(
            """
            from tests.conftest import shared_path

            def test_it():
                shared_path("corpora")
            """
        )
    )
    env = {
        "PATH": "/usr/bin:/bin",
        "PYTHONPATH": str(ROOT),
        "PINAX_SHARED": str(tmp_path / "none"),
        "HOME": str(tmp_path),
    }
    # The file lies outside tests/: its conftest is loaded as the plugin it is.
    command = [
        sys.executable,
        "-m",
        "pytest",
        "-q",
        "-p",
        "no:cacheprovider",
        "-p",
        "tests.conftest",
    ]
    command += ["--rootdir", str(ROOT), "-c", str(ROOT / "pyproject.toml"), str(test)]
    done = subprocess.run(command, capture_output=True, text=True, cwd=ROOT, env=env, timeout=300)
    assert "1 skipped" in done.stdout, done.stdout + done.stderr
    assert (
        "pinax: 1 test skipped: 1 need the shared data (set PINAX_SHARED=/path/to/shared)"
        in done.stdout
    ), done.stdout


def test_node_client_tests_without_shared_data_also_ask_for_npm_ci(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from tests.server import test_clients_js

    monkeypatch.setattr(test_clients_js, "SHARED", tmp_path / "none")
    monkeypatch.setattr(test_clients_js, "MODULES", tmp_path / "node_modules")
    with pytest.raises(pytest.skip.Exception) as skipped:
        test_clients_js.shared_for_node("corpora", "manifests", "react.json")
    reason = str(skipped.value)
    assert "PINAX_SHARED" in reason and "(cd tests/js && npm ci)" in reason
    line = skipped_summary([reason])
    assert line is not None and "need the shared data" in line
