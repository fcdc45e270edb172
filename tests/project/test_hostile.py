"""A project's files are untrusted: garbage, wrong shapes, deep nesting, huge files, FIFOs,
devices and symlink loops each end as a warning naming the file (or nothing), never an
exception, a hang or unbounded memory."""

from __future__ import annotations

import logging
import os
import random
import threading
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import pinax.project.reading
from pinax.project import MAX_FILE_BYTES, read_project
from pinax.versions import parse_package

LOCKFILES = (
    "uv.lock",
    "poetry.lock",
    "pylock.toml",
    "Pipfile.lock",
    "requirements.txt",
    "pyproject.toml",
    "package-lock.json",
    "pnpm-lock.yaml",
    "yarn.lock",
    "bun.lock",
    "package.json",
    ".python-version",
    ".nvmrc",
)
STRUCTURED = [name for name in LOCKFILES if name.endswith((".json", ".toml", ".yaml", ".lock"))]
GARBAGE = random.Random(35).randbytes(64 * 1024)


def read_quietly(folder: Path):
    """read_project, which must neither raise nor hang (run in a thread, 60 s at most)."""
    result: list = []
    worker = threading.Thread(target=lambda: result.append(read_project(folder)), daemon=True)
    worker.start()
    worker.join(60)
    assert not worker.is_alive(), "read_project hung"
    assert result, "read_project raised"
    defects = [w for w in result[0].warnings if "failed (" in w]  # the fence's, not a file's
    assert defects == []
    return result[0]


@pytest.mark.parametrize("name", LOCKFILES)
def test_binary_garbage(tmp_path: Path, name: str) -> None:
    (tmp_path / name).write_bytes(GARBAGE)
    project = read_quietly(tmp_path)
    assert project.dependencies == {}
    if name in STRUCTURED:
        assert len(project.warnings) == 1
        assert str(tmp_path / name) in project.warnings[0]


@pytest.mark.parametrize("name", STRUCTURED)
@pytest.mark.parametrize("content", ["", "null", "[]", "3", '"text"', "{", "packages = 3", "- a"])
def test_wrong_shapes(tmp_path: Path, name: str, content: str) -> None:
    (tmp_path / name).write_text(content)
    project = read_quietly(tmp_path)
    assert project.dependencies == {}
    assert all(str(tmp_path / name) in warning for warning in project.warnings)


@pytest.mark.parametrize(
    ("name", "content"),
    [
        (
            "package-lock.json",
            '{"packages": {"node_modules/a": [1], "node_modules/b": {"version": 5}}}',
        ),
        ("package-lock.json", '{"packages": ["node_modules/a"], "dependencies": {"a": "1.0.0"}}'),
        ("package-lock.json", '{"packages": {"node_modules/": {"version": "1.0.0"}}}'),
        ("package.json", '{"dependencies": ["react"], "devDependencies": {"a": 1, "b": null}}'),
        ("package.json", '{"dependencies": {"../../etc": "1.0.0", "": "^1"}, "engines": []}'),
        ("bun.lock", '{"packages": {"a": "a@1.0.0", "b": [], "c": [3], "d": ["@1.0.0"]}}'),
        ("pnpm-lock.yaml", "importers: [1, 2]\npackages: {3: 4, '@': {}, '/': null}\n"),
        ("pnpm-lock.yaml", "importers:\n  .:\n    dependencies:\n      a: {version: [1]}\n"),
        ("uv.lock", "package = [1, 'x', {name = 3}, {name = 'a', version = 3.0}]"),
        ("poetry.lock", "[[package]]\nname = 'a'\nversion = 'not a version at all'\n"),
        ("pylock.toml", "packages = 'x'"),
        ("Pipfile.lock", '{"default": {"a": {"version": "~=1.0"}, "b": "==1"}, "develop": []}'),
        ("pyproject.toml", "[project]\ndependencies = 'django'\n[tool]\npoetry = 3\n"),
        ("pyproject.toml", "[project]\ndependencies = [3, 'django>=', 'ok==1.0']\n"),
        ("pyproject.toml", "[tool.poetry.dependencies]\ndjango = 3\nflask = {git = 'x'}\n"),
        ("yarn.lock", 'a@^1:\n  version\n"b@\n:\n  version "1"\n  version "2"\n@:\n'),
        ("requirements.txt", "-r requirements.txt\n==1.0\ndjango==\n" + "a" * 100_000 + "==1\n"),
        (".python-version", "3" * 10_000 + "\n"),
        (".nvmrc", "v" + "9" * 5000),
    ],
)
def test_wrong_fields_are_skipped(tmp_path: Path, name: str, content: str) -> None:
    (tmp_path / name).write_text(content)
    project = read_quietly(tmp_path)
    for dep in project.dependencies.values():  # what is kept is well formed
        assert parse_package(str(dep.package)) == dep.package
    assert all(str(tmp_path / name) in warning for warning in project.warnings)


def test_the_valid_entries_beside_wrong_ones_are_kept(tmp_path: Path) -> None:
    (tmp_path / "package-lock.json").write_text(
        '{"packages": {"node_modules/a": [1], "node_modules/ok": {"version": "1.2.3"}}}'
    )
    project = read_quietly(tmp_path)
    assert [str(p) for p in project.dependencies] == ["npm:ok"]


@pytest.mark.parametrize(
    ("name", "content"),
    [
        ("package-lock.json", "[" * 200_000 + "]" * 200_000),
        ("bun.lock", '{"packages": ' + "[" * 200_000 + "]" * 200_000 + "}"),
        ("uv.lock", "package = " + "[" * 200_000 + "]" * 200_000),
        ("pyproject.toml", "a = " + "{b = " * 50_000 + "1" + "}" * 50_000),
        ("pnpm-lock.yaml", "packages: " + "[" * 200_000 + "]" * 200_000),
        ("pnpm-lock.yaml", "".join(" " * i + "a:\n" for i in range(3000))),
    ],
)
def test_deep_nesting(tmp_path: Path, name: str, content: str) -> None:
    (tmp_path / name).write_text(content)
    project = read_quietly(tmp_path)
    assert project.dependencies == {}


def test_a_file_past_the_limit_is_refused_unread(tmp_path: Path) -> None:
    """A 50 MB lockfile (sparse: nothing is written, and nothing is read)."""
    with open(tmp_path / "package-lock.json", "wb") as sparse:
        sparse.truncate(50 * 1024 * 1024)
    project = read_quietly(tmp_path)
    assert project.dependencies == {}
    (warning,) = project.warnings
    assert "package-lock.json" in warning and f"{MAX_FILE_BYTES:,}-byte limit" in warning


def test_a_big_real_shaped_lockfile_under_the_limit_is_read(tmp_path: Path) -> None:
    entries = ",".join(f'"node_modules/p{i}": {{"version": "1.0.{i}"}}' for i in range(100_000))
    (tmp_path / "package-lock.json").write_text('{"packages": {' + entries + "}}")
    assert len(read_quietly(tmp_path).dependencies) == 100_000


def test_yaml_aliases_expand_nothing(tmp_path: Path) -> None:
    """A billion-laughs pnpm-lock.yaml: aliases are shared, never copied, and nothing walks them."""
    lines = ["a0: &a0 [x, x, x, x, x, x, x, x, x, x]"]
    lines += [f"a{i}: &a{i} [" + ", ".join([f"*a{i - 1}"] * 10) + "]" for i in range(1, 10)]
    lines += ["importers:", "  .:", "    dependencies: *a9", "packages: *a9"]
    (tmp_path / "pnpm-lock.yaml").write_text("\n".join(lines) + "\n")
    assert read_quietly(tmp_path).dependencies == {}


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs here")
@pytest.mark.parametrize("name", ["package-lock.json", "uv.lock", "yarn.lock", ".python-version"])
def test_a_fifo_is_refused_without_waiting(tmp_path: Path, name: str) -> None:
    os.mkfifo(tmp_path / name)
    project = read_quietly(tmp_path)
    assert any(name in w and "not a regular file" in w for w in project.warnings)


@pytest.mark.skipif(not os.path.exists("/dev/zero"), reason="no /dev/zero here")
def test_a_device_is_refused(tmp_path: Path) -> None:
    (tmp_path / "node_modules" / "a").mkdir(parents=True)
    (tmp_path / "node_modules" / "a" / "package.json").symlink_to("/dev/zero")
    (tmp_path / "package-lock.json").symlink_to("/dev/zero")
    project = read_quietly(tmp_path)
    assert project.dependencies == {}
    assert len(project.warnings) == 2


def test_symlink_loops_in_node_modules(tmp_path: Path) -> None:
    modules = tmp_path / "node_modules"
    modules.mkdir()
    (modules / "self").symlink_to(modules / "self")  # a loop on itself
    (modules / "up").symlink_to(modules)  # up/up/up/... without end, if recursed
    (modules / "@scope").mkdir()
    (modules / "@scope" / "ring").symlink_to(modules / "@scope")
    (modules / "@loop").symlink_to(modules / "@loop")
    (modules / "file").mkdir()
    (modules / "file" / "package.json").symlink_to(modules / "file" / "package.json")
    (modules / "dangling").symlink_to(tmp_path / "nowhere")
    (modules / "ok").mkdir()
    (modules / "ok" / "package.json").write_text('{"name": "ok", "version": "1.0.0"}')
    project = read_quietly(tmp_path)
    assert [(str(p), d.version.text) for p, d in project.dependencies.items()] == [
        ("npm:ok", "1.0.0")
    ]
    assert all("node_modules" in w for w in project.warnings)


def test_a_venv_with_loops_and_garbage(tmp_path: Path) -> None:
    site = tmp_path / ".venv" / "lib" / "python3.12" / "site-packages"
    site.mkdir(parents=True)
    (site / "loop-1.0.dist-info").symlink_to(site / "loop-1.0.dist-info")
    (site / "junk-1.0.dist-info").mkdir()
    (site / "junk-1.0.dist-info" / "METADATA").write_bytes(GARBAGE)
    (site / "nameless.dist-info").mkdir()
    (tmp_path / ".venv" / "lib" / "python3.99").symlink_to(tmp_path / ".venv" / "lib")
    (tmp_path / ".venv" / "pyvenv.cfg").write_bytes(GARBAGE)
    project = read_quietly(tmp_path)
    assert {str(p) for p in project.dependencies} <= {"pypi:junk"}


def test_too_many_entries_stop_with_a_warning(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setattr(pinax.project.reading, "MAX_FOLDER_ENTRIES", 5)
    for index in range(8):
        folder = tmp_path / "node_modules" / f"p{index}"
        folder.mkdir(parents=True)
        (folder / "package.json").write_text(f'{{"name": "p{index}", "version": "1.0.0"}}')
    project = read_quietly(tmp_path)
    assert len(project.dependencies) == 5
    assert any("more than 5 entries" in w for w in project.warnings)


def test_warnings_are_logged_naming_the_file(tmp_path: Path, caplog) -> None:
    (tmp_path / "uv.lock").write_text("package = [")
    with caplog.at_level(logging.WARNING, logger="pinax.project"):
        project = read_quietly(tmp_path)
    (warning,) = project.warnings
    assert warning.startswith(f"{tmp_path / 'uv.lock'}: not TOML (")
    assert [r.getMessage() for r in caplog.records] == project.warnings


@settings(
    max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    st.sampled_from(LOCKFILES), st.binary(max_size=2000) | st.text(max_size=2000).map(str.encode)
)
def test_any_bytes_in_any_file_never_raise(tmp_path_factory, name: str, data: bytes) -> None:
    folder = tmp_path_factory.mktemp("fuzz")
    (folder / name).write_bytes(data)
    project = read_project(folder)
    assert not any("failed (" in w for w in project.warnings)


def test_a_readers_defect_is_a_warning_and_the_other_readers_still_read(
    tmp_path: Path, monkeypatch
) -> None:
    import pinax.project.detect as detect

    def broken(reading, root):
        yield from ()
        raise ZeroDivisionError("a defect")

    monkeypatch.setattr(detect, "READERS", (broken, *detect.READERS))
    (tmp_path / ".python-version").write_text("3.12\n")
    (tmp_path / "requirements.txt").write_text("django==5.2.19\n")
    project = read_project(tmp_path)
    assert [w.partition(": ")[2] for w in project.warnings] == [
        "reading test_hostile broken failed (ZeroDivisionError('a defect')); skipped"
    ]
    assert {str(p) for p in project.dependencies} == {"pypi:django", "runtime:python"}


def test_too_many_scoped_packages_stop_with_a_warning(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setattr(pinax.project.reading, "MAX_FOLDER_ENTRIES", 5)
    for scope in range(3):
        for index in range(4):
            folder = tmp_path / "node_modules" / f"@s{scope}" / f"p{index}"
            folder.mkdir(parents=True)
            (folder / "package.json").write_text(
                f'{{"name": "@s{scope}/p{index}", "version": "1.0.0"}}'
            )
    project = read_quietly(tmp_path)
    assert len(project.dependencies) == 5
    assert any("more than 5 packages" in w for w in project.warnings)
