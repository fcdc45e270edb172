"""An MCP client's roots as project folders: local file:// folders only, each checked."""

from __future__ import annotations

from pathlib import Path

from pinax.project import folders_from_roots
from pinax.project.roots import MAX_ROOTS


def test_file_uris_of_local_folders(tmp_path: Path) -> None:
    spaced = tmp_path / "my project"
    spaced.mkdir()
    uris = [
        tmp_path.as_uri(),
        spaced.as_uri(),
        f"file://localhost{tmp_path}",
        tmp_path.as_uri() + "/",
    ]
    folders, warnings = folders_from_roots(uris)
    assert folders == [tmp_path, spaced]  # percent-decoded, once each
    assert warnings == []


def test_what_is_not_a_local_folder_is_skipped_with_a_warning(tmp_path: Path) -> None:
    (tmp_path / "file.txt").write_text("x")
    uris = [
        "https://example.com/project",
        "file://server/share/project",
        "file:relative/path",
        (tmp_path / "absent").as_uri(),
        (tmp_path / "file.txt").as_uri(),
        f"file://{tmp_path}/%00x",
        "x" * 5000,
        None,
        tmp_path.as_uri(),
    ]
    folders, warnings = folders_from_roots(uris)
    assert folders == [tmp_path]
    assert len(warnings) == 8
    assert "not a file:// URI" in warnings[0] and "on another host (server)" in warnings[1]
    assert all("skipped" in w for w in warnings)


def test_too_many_roots(tmp_path: Path) -> None:
    folders, warnings = folders_from_roots([tmp_path.as_uri()] * (MAX_ROOTS + 5))
    assert folders == [tmp_path]
    assert warnings == [f"more than {MAX_ROOTS} roots; the rest skipped"]
