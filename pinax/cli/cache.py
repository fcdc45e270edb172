"""`pinax cache`: inspect or empty the cache folder: fetched pages, the on-disk search indexes
and the manifests built on the fly from `--docs URL`, all of it derived data Pinax can make
again. Looking never creates anything."""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Annotated, Any

import typer

from pinax.cli.common import (
    CacheDirOption,
    JsonOption,
    fail,
    fail_on,
    json_errors,
    parse_duration,
    plural,
)
from pinax.errors import PinaxError

cache_app = typer.Typer(
    help="Inspect or empty the cache folder (pages, search indexes, built manifests).",
    no_args_is_help=True,
)

INDEXES = "indexes"  # where tools.py keeps the on-disk search indexes (INDEX_FOLDER)
CONTENT = "content"  # ...and inside it, the content indexes (see Library.load)
BUILT = "manifests"  # where --docs URL builds go (builder/on_demand.py)


def cache_folder(cache_dir: Path | None) -> Path:
    from pinax.pages import default_cache_dir

    return Path(cache_dir or default_cache_dir()).expanduser()


def open_cache(folder: Path) -> Any:
    from pinax.pages import PageCache

    return PageCache(folder)


def files_in(folder: Path, pattern: str = "*") -> list[Path]:
    """The plain files of `folder` matching `pattern` (none when it does not exist)."""
    try:
        return sorted(p for p in folder.glob(pattern) if p.is_file())
    except OSError:
        return []


def size_of(paths: list[Path]) -> int:
    total = 0
    for path in paths:
        try:
            total += path.stat().st_size
        except OSError:
            continue  # removed meanwhile: nothing to count
    return total


def cache_report(folder: Path) -> dict[str, Any]:
    """What the cache folder holds: the page cache's stats, with the search indexes and built
    manifests beside it. Raises `CacheError` when the page cache cannot be read."""
    report: dict[str, Any] = {"folder": str(folder), **open_cache(folder).stats()}
    index_files = files_in(folder / INDEXES)
    report["indexes"] = {
        "directory": str(folder / INDEXES),
        "files": len([p for p in index_files if p.suffix == ".pxi"]),
        "bytes": size_of(index_files),
    }
    content_files = files_in(folder / INDEXES / CONTENT, "*.pxc")
    report["content_indexes"] = {
        "directory": str(folder / INDEXES / CONTENT),
        "files": len(content_files),
        "bytes": size_of(content_files),
    }
    built = files_in(folder / BUILT, "*.json")
    report["manifests"] = {
        "directory": str(folder / BUILT),
        "files": len(built),
        "bytes": size_of(built),
    }
    return report


def human_bytes(count: int) -> str:
    size = float(count)
    for unit in ("bytes", "KB", "MB", "GB"):
        if size < 1024 or unit == "GB":
            return f"{size:.0f} {unit}" if unit == "bytes" else f"{size:.1f} {unit}"
        size /= 1024
    return f"{count} bytes"  # not reached


def human_age(seconds: float | None) -> str:
    if seconds is None:
        return "-"
    for unit, size in (("d", 86400), ("h", 3600), ("min", 60)):
        if seconds >= size:
            return f"{seconds / size:.0f} {unit}"
    return f"{seconds:.0f} s"


def report_lines(report: dict[str, Any]) -> list[str]:
    pages = plural(report["entries"], "cached page")
    damaged = f" ({report['damaged']} damaged)" if report["damaged"] else ""
    ages = (
        f"; oldest {human_age(report['oldest_age'])}, newest {human_age(report['newest_age'])}"
        if report["entries"]
        else ""
    )
    indexes, built = report["indexes"], report["manifests"]
    content = report["content_indexes"]
    return [
        f"folder: {report['folder']}",
        f"pages: {pages}{damaged}, {human_bytes(report['bytes'])}{ages}",
        f"indexes: {plural(indexes['files'], 'search index', 'search indexes')}, "
        f"{human_bytes(indexes['bytes'])}",
        f"content indexes: {plural(content['files'], 'content index', 'content indexes')}, "
        f"{human_bytes(content['bytes'])}",
        f"built manifests: {plural(built['files'], 'manifest')}, {human_bytes(built['bytes'])}",
    ]


@cache_app.command("stats")
def cache_stats(
    cache_dir: CacheDirOption = None,
    as_json: JsonOption = False,
) -> None:
    """How many pages, search indexes and built manifests the cache holds, their size and age."""
    json_errors(as_json)
    try:
        report = cache_report(cache_folder(cache_dir))
    except PinaxError as exc:
        fail_on(exc)
    if as_json:
        typer.echo(json.dumps(report, indent=2))
        return
    for line in report_lines(report):
        typer.echo(line)


@cache_app.command("clear")
def cache_clear(
    cache_dir: CacheDirOption = None,
    older_than: Annotated[
        str | None,
        typer.Option(
            "--older-than",
            help="Only what was stored longer ago than this (3600, 30m, 12h, 7d).",
        ),
    ] = None,
) -> None:
    """Remove cached pages, search indexes and built manifests (all, or those older than
    --older-than); each is made again when next needed."""
    seconds = None if older_than is None else parse_duration(older_than, "--older-than")
    folder = cache_folder(cache_dir)
    try:
        pages = open_cache(folder).clear(seconds)
    except PinaxError as exc:
        fail(exc.message, 1)
    indexes = remove_files(files_in(folder / INDEXES), seconds, count_suffix=".pxi")
    indexes += remove_files(files_in(folder / INDEXES / CONTENT), seconds, count_suffix=".pxc")
    built = remove_files(files_in(folder / BUILT, "*.json"), seconds)
    typer.echo(
        f"removed {plural(pages, 'cached page')}, "
        f"{plural(indexes, 'search index', 'search indexes')} and "
        f"{plural(built, 'built manifest')}"
    )


def remove_files(paths: list[Path], older_than: float | None, count_suffix: str = "") -> int:
    """Delete the files (those modified more than `older_than` seconds ago); count those
    ending in `count_suffix` (an index is a .pxi file and its small record)."""
    now = time.time()
    removed = 0
    for path in paths:
        try:
            if older_than is not None and now - path.stat().st_mtime <= older_than:
                continue
            path.unlink()
        except OSError:
            continue
        removed += path.name.endswith(count_suffix)
    return removed
