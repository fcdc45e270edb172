"""Issue 38, the CLI's part of a newcomer's first hour: each surprise found, through the real
CLI (typer's runner in-process), kept fixed."""

from __future__ import annotations

import pytest
from typer.testing import CliRunner

from pinax.cli import app
from tests.serving import ROOT

runner = CliRunner()
STRIPE = str(ROOT / "manifests" / "stripe.json")


def invoke(*args: str, stdin: str | None = None):
    return runner.invoke(app, list(args), input=stdin)


# Item 2: ports are 0..65535, checked by the CLI before anything is loaded or bound ----------


@pytest.mark.parametrize("port", ["99999", "70000", "65536", "-1"])
def test_port_out_of_range_is_refused(port: str) -> None:
    result = invoke("serve", "--http", "--docs", STRIPE, "--port", port)
    assert result.exit_code == 2, result.output
    assert (
        "--port" in result.stderr
        and f"a port is 0..65535 (0 picks a free one), got {port}" in result.stderr
    ), result.stderr
