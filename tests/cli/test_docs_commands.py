"""Every shell line of the README and the documentation site is run here, or skipped with the
reason it cannot be (the network, a server that runs until stopped, an install, a file of the
reader's own), and the getting-started transcript is run and compared with what it shows.

Lines run in a scratch folder holding a copy of `manifests/` and `docs/`, with a private
cache, from this checkout (`python -m pinax`), exactly as written.
"""

from __future__ import annotations

import json
import os
import re
import shlex
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.support.manifest_schema import assert_valid

ROOT = Path(__file__).resolve().parents[2]
SOURCES = [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]
INSTALLERS = ("pip", "pipx", "uv", "uvx", "npm", "npx", "python -m pip", "python -m build")
OFFLINE_COMMANDS = {"search", "config", "cache", "doctor", "build", "extract", "page", "--version"}


@dataclass(frozen=True)
class Line:
    source: str  # file:line
    text: str  # the command, comment removed
    expected: str | None = None  # a transcript's output, where the page shows one


def shell_lines() -> list[Line]:
    """The command lines of every ```sh block, and the `$ ` lines of every ```console block
    with the output shown under each."""
    found: list[Line] = []
    for path in SOURCES:
        block: str | None = None
        pending: list[str] = []
        lines = path.read_text().splitlines()
        for number, raw in enumerate(lines, 1):
            if raw.startswith("```"):
                if block == "console" and pending:
                    found[-1] = Line(found[-1].source, found[-1].text, "\n".join(pending))
                block = raw[3:].strip() if block is None else None
                pending = []
                continue
            where = f"{path.relative_to(ROOT)}:{number}"
            if block == "sh":
                code = raw.split("  #", 1)[0].strip()
                if code and not code.startswith("#"):
                    found.append(Line(where, code))
            elif block == "console":
                if raw.startswith("$ "):
                    if pending:
                        found[-1] = Line(found[-1].source, found[-1].text, "\n".join(pending))
                    found.append(Line(where, raw[2:]))
                    pending = []
                else:
                    pending.append(raw)
    return found


def skip_reason(line: Line, folder: Path) -> str | None:
    """Why a line is not run here, or None to run it."""
    text = line.text
    # Where a local file was published (`--url`) is only a name: nothing is fetched from it.
    if re.search(r"https?://(?!127\.0\.0\.1)", re.sub(r"--url \S+", "", text)):
        return "needs the network"
    if text.startswith(INSTALLERS) or " && python -m pytest" in text:
        return "installs packages from the package index (network, minutes)"
    if text.startswith(("python -m pytest", "ruff", "mkdocs")):
        return "the project's own checks, run by CI itself"
    if text.startswith("(cd tests/js"):
        return "installs the Node clients (network)"
    if text.startswith("claude "):
        return "needs Claude Code"
    if text.startswith(("export ", "cat ")) or "$(" in text:
        return "sets up the reader's shell or reads the reader's file"
    words = shlex.split(text)
    if words[0] != "pinax" or len(words) < 2:
        return "not a pinax command"
    if words[1] == "serve":
        return "a server runs until stopped (tests/server/ serve the same way)"
    if words[1] == "doctor" and "--offline" not in words:
        return "doctor checks each site (the network)"
    if words[1] not in OFFLINE_COMMANDS:
        return "not an offline command"
    named = [
        w
        for i, w in enumerate(words[2:], 2)
        if words[i - 1] not in ("-o", "--output", "--url")
        and not w.startswith("-")
        and "://" not in w
        and ("/" in w or w.endswith((".json", ".html", ".txt", ".gz", ".inv")))
    ]
    for path in named:
        if not (folder / path).expanduser().exists():
            return f"names a file of the reader's own ({path})"
    return None


@pytest.fixture(scope="module")
def folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    scratch = tmp_path_factory.mktemp("docs-lines")
    shutil.copytree(ROOT / "manifests", scratch / "manifests")
    shutil.copytree(ROOT / "docs", scratch / "docs")
    return scratch


def run(line: Line, folder: Path) -> subprocess.CompletedProcess[str]:
    words = shlex.split(line.text)
    env = {**os.environ, "PYTHONPATH": str(ROOT), "PINAX_CACHE_DIR": str(folder / "cache")}
    env.pop("PINAX_TOKEN", None)
    return subprocess.run(
        [sys.executable, "-m", "pinax", *words[1:]],
        capture_output=True,
        text=True,
        cwd=folder,
        env=env,
        timeout=300,
    )


LINES = shell_lines()


def test_lines_are_found_and_most_run() -> None:
    assert len(LINES) > 40
    assert any(line.expected for line in LINES), "the getting-started transcript is gone"


@pytest.mark.parametrize("line", LINES, ids=[line.source for line in LINES])
def test_each_shell_line_runs(line: Line, folder: Path) -> None:
    reason = skip_reason(line, folder)
    if reason is not None:
        pytest.skip(f"{line.text[:60]}: {reason}")
    words = shlex.split(line.text)
    if words[1] == "build" and "-o" in words:  # each line as a reader runs it: afresh
        (folder / words[words.index("-o") + 1]).unlink(missing_ok=True)
    done = run(line, folder)
    assert done.returncode == 0, (line, done.stdout[-1500:], done.stderr[-1500:])
    if words[1] == "build" and "-o" in words:
        written = json.loads((folder / words[words.index("-o") + 1]).read_text())
        assert_valid(written, line.source)
    if line.expected is not None:
        assert done.stdout.rstrip("\n") == line.expected, (
            f"{line.source}: the transcript differs from what `{line.text}` prints now"
        )


def pinax_words(line: Line) -> list[str] | None:
    """The words after `pinax` of a line that runs pinax (the last, for `claude mcp add`)."""
    for part in line.text.replace("&&", "|").split("|"):
        try:
            words = shlex.split(part)
        except ValueError:
            words = part.split()
        starts = [i for i, w in enumerate(words[:-1]) if w == "pinax" and words[i + 1][0] != "-"]
        if starts and words[starts[-1] + 1] in COMMANDS:
            return words[starts[-1] + 1 :]
    return None


def _commands() -> dict[str, object]:
    import typer

    from pinax.cli import app

    group = typer.main.get_command(app)
    found: dict[str, object] = {}
    for name, command in group.commands.items():
        subs = getattr(command, "commands", None)
        found.update({f"{name} {s}": c for s, c in subs.items()} if subs else {name: command})
    return found


COMMANDS = {name.split()[0] for name in _commands()}


def test_every_pinax_line_uses_options_its_command_has() -> None:
    """Run or skipped, no line of the docs names an option its command does not take."""
    table = _commands()
    checked = 0
    for line in LINES:
        words = pinax_words(line)
        if words is None:
            continue
        name = words[0] if words[0] in table else " ".join(words[:2])
        assert name in table, (line.source, words)
        known = {opt for p in table[name].params for opt in getattr(p, "opts", ())}  # type: ignore[attr-defined]
        for word in words:
            if word.startswith("-") and word != "-":
                assert word.split("=")[0] in known, (line.source, word)
        checked += 1
    assert checked > 40


def test_ci_runs_the_readmes_test_command() -> None:
    """.ci/run says it runs the README's test command: the same line, word for word."""
    ci = (ROOT / ".ci" / "run").read_text().splitlines()
    command = next(line for line in reversed(ci) if "python -m pytest" in line)
    readme = [line.text for line in LINES if line.source.startswith("README.md")]
    assert command in readme
