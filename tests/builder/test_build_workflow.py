"""The CI example's rebuild script, run as GitHub Actions runs it (bash -eo pipefail), against
loopback sites: manifests written, a shrinking site refused and reported."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.support.build_support import published, serve

WORKFLOW = Path(__file__).resolve().parents[2] / "examples" / "ci" / "refresh-manifests.yml"


def step_script(name: str) -> str:
    """The `run: |` block of the step called `name` (read as text: no YAML library needed)."""
    lines = WORKFLOW.read_text().splitlines()
    start = next(i for i, line in enumerate(lines) if line.strip() == f"- name: {name}")
    run = next(i for i in range(start, len(lines)) if lines[i].strip() == "run: |")
    indent = len(lines[run]) - len(lines[run].lstrip()) + 2
    block = []
    for line in lines[run + 1 :]:
        if line.strip() and len(line) - len(line.lstrip()) < indent:
            break
        block.append(line[indent:])
    return "\n".join(block)


def run_rebuild(tmp_path: Path, manifests: str) -> tuple[dict[str, str], str]:
    output = tmp_path / "github_output"
    output.write_text("")
    pinax_bin = Path(sys.executable).parent
    env = {
        **os.environ,
        "PATH": f"{pinax_bin}{os.pathsep}{os.environ['PATH']}",
        "MANIFESTS": manifests,
        "MANIFEST_DIR": "manifests",
        "RUNNER_TEMP": str(tmp_path),
        "GITHUB_OUTPUT": str(output),
    }
    bash = shutil.which("bash")
    if bash is None:
        pytest.skip("bash is not installed")
    script = tmp_path / "step.sh"
    script.write_text(step_script("Rebuild manifests"))
    subprocess.run(
        [bash, "--noprofile", "--norc", "-eo", "pipefail", str(script)],
        cwd=tmp_path,
        env=env,
        check=True,
        timeout=120,
    )
    outputs = dict(line.split("=", 1) for line in output.read_text().splitlines())
    return outputs, Path(outputs["report"]).read_text()


def test_rebuild_step_writes_manifests_and_refuses_a_shrunk_site(site, tmp_path) -> None:
    real = {"https://textual.textualize.io": site.origin}
    serve(site, "/sitemap.xml", published("textual", "sitemap.xml"), real)
    manifests = f"""
    # name   source   options
    textual  {site.url("/sitemap.xml")}
    docs     {site.url("/sitemap.xml")}   --exclude /blog/* --delay 0
    """
    outputs, report = run_rebuild(tmp_path, manifests)
    assert outputs["failed"] == "0"
    assert "### textual: ok" in report and "### docs: ok" in report
    assert (tmp_path / "manifests" / "textual.json").read_text().count('"url"') == 302
    assert (tmp_path / "manifests" / "docs.json").read_text().count('"url"') == 241

    # The site loses its blog (61 of 301 pages, over the 20% allowed): refused, reported.
    manifests = f"textual {site.url('/sitemap.xml')} --exclude /blog/*"
    before = (tmp_path / "manifests" / "textual.json").read_text()
    outputs, report = run_rebuild(tmp_path, manifests)
    assert outputs["failed"] == "1"
    assert "### textual: REFUSED" in report and "disappeared" in report
    assert (tmp_path / "manifests" / "textual.json").read_text() == before
