"""Issue 38, the CLI's part of a newcomer's first hour: each surprise found, through the real
CLI (typer's runner in-process), kept fixed."""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest
from typer.testing import CliRunner

from pinax.cli import app
from tests.support.serving import ROOT

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


# Item 10: with --json, every command's error is JSON on stdout (and a line on stderr) -------


def json_error(result) -> dict:
    """The one JSON error a failed --json command printed on stdout."""
    assert result.exit_code != 0, result.output
    assert result.stderr.startswith(("pinax: error: ", "Usage: ")), result.stderr
    lines = [line for line in result.stdout.splitlines() if line.strip()]
    assert len(lines) == 1, result.stdout
    error = json.loads(lines[0])["error"]
    assert set(error) == {"code", "message"} and error["message"], error
    return error


JSON_FAILURES = {
    "search, empty query": (["search", "--json", "-d", STRIPE, ""], "invalid_args"),
    "search, bad limit": (["search", "--json", "-d", STRIPE, "--limit", "0", "x"], "invalid_args"),
    "search, not a number": (["search", "--json", "-d", STRIPE, "-n", "ten", "x"], "invalid_args"),
    "search, unknown docs": (["search", "--json", "-d", STRIPE, "--in", "strip", "x"], "not_found"),
    "search, missing docs": (["search", "--json", "-d", "/no/such/file.json", "x"], "invalid_args"),
    "page, other site": (
        ["page", "--json", "-d", STRIPE, "https://elsewhere.example/x"],
        "invalid_args",
    ),
    "page, unknown option": (["page", "--json", "--colour", "x"], "invalid_args"),
    "extract, no such file": (["extract", "--json", "/no/such/page.html"], "invalid_args"),
    "cache stats, unknown option": (
        ["cache", "stats", "--json", "--older-than", "5"],
        "invalid_args",
    ),
    "doctor, unknown option": (["doctor", "--json", "--offline", "--bogus"], "invalid_args"),
}


@pytest.mark.parametrize("name", sorted(JSON_FAILURES))
def test_json_errors_are_json_on_stdout(name: str) -> None:
    args, code = JSON_FAILURES[name]
    assert json_error(invoke(*args))["code"] == code


def test_a_failed_page_with_json_keeps_its_code(tmp_path: Path) -> None:
    """A URL get_page may not read (a local file): the tool's own code, said in JSON."""
    result = invoke(
        "page", "--json", "-d", STRIPE, "--cache-dir", str(tmp_path), "file:///etc/passwd"
    )
    assert json_error(result)["code"] == "invalid_args"


def test_cache_stats_json_error(monkeypatch: pytest.MonkeyPatch) -> None:
    """The page cache that cannot be read (no file system here fails on cue: the failure is
    raised where the real one would be)."""
    from pinax.cli import cache
    from pinax.errors import CacheError

    def unreadable(folder: Path) -> dict:
        raise CacheError(f"cannot read {folder}: Input/output error")

    monkeypatch.setattr(cache, "cache_report", unreadable)
    assert json_error(invoke("cache", "stats", "--json"))["code"] == "cache_error"


def test_doctor_json_says_on_stderr_that_something_is_broken(tmp_path: Path) -> None:
    broken = tmp_path / "broken.json"
    broken.write_text("{")
    result = invoke("doctor", "--json", "--offline", "-d", str(broken))
    assert result.exit_code == 1
    assert json.loads(result.stdout)["problems"]
    assert result.stderr.startswith("pinax: error: ") and "broken.json" in result.stderr


def test_batch_search_echoes_a_short_prefix_of_a_bad_query() -> None:
    huge = "x" * 5_000_000
    result = invoke("search", "-d", STRIPE, stdin=f"{huge}\nrefund\n\n")
    rows = [json.loads(line) for line in result.stdout.splitlines()]
    assert len(rows) == 3 and len(result.stdout) < 5_000
    assert rows[0]["error"]["code"] == "invalid_args" and len(rows[0]["query"]) <= 83
    assert rows[1]["results"] and rows[2]["error"]["code"] == "invalid_args"


def test_without_json_errors_stay_off_stdout() -> None:
    result = invoke("search", "-d", STRIPE, "")
    assert result.exit_code == 1 and result.stdout == ""
    assert result.stderr == "pinax: error: query must not be empty\n"


# Item 11: messages in the CLI's own words ----------------------------------------------------


def test_an_unknown_option_is_suggested_only_when_close() -> None:
    far = invoke("search", "-d", STRIPE, "--colour", "x")
    assert far.exit_code == 2
    assert "No such option: --colour (see --help for the options)" in far.stderr
    assert "Possible options" not in far.stderr and "--url" not in far.stderr
    close = invoke("search", "-d", STRIPE, "--limt", "3", "x")
    assert "No such option: --limt (did you mean '--limit'?)" in close.stderr


@pytest.mark.parametrize(
    ("command", "shown"),
    [
        ("page", "page [OPTIONS] URL"),
        ("config", "config [OPTIONS] CLIENT"),
        ("extract", "extract [OPTIONS] FILE"),
        ("build", "build [OPTIONS] SOURCE"),
    ],
)
def test_usage_lines_name_arguments_plainly(command: str, shown: str) -> None:
    result = invoke(command, "--help")
    assert shown in result.stdout, result.stdout
    assert "{" not in result.stdout.splitlines()[0]


def test_tool_names_become_commands_in_cli_errors(tmp_path: Path) -> None:
    result = invoke(
        "page", "-d", STRIPE, "--cache-dir", str(tmp_path), "https://elsewhere.example/x"
    )
    assert result.exit_code == 1
    assert "list_docs" not in result.stderr and "get_page" not in result.stderr
    assert "`pinax doctor --docs ...` lists the loaded docs" in result.stderr
    assert "`pinax page` only fetches" in result.stderr


def test_a_limit_in_words_is_refused_in_plain_words(tmp_path: Path) -> None:
    from pinax.errors import InvalidArgs
    from pinax.tools import Tools

    tools = Tools.open([Path(STRIPE)], cache_dir=tmp_path)
    with pytest.raises(InvalidArgs) as refused:
        tools.search_pages("refund", limit="ten")
    assert (
        refused.value.message
        == "limit must be an integer, written in digits such as 10 (got 'ten')"
    )


def test_every_start_up_line_is_marked_as_pinax(tmp_path: Path) -> None:
    from tests.support.serving import served_http

    with served_http(
        "--docs", STRIPE, "--cache-dir", str(tmp_path), env={"PINAX_TOKEN": "t" * 32}
    ) as served:
        deadline = time.monotonic() + 30
        while "accepted Host headers" not in served.log_text() and time.monotonic() < deadline:
            time.sleep(0.05)
        lines = [line for line in served.log if line.strip()]
    assert any("accepted Host headers" in line for line in lines), lines
    assert all(line.startswith("pinax: ") for line in lines), lines


# Item 12: pinax config prints only configurations that can work -----------------------------


@pytest.mark.parametrize("client", ["claude-desktop", "claude-code", "cursor", "vscode", "stdio"])
def test_config_without_docs_is_refused(client: str) -> None:
    result = invoke("config", client)
    assert result.exit_code == 2 and result.stdout == ""
    assert "give --docs" in result.stderr


def test_config_with_docs_that_do_not_exist_is_refused() -> None:
    result = invoke("config", "stdio", "--docs", "/no/such/manifests")
    assert result.exit_code == 2 and result.stdout == ""
    assert "--docs /no/such/manifests: no such file or folder" in result.stderr


def test_config_for_a_running_server_needs_no_docs() -> None:
    assert invoke("config", "http").exit_code == 0
    assert invoke("config", "cursor", "--http-url", "http://127.0.0.1:9/mcp").exit_code == 0


SECRET_TOKEN = "s3cret-token-0123456789abcdef-xyz"
URL = "http://127.0.0.1:9000/mcp"


def remote_config(client: str) -> tuple[str, str]:
    result = invoke("config", client, "--http-url", URL)
    assert result.exit_code == 0, result.output
    assert SECRET_TOKEN not in result.stdout and SECRET_TOKEN not in result.stderr
    return result.stdout, result.stderr


def test_config_forms_carry_the_token_by_reference(monkeypatch: pytest.MonkeyPatch) -> None:
    import shlex

    monkeypatch.setenv("PINAX_TOKEN", SECRET_TOKEN)
    cursor = json.loads(remote_config("cursor")[0])["mcpServers"]["pinax"]
    assert cursor == {"url": URL, "headers": {"Authorization": "Bearer ${env:PINAX_TOKEN}"}}
    http = json.loads(remote_config("http")[0])["mcpServers"]["pinax"]
    assert http["headers"] == {"Authorization": "Bearer ${PINAX_TOKEN}"}
    vscode = json.loads(remote_config("vscode")[0])
    assert vscode["servers"]["pinax"]["headers"] == {"Authorization": "Bearer ${input:pinax-token}"}
    assert vscode["inputs"][0]["id"] == "pinax-token" and vscode["inputs"][0]["password"]
    desktop, note = remote_config("claude-desktop")
    entry = json.loads(desktop)["mcpServers"]["pinax"]
    assert entry["args"][-2:] == ["--header", "Authorization:${PINAX_AUTH}"]
    assert entry["env"]["PINAX_AUTH"].startswith("Bearer <") and "replace" in note
    line, _ = remote_config("claude-code")
    assert shlex.split(line)[-2:] == ["--header", "Authorization: Bearer $PINAX_TOKEN"]


def test_config_forms_without_a_token_send_no_header(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("PINAX_TOKEN", raising=False)
    for client in ("cursor", "http", "vscode", "claude-desktop", "claude-code"):
        out = remote_config(client)[0]
        assert "Authorization" not in out, (client, out)
