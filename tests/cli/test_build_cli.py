"""The `pinax build` command and `--docs URL` of serve/search, end to end on loopback."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time

from typer.testing import CliRunner

from pinax import manifest as manifest_io
from pinax.cli import app
from tests.support.build_support import published, serve
from tests.support.http_site import Reply

runner = CliRunner()


def drf_site(site) -> str:
    real = {"https://www.django-rest-framework.org": site.origin}
    serve(site, "/sitemap.xml", published("django-rest-framework", "sitemap.xml"), real)
    return site.url("/")


def test_build_to_stdout_keeps_reports_on_stderr(site) -> None:
    result = runner.invoke(app, ["build", drf_site(site), "--name", "drf", "--delay", "0"])
    assert result.exit_code == 0, result.stderr
    manifest = manifest_io.loads(result.stdout)
    assert manifest.name == "drf" and len(manifest.pages) == 70
    assert "using sitemap at" in result.stderr


def test_build_write_check_and_exit_codes(site, tmp_path) -> None:
    out = tmp_path / "drf.json"
    url = drf_site(site)
    assert runner.invoke(app, ["build", url, "-o", str(out), "-q"]).exit_code == 0
    assert len(manifest_io.load(out).pages) == 70
    assert runner.invoke(app, ["build", url, "-o", str(out), "--check"]).exit_code == 0

    data = json.loads(out.read_text())
    data["pages"][0]["title"] = "Renamed"
    out.write_text(json.dumps(data))
    checked = runner.invoke(app, ["build", url, "-o", str(out), "--check"])
    assert checked.exit_code == 1 and "1 retitled" in checked.stderr
    assert json.loads(out.read_text())["pages"][0]["title"] == "Renamed"  # untouched

    fewer = runner.invoke(app, ["build", url, "-o", str(out), "--include", "/api-guide/*"])
    assert fewer.exit_code == 3 and "disappeared" in fewer.stderr
    assert json.loads(out.read_text())["pages"][0]["title"] == "Renamed"


def test_failed_build_leaves_the_output_alone(site, tmp_path) -> None:
    out = tmp_path / "drf.json"
    out.write_text("previous\n")
    site.add("/sitemap.xml", Reply(500, b"oops"))
    result = runner.invoke(app, ["build", site.url("/sitemap.xml"), "-o", str(out)])
    assert result.exit_code == 2 and "HTTP 500" in result.stderr
    assert out.read_text() == "previous\n"
    assert sorted(os.listdir(tmp_path)) == ["drf.json"]


def test_bad_options_are_usage_errors(tmp_path) -> None:
    result = runner.invoke(app, ["build", "https://example.com", "--check"])
    assert result.exit_code == 2 and "-o FILE" in result.stderr
    result = runner.invoke(app, ["build", "https://example.com", "--titles", "maybe"])
    assert result.exit_code == 2 and "--titles" in result.stderr


def test_search_builds_a_site_on_the_fly_and_caches_it(site, tmp_path, monkeypatch) -> None:
    monkeypatch.setenv("PINAX_CACHE_DIR", str(tmp_path))
    url = drf_site(site)
    first = runner.invoke(app, ["search", "--docs", url, "--json", "authentication"])
    assert first.exit_code == 0, first.stderr
    results = json.loads(first.stdout)["results"]
    assert results[0]["url"] == site.url("/api-guide/authentication/")
    assert "building a manifest of" in first.stderr
    [cached] = (tmp_path / "manifests").iterdir()
    port = url.split(":")[2].split("/")[0]
    assert cached.name.startswith(f"127.0.0.1-{port}-") and cached.suffix == ".json"

    requests = len(site.requests)
    again = runner.invoke(app, ["search", "--docs", url, "--json", "authentication"])
    assert again.exit_code == 0 and len(site.requests) == requests  # fresh: no network
    assert again.stderr == ""

    old = time.time() - 8 * 24 * 3600  # past the 7-day freshness
    os.utime(cached, (old, old))
    site.routes.clear()  # the site now fails: the stale copy is used, with a warning
    stale = runner.invoke(app, ["search", "--docs", url, "--json", "authentication"])
    assert stale.exit_code == 0 and "using the copy built 192 h ago" in stale.stderr
    assert json.loads(stale.stdout)["results"]


def test_search_accepts_a_published_file(tmp_path, monkeypatch) -> None:
    monkeypatch.setenv("PINAX_CACHE_DIR", str(tmp_path))
    source = str(published("google-adk", "llms.txt"))
    result = runner.invoke(app, ["search", "--docs", source, "--json", "multi tool agent"])
    assert result.exit_code == 0, result.stderr
    top = json.loads(result.stdout)["results"][0]
    assert top["url"] == "https://adk.dev/tutorials/multi-tool-agent/"


def test_serve_builds_on_the_fly_without_a_byte_on_stdout(site, tmp_path) -> None:
    # stdout is the MCP channel: progress and notes must all go to stderr.
    env = {**os.environ, "PINAX_CACHE_DIR": str(tmp_path)}
    done = subprocess.run(
        [sys.executable, "-m", "pinax", "serve", "--docs", drf_site(site)],
        stdin=subprocess.DEVNULL,
        capture_output=True,
        env=env,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr.decode()
    assert done.stdout == b""
    assert b"building a manifest of" in done.stderr
    assert len(list((tmp_path / "manifests").iterdir())) == 1
