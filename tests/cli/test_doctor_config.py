"""`pinax doctor` and `pinax config CLIENT` through the real CLI: doctor against sites on
loopback (healthy, unreachable, refused, a broken manifest), config by parsing what it prints
and starting the server it describes with a real MCP client."""

from __future__ import annotations

import json
import os
import shlex
import subprocess
import sys
from pathlib import Path

import pytest
from mcp import Client, StdioServerParameters
from typer.testing import CliRunner

from pinax.cli import app
from tests.support.http_site import Reply, Request, Site
from tests.support.manifests import write_manifest as manifest
from tests.support.serving import ROOT, closed_port

runner = CliRunner()


def invoke(*args: str):
    return runner.invoke(app, list(args))


def docs_site(site: Site) -> None:
    """A docs site: robots.txt (one folder closed), a page that serves Markdown on request."""
    site.add("/", Reply(body=b"<html><body><h1>Docs</h1></body></html>"))
    site.add("/robots.txt", Reply(body=b"User-agent: *\nDisallow: /private/\n"))

    def guide(request: Request) -> Reply:
        if "text/markdown" in request.headers.get("accept", ""):
            return Reply(body=b"# Guide\n\nText.", headers={"Content-Type": "text/markdown"})
        return Reply(body=b"<html><body><h1>Guide</h1></body></html>")

    site.add("/guide/", guide)


def test_doctor_reports_a_healthy_set_up(site: Site, tmp_path: Path) -> None:
    docs_site(site)
    path = manifest(tmp_path, "demo", site.url("/"), ("/guide/", "/faq/"))
    cache = ["--cache-dir", str(tmp_path / "cache")]
    done = invoke("doctor", "--docs", str(path), *cache, "--json")
    assert done.exit_code == 0, done.output
    report = json.loads(done.stdout)
    assert report["versions"]["pinax"] == "0.1.0" and report["versions"]["mcp"]
    assert report["cache"]["writable"] and not report["cache"]["exists"]
    [entry] = report["docs"]
    assert (entry["name"], entry["pages"], entry["index"]) == ("demo", 2, "missing")
    assert entry["site"] == {
        "url": site.url("/"),
        "reachable": True,
        "status": 200,
        "robots": "allows pinax",
        "markdown": "served on request",
    }
    assert report["problems"] == []
    assert any("search index missing" in w for w in report["warnings"])
    served = report["client"]["stdio"]["mcpServers"]["pinax"]
    assert served["args"][-4:] == ["--docs", str(path), "--cache-dir", str(tmp_path / "cache")]

    assert invoke("search", "--docs", str(path), *cache, "guide").exit_code == 0
    text = invoke("doctor", "--docs", str(path), *cache)
    assert text.exit_code == 0
    lines = text.stdout.splitlines()
    assert lines[0].startswith("pinax 0.1.0 (Python ")
    assert f"demo: 2 pages ({path}); outlines 0%; search index fresh" in lines
    assert (
        f"  site {site.url('/')}: reachable (HTTP 200); robots.txt allows pinax; "
        "Markdown served on request"
    ) in lines
    assert lines[-1] == "ok: nothing is broken"

    data = json.loads(path.read_text())
    data["pages"].append({"url": site.url("/new/"), "title": "New"})
    path.write_text(json.dumps(data))
    again = json.loads(invoke("doctor", "--docs", str(path), *cache, "--json").stdout)
    assert again["docs"][0]["index"] == "stale"


def test_doctor_names_what_is_broken_and_exits_1(tmp_path: Path) -> None:
    gone = f"http://127.0.0.1:{closed_port()}"
    down = manifest(tmp_path, "down", gone + "/", ("/a/",))
    bad = tmp_path / "bad.json"
    bad.write_text('{"pinax_manifest": 1, "name": "bad", "url": "https://x.org", "pages": [{}]}')
    cache = ["--cache-dir", str(tmp_path / "cache")]
    done = invoke("doctor", "--docs", str(down), "--docs", str(bad), *cache)
    assert done.exit_code == 1
    lines = done.stdout.splitlines()
    assert f"  site {gone}/: NOT reachable: " in "\n".join(lines)
    problems = [line for line in lines if line.startswith("problem: ")]
    assert len(problems) == 2, lines
    assert problems[0].startswith(f"problem: manifest does not load: {bad}: pages[0]")
    assert problems[1].startswith(f"problem: down: site {gone}/ cannot be reached")
    assert lines[-1] == "2 problems found"

    offline = invoke("doctor", "--docs", str(down), *cache, "--offline")
    assert offline.exit_code == 0 and "NOT reachable" not in offline.stdout


def test_doctor_honours_allow_private(
    site: Site, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("PINAX_ALLOW_PRIVATE", raising=False)
    docs_site(site)
    path = manifest(tmp_path, "demo", site.url("/"), ("/guide/",))
    refused = invoke("doctor", "--docs", str(path), "--json")
    assert refused.exit_code == 1
    [problem] = json.loads(refused.stdout)["problems"]
    assert "cannot be reached" in problem and "--allow-private" in problem
    allowed = invoke("doctor", "--docs", str(path), "--allow-private", "127.0.0.1/32")
    assert allowed.exit_code == 0, allowed.stdout


def test_doctor_without_docs_still_checks_the_rest() -> None:
    done = invoke("doctor", "--json")
    assert done.exit_code == 0
    report = json.loads(done.stdout)
    assert report["docs"] == [] and "no --docs given" in report["warnings"][0]


# pinax config ---------------------------------------------------------------------------


def config(*args: str) -> tuple[str, str]:
    done = invoke("config", *args)
    assert done.exit_code == 0, done.output
    return done.stdout, done.stderr


@pytest.mark.anyio
async def test_config_stdio_starts_the_server_it_describes(tmp_path: Path) -> None:
    path = manifest(tmp_path, "demo", "https://docs.example.org/", ("/guide/",))
    os.chdir(tmp_path)  # a relative --docs is made absolute
    try:
        out, where = config("stdio", "--docs", "demo.json", "--cache-dir", "cache")
    finally:
        os.chdir(ROOT)
    entry = json.loads(out)["mcpServers"]["pinax"]
    assert Path(entry["command"]).is_absolute()
    assert entry["args"][-4:] == ["--docs", str(path), "--cache-dir", str(tmp_path / "cache")]
    assert "stdio" in where
    params = StdioServerParameters(
        command=entry["command"], args=entry["args"], env={"PYTHONPATH": str(ROOT)}
    )
    async with Client(params) as client:
        listed = (await client.call_tool("list_docs", {})).structured_content
    assert [d["name"] for d in listed["docs"]] == ["demo"]


def test_config_forms_of_every_client(tmp_path: Path) -> None:
    path = manifest(tmp_path, "demo", "https://docs.example.org/", ("/guide/",))
    docs = ["--docs", str(path)]
    stdio = json.loads(config("stdio", *docs)[0])["mcpServers"]["pinax"]
    command = [stdio["command"], *stdio["args"]]
    for client in ("claude-desktop", "cursor"):
        assert json.loads(config(client, *docs)[0]) == {"mcpServers": {"pinax": stdio}}
    vscode = json.loads(config("vscode", *docs)[0])
    assert vscode == {"servers": {"pinax": {"type": "stdio", **stdio}}}
    line = shlex.split(config("claude-code", *docs)[0])
    assert line == ["claude", "mcp", "add", "pinax", "--", *command]

    url = "http://127.0.0.1:9000/mcp"
    assert json.loads(config("http")[0]) == {
        "mcpServers": {"pinax": {"type": "http", "url": "http://127.0.0.1:8765/mcp"}}
    }
    remote = ["--http-url", url]
    assert json.loads(config("cursor", *remote)[0]) == {"mcpServers": {"pinax": {"url": url}}}
    assert json.loads(config("vscode", *remote)[0]) == {
        "servers": {"pinax": {"type": "http", "url": url}}
    }
    desktop = json.loads(config("claude-desktop", *remote)[0])["mcpServers"]["pinax"]
    assert desktop == {"command": "npx", "args": ["-y", "mcp-remote", url]}
    assert shlex.split(config("claude-code", *remote)[0]) == [
        "claude",
        "mcp",
        "add",
        "--transport",
        "http",
        "pinax",
        url,
    ]


def test_config_refuses_what_it_cannot_write() -> None:
    unknown = invoke("config", "emacs")
    assert unknown.exit_code == 2 and "emacs" in unknown.stderr
    bad_url = invoke("config", "cursor", "--http-url", "localhost:8765")
    assert bad_url.exit_code == 2
    assert "--http-url 'localhost:8765' is not a URL" in bad_url.stderr


def test_config_names_the_console_script_that_runs_it(tmp_path: Path) -> None:
    """Started as the `pinax` console script, config names that script's absolute path."""
    script = Path(sys.executable).parent / "pinax"
    if not script.is_file():
        pytest.skip(f"no pinax console script beside {sys.executable}")
    done = subprocess.run(
        [str(script), "config", "cursor", "--docs", str(ROOT / "manifests")],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    entry = json.loads(done.stdout)["mcpServers"]["pinax"]
    docs = str(ROOT / "manifests")
    assert entry == {"command": str(script.resolve()), "args": ["serve", "--docs", docs]}
