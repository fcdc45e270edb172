"""Issue 20, a newcomer's first hour: each thing that got in the way, through the real CLI
(typer's runner in-process, or `python -m pinax` where a server must run) against sites on
loopback. Nothing here reaches the internet."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
import time
import zlib
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
import typer
from mcp import Client
from typer.testing import CliRunner

from pinax.builder.html import site_suffix
from pinax.cli import app
from tests.support.http_site import Reply, Site
from tests.support.manifests import write_manifest
from tests.support.serving import ROOT, closed_port, served_http, stdio_params

runner = CliRunner()
HTML = {"Content-Type": "text/html; charset=utf-8"}
TEXT = {"Content-Type": "text/plain; charset=utf-8"}


def invoke(*args: str, stdin: str | None = None):
    return runner.invoke(app, list(args), input=stdin)


def llms_site(site: Site, titles: tuple[str, ...] = ("Install", "Usage", "Auth")) -> str:
    """A small docs site that publishes an llms.txt; its pages have headings."""
    links = "\n".join(f"- [{t}](/{t.lower()}/): about {t.lower()}" for t in titles)
    body = f"# Demo\n\n> Demo docs.\n\n## Guides\n\n{links}\n"
    site.add("/llms.txt", Reply(body=body.encode(), headers=TEXT))
    for title in titles:
        site.add(f"/{title.lower()}/", page_reply(title))
    return site.url("/")


def page_reply(title: str) -> Reply:
    words = " ".join(["Plenty of words to read about this topic."] * 12)
    html = (
        f"<!doctype html><html><head><title>{title} | Demo</title></head><body><main>"
        f"<h1>{title}</h1><p>{words}</p>"
        f'<h2 id="first-steps">First steps</h2><p>{words}</p>'
        f'<h2 id="options">Options</h2><p>{words}</p></main></body></html>'
    )
    return Reply(body=html.encode(), headers=HTML)


@pytest.fixture
def no_allowance(monkeypatch: pytest.MonkeyPatch) -> None:
    """Loopback refused, as on a fresh machine (the suite allows it for its own sites)."""
    monkeypatch.delenv("PINAX_ALLOW_PRIVATE", raising=False)


@pytest.fixture
def cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    folder = tmp_path / "cache"
    monkeypatch.setenv("PINAX_CACHE_DIR", str(folder))
    return folder


# Wrong 1: --allow-private reaches the manifest built on the fly, on search and serve ------


def test_search_allow_private_reaches_the_build(site: Site, no_allowance, cache) -> None:
    url = llms_site(site)
    refused = invoke("search", "--docs", url, "install")
    assert refused.exit_code == 2
    assert "no docs loaded" in refused.stderr and "--allow-private" in refused.stderr
    allowed = invoke("search", "--docs", url, "--allow-private", "127.0.0.1/32", "--json", "auth")
    assert allowed.exit_code == 0, allowed.stderr
    assert json.loads(allowed.stdout)["results"][0]["url"] == site.url("/auth/")


@contextmanager
def stdio_server(*args: str, env: dict[str, str]) -> Iterator[tuple[subprocess.Popen, list]]:
    """`pinax serve ARGS` on stdio, its stderr lines collected as they come."""
    process = subprocess.Popen(
        [sys.executable, "-m", "pinax", "serve", *args],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        cwd=ROOT,
        env={**env, "PYTHONPATH": str(ROOT)},
    )
    lines: list[str] = []

    def collect() -> None:
        assert process.stderr is not None
        for line in process.stderr:
            lines.append(line.rstrip("\n"))

    threading.Thread(target=collect, daemon=True).start()
    try:
        yield process, lines
    finally:
        assert process.stdin is not None
        process.stdin.close()  # the client went away: the server ends
        process.wait(timeout=20)


def wait_for(lines: list[str], text: str, timeout: float = 30.0) -> str:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        for line in lines:
            if text in line:
                return line
        time.sleep(0.05)
    raise AssertionError(f"{text!r} never came on stderr: {lines}")


def test_serve_builds_with_allow_private_and_says_it_is_alive(site: Site, tmp_path: Path) -> None:
    url = llms_site(site)
    env = {k: v for k, v in os.environ.items() if k != "PINAX_ALLOW_PRIVATE"}
    args = ("--docs", url, "--allow-private", "127.0.0.1/32", "--cache-dir", str(tmp_path))
    with stdio_server(*args, env=env) as (process, lines):
        line = wait_for(lines, "waiting for a client")
    name = "127.0.0.1-" + url.split(":")[2].strip("/")
    assert line == (
        f"pinax: pinax 0.1.0 serving 1 documentation set: {name} (3 pages); "
        "MCP over stdio, waiting for a client"
    )
    assert process.returncode == 0, lines


def test_a_bad_network_is_said_on_every_command(tmp_path: Path, cache) -> None:
    manifest = write_manifest(tmp_path, "alpha", "https://a.example", ("/a/",))
    for command in ("search", "doctor"):
        args = [command, "--docs", str(manifest), "--allow-private", "nonsense"]
        done = invoke(*args, *(["a"] if command == "search" else []))
        said = done.stderr if command == "search" else done.stdout
        assert done.exit_code in (1, 2) and "'nonsense' is not a network in CIDR form" in said


# Wrong 2: the advice for a local objects.inv (--url) works on search and serve -----------


def objects_inv(path: Path) -> Path:
    entries = b"intro std:doc -1 intro.html Introduction\nusage std:doc -1 usage/ Usage guide\n"
    header = b"# Sphinx inventory version 2\n# Project: Demo\n# Version: 1.0\n"
    header += b"# The remainder of this file is compressed using zlib.\n"
    path.write_bytes(header + zlib.compress(entries))
    return path


def test_local_objects_inv_takes_url_on_search(tmp_path: Path, cache) -> None:
    inventory = objects_inv(tmp_path / "objects.inv")
    without = invoke("search", "--docs", str(inventory), "usage")
    assert without.exit_code == 2 and "give the site with --url" in without.stderr
    found = invoke(
        "search", "--docs", str(inventory), "--url", "https://docs.example.org/", "--json", "usage"
    )
    assert found.exit_code == 0, found.stderr
    top = json.loads(found.stdout)["results"][0]
    assert top["url"] == "https://docs.example.org/usage/"


# Wrong 3: refusing a loopback URL suggests no "did you mean" of the same URL --------------


def test_loopback_refusal_does_not_suggest_the_same_url(
    site: Site, tmp_path: Path, no_allowance, cache
) -> None:
    llms_site(site)
    manifest = write_manifest(tmp_path, "demo", site.url("/"), ("/install/", "/usage/"))
    url = site.url("/install/")
    done = invoke("page", url, "--docs", str(manifest))
    assert done.exit_code == 1
    assert "--allow-private" in done.stderr
    assert "did you mean" not in done.stderr and done.stderr.count(url) == 1


# Wrong 4 and 5, Friction: options mean the same everywhere, the README uses real ones -----

SHARED_OPTIONS = ("--docs", "--cache-dir", "--allow-private", "--url", "--json", "--log-level")


def commands() -> dict[str, typer.main.click.Command]:
    group = typer.main.get_command(app)
    found = {}
    for name, command in group.commands.items():
        if hasattr(command, "commands"):
            found.update({f"{name} {sub}": c for sub, c in command.commands.items()})
        else:
            found[name] = command
    return found


def option_help(command, option: str) -> str | None:
    for param in command.params:
        if option in getattr(param, "opts", ()):
            return param.help
    return None


def test_shared_options_have_one_meaning() -> None:
    table = commands()
    for option in SHARED_OPTIONS:
        helps = {name: option_help(c, option) for name, c in table.items()}
        given = {name: text for name, text in helps.items() if text is not None}
        assert len(set(given.values())) == 1, (option, given)
    allow_private = option_help(table["build"], "--allow-private")
    assert "get_page" not in allow_private and "build" in allow_private
    for name in ("serve", "search", "page", "build"):
        assert option_help(table[name], "--allow-private"), name
        assert option_help(table[name], "--log-level"), name
    for name in ("serve", "search", "page", "build", "doctor", "config"):
        assert option_help(table[name], "--url"), name


def readme() -> str:
    """The README and every page of the documentation site, where the commands are shown."""
    pages = [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]
    return "\n".join(page.read_text() for page in pages)


def readme_commands() -> list[list[str]]:
    """Every `pinax ...` command line in the README's sh blocks, as words."""
    names = {name.split()[0] for name in commands()}
    found = []
    inside = False
    for line in readme().splitlines():
        if line.startswith("```"):
            inside = line.strip() == "```sh"
            continue
        if not inside:
            continue
        code = line.split("  #", 1)[0]
        for part in code.replace("&&", "|").split("|"):
            words = part.split()
            starts = [i for i, w in enumerate(words[:-1]) if w == "pinax" and words[i + 1] in names]
            if starts:  # `claude mcp add pinax -- pinax serve ...`: the last one is the command
                found.append(words[starts[-1] + 1 :])
    return found


def test_readme_commands_use_options_their_command_has() -> None:
    table = commands()
    lines = readme_commands()
    assert len(lines) > 15
    for words in lines:
        name = words[0] if words[0] in table else " ".join(words[:2])
        assert name in table, words
        known = {opt for param in table[name].params for opt in getattr(param, "opts", ())}
        for word in words:
            if word.startswith("-") and word != "-":
                assert word.split("=")[0] in known, (words, word)


def test_readme_option_table_matches_the_commands() -> None:
    """The README's table of common options: each option on exactly the commands it lists."""
    text = (ROOT / "docs" / "guides" / "usage.md").read_text()
    start = text.index("Common options (each means the same on every command that takes it)")
    table = text[start : text.index("\n\n", text.index("| option", start))]
    rows = [row.split("|")[1:3] for row in table.splitlines() if row.startswith("| `")]
    assert len(rows) == 11
    found = commands()
    for option_cell, on in rows:
        option = option_cell.split("`")[1].split()[0]
        listed = {name.strip() for name in on.split(",")}
        having = {name for name, command in found.items() if option_help(command, option)}
        assert having == listed, (option, having ^ listed)


# Friction: flags are flags, -h is --help ---------------------------------------------------


@pytest.mark.parametrize(
    "words",
    [
        *([], ["serve"], ["search"], ["page"], ["build"], ["extract"]),
        *(["cache"], ["cache", "stats"], ["cache", "clear"], ["doctor"], ["config"]),
    ],
)
def test_help_shows_flags_as_flags_and_h_works(words: list[str]) -> None:
    short = invoke(*words, "-h")
    assert short.exit_code == 0, short.output
    assert "Usage:" in short.stdout and "<bool>" not in short.stdout
    assert short.stdout == invoke(*words, "--help").stdout


# Wrong 6: each hit names its library -------------------------------------------------------


def test_search_rows_name_their_library(tmp_path: Path, cache) -> None:
    a = write_manifest(tmp_path, "alpha", "https://a.example", ("/effects/", "/hooks/effect/"))
    b = write_manifest(tmp_path, "beta", "https://b.example", ("/filter-effects/",))
    both = invoke("search", "--docs", str(a), "--docs", str(b), "effect")
    assert both.exit_code == 0, both.stderr
    titles = both.stdout.splitlines()[::2]
    assert len(titles) == 3
    assert all("[alpha]" in t or "[beta]" in t for t in titles), titles
    one = invoke("search", "--docs", str(a), "--docs", str(b), "--in", "beta", "effect")
    assert one.stdout.splitlines()[0].endswith("[beta] Filter-Effects")


# Wrong 8: a name not loaded is suggested only a close name ---------------------------------


def test_unknown_docs_name_suggests_only_close_names(tmp_path: Path, cache) -> None:
    react = write_manifest(tmp_path, "react", "https://react.example", ("/learn/",))
    k8s = write_manifest(tmp_path, "kubernetes", "https://k8s.example", ("/docs/",))
    docs = ["--docs", str(react), "--docs", str(k8s)]
    far = invoke("search", *docs, "--in", "vue", "hooks")
    assert far.exit_code == 1
    assert far.stderr == "pinax: error: no manifest named 'vue'; loaded: react, kubernetes\n"
    near = invoke("search", *docs, "--in", "raect", "hooks")
    assert "(did you mean 'react'?)" in near.stderr
    missing = invoke("search", "--docs", "vue", "hooks")
    assert missing.exit_code == 2 and "--docs vue: no such file or folder" in missing.stderr


# Wrong 9 and Friction: the cache commands create nothing and count the indexes ------------


def test_cache_stats_creates_nothing_and_reports_an_empty_cache(tmp_path: Path) -> None:
    folder = tmp_path / "never-used"
    done = invoke("cache", "stats", "--cache-dir", str(folder), "--json")
    assert done.exit_code == 0, done.output
    report = json.loads(done.stdout)
    assert (report["entries"], report["bytes"]) == (0, 0)
    assert report["indexes"]["files"] == 0 and report["manifests"]["files"] == 0
    assert not folder.exists()
    text = invoke("cache", "stats", "--cache-dir", str(folder)).stdout
    assert "pages: 0 cached pages, 0 bytes\n" in text
    assert invoke("cache", "clear", "--cache-dir", str(folder)).exit_code == 0
    assert not folder.exists()


def test_cache_commands_see_the_search_indexes(tmp_path: Path) -> None:
    manifest = write_manifest(tmp_path, "alpha", "https://a.example", ("/a/", "/b/"))
    folder = tmp_path / "cache"
    assert invoke("search", "--docs", str(manifest), "--cache-dir", str(folder), "a").exit_code == 0
    report = json.loads(invoke("cache", "stats", "--cache-dir", str(folder), "--json").stdout)
    assert report["indexes"]["files"] == 1 and report["indexes"]["bytes"] > 0
    text = invoke("cache", "stats", "--cache-dir", str(folder)).stdout
    assert "indexes: 1 search index, " in text
    kept = invoke("cache", "clear", "--cache-dir", str(folder), "--older-than", "1h")
    assert kept.stdout == "removed 0 cached pages, 0 search indexes and 0 built manifests\n"
    cleared = invoke("cache", "clear", "--cache-dir", str(folder))
    assert cleared.stdout == "removed 0 cached pages, 1 search index and 0 built manifests\n"
    assert not list((folder / "indexes").glob("*.pxi"))


# Wrong 11: a JavaScript shell is an error in `extract`, in get_page's words ----------------

SHELL = (
    b"<!doctype html><html><head><title>App</title><script src='/app.js'></script></head>"
    b"<body><div id='root'></div><noscript>Enable JavaScript.</noscript></body></html>"
)


def test_extract_of_a_javascript_shell_fails_as_get_page_does(site: Site, tmp_path: Path, cache):
    saved = tmp_path / "shell.html"
    saved.write_bytes(SHELL)
    url = site.add("/app/", Reply(body=SHELL, headers=HTML))
    done = invoke("extract", str(saved), "--url", url)
    assert done.exit_code == 1
    assert "renders in the browser (JavaScript)" in done.stderr
    manifest = write_manifest(tmp_path, "app", site.url("/"), ("/app/",))
    read = invoke("page", url, "--docs", str(manifest))
    assert read.exit_code == 1
    assert read.stderr == done.stderr  # one check, one message


# Wrong 12: a #anchor that is no heading is said, with the headings -------------------------


def test_an_anchor_that_is_not_a_heading_is_reported(site: Site, tmp_path: Path, cache) -> None:
    llms_site(site)
    manifest = write_manifest(tmp_path, "demo", site.url("/"), ("/install/",))
    url = site.url("/install/")
    wrong = invoke("page", f"{url}#first-step", "--docs", str(manifest), "--json")
    assert wrong.exit_code == 1
    assert f"no heading #first-step on {url} (did you mean 'first-steps'?)" in wrong.stderr
    assert "First steps (#first-steps); Options (#options)" in wrong.stderr
    right = invoke("page", f"{url}#options", "--docs", str(manifest), "--json")
    assert right.exit_code == 0, right.stderr
    assert json.loads(right.stdout)["section"]["anchor"] == "options"


# Friction: empty folders and unreachable sites --------------------------------------------


def test_an_empty_docs_folder_is_said(tmp_path: Path, cache) -> None:
    empty = tmp_path / "empty"
    empty.mkdir()
    done = invoke("search", "--docs", str(empty), "anything")
    assert done.exit_code == 2
    assert f"pinax: warning: --docs {empty}: the folder holds no manifests" in done.stderr
    assert "no manifests loaded" in done.stderr


def test_serving_over_http_names_what_it_serves(tmp_path: Path) -> None:
    manifest = write_manifest(tmp_path, "alpha", "https://a.example", ("/a/", "/b/"))
    with served_http("--docs", str(manifest), "--cache-dir", str(tmp_path / "c")) as served:
        assert served.url, served.log_text()
        log = served.log_text()
    assert "pinax: pinax 0.1.0 serving 1 documentation set: alpha (2 pages)\n" in log


def test_serving_an_empty_folder_warns_and_says_so(tmp_path: Path) -> None:
    empty = tmp_path / "manifests"
    empty.mkdir()
    args = ("--docs", str(empty), "--cache-dir", str(tmp_path / "cache"))
    with stdio_server(*args, env=dict(os.environ)) as (_, lines):
        line = wait_for(lines, "waiting for a client")
    assert line.startswith("pinax: pinax 0.1.0 serving 0 documentation sets; MCP over stdio")
    text = "\n".join(lines)
    assert f"pinax: warning: --docs {empty}: the folder holds no manifests" in text
    assert "pinax: warning: no documentation sets loaded" in text


@pytest.mark.anyio
async def test_an_unreachable_site_leaves_the_rest_served(tmp_path: Path) -> None:
    manifest = write_manifest(tmp_path, "alpha", "https://a.example", ("/a/", "/b/"))
    gone = f"http://127.0.0.1:{closed_port()}/"
    args = ("--docs", str(manifest), "--docs", gone, "--cache-dir", str(tmp_path / "cache"))
    async with Client(stdio_params(*args)) as client:
        result = await client.call_tool("list_docs", {})
    listed = result.structured_content
    assert [d["name"] for d in listed["docs"]] == ["alpha"]
    assert f"- not loaded: {gone} (cannot reach the site" in result.content[0].text
    [missing] = listed["unavailable"]
    assert missing["source"] == gone and "cannot reach the site" in missing["reason"]


def test_nothing_loaded_is_the_error(tmp_path: Path) -> None:
    gone = f"http://127.0.0.1:{closed_port()}/"
    alone = invoke("search", "--docs", gone, "--cache-dir", str(tmp_path / "cache"), "a")
    assert alone.exit_code == 2
    assert f"pinax: warning: --docs {gone} is not loaded: " in alone.stderr
    assert "pinax: error: no docs loaded: " in alone.stderr


# Friction: names and titles of built sites; one rule for the site of a published file ------


def test_a_loopback_site_is_named_by_address_and_port(site: Site, cache) -> None:
    url = llms_site(site)
    built = invoke("build", url, "-q")
    assert built.exit_code == 0, built.stderr
    port = url.split(":")[2].strip("/")
    assert json.loads(built.stdout)["name"] == f"127.0.0.1-{port}"


def test_fetched_titles_lose_the_site_suffix(site: Site, cache) -> None:
    urls = [site.add(f"/{t.lower()}/", page_reply(t)) for t in ("Install", "Usage")]
    body = "\n".join(urls).encode()
    site.add("/sitemap.txt", Reply(body=body, headers=TEXT))
    built = invoke("build", site.url("/sitemap.txt"), "--titles", "fetch", "--delay", "0", "-q")
    assert built.exit_code == 0, built.stderr
    manifest = json.loads(built.stdout)
    assert [p["title"] for p in manifest["pages"]] == ["Install", "Usage"]
    assert manifest["title"] == "Demo"
    assert site_suffix(["Install | React"], known="React") == "React"
    assert site_suffix(["A - B", "C - D"]) is None


def test_llms_txt_and_sitemap_take_the_site_from_where_they_were_served(site: Site, cache):
    links = "- [A](/v2/a/)\n- [B](/v2/b/)\n"
    site.add("/v2/llms.txt", Reply(body=f"# Demo\n\n{links}".encode(), headers=TEXT))
    sitemap = "\n".join(site.url(p) for p in ("/v2/a/", "/v2/b/")).encode()
    site.add("/v2/sitemap.txt", Reply(body=sitemap, headers=TEXT))
    for name in ("llms.txt", "sitemap.txt"):
        site.add(f"/old/{name}", Reply(301, headers={"Location": site.url(f"/v2/{name}")}))
    built = [
        invoke("build", site.url(f"/old/{name}"), "-q") for name in ("llms.txt", "sitemap.txt")
    ]
    assert [b.exit_code for b in built] == [0, 0], [b.stderr for b in built]
    assert {json.loads(b.stdout)["url"] for b in built} == {site.url("/v2/")}


def test_one_page_is_one_page(site: Site, tmp_path: Path, cache) -> None:
    site.add("/sitemap.txt", Reply(body=site.url("/only/").encode(), headers=TEXT))
    out = tmp_path / "one.json"
    built = invoke("build", site.url("/sitemap.txt"), "-o", str(out))
    assert built.exit_code == 0, built.stderr
    assert f"wrote {out}: 1 page\n" in built.stderr and "1 pages" not in built.stderr
    listed = invoke("search", "--docs", str(out), "--json", "only")
    assert listed.exit_code == 0 and "1 pages" not in listed.stderr


def test_readme_lines_that_run_offline_do_run(monkeypatch: pytest.MonkeyPatch, cache) -> None:
    """The README's `pinax config` and `pinax cache` lines, word for word, from the checkout."""
    monkeypatch.chdir(ROOT)
    ran = 0
    for words in readme_commands():
        if words[0] not in ("config", "cache"):
            continue
        done = invoke(*words)
        assert done.exit_code == 0, (words, done.output)
        if words[0] == "config" and words[1] != "claude-code":
            entry = json.loads(done.stdout)["mcpServers"]["pinax"]
            assert entry["args"][-2:] == ["--docs", str(ROOT / "manifests")]
        ran += 1
    assert ran >= 2
