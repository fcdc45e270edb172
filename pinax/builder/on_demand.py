"""`--docs` of serve/search accepts a site URL or a published file, not only a manifest.

A manifest file is used as it is. Anything else is built on the fly (default options:
titles from URLs, no crawl beyond 1,000 pages) into the cache folder,
`<cache>/manifests/<name>-<hash of the source>.json`, and reused while fresh: a URL's
manifest for 7 days, a local file's until the file changes. When a rebuild fails, a stale
copy is used with a warning rather than no docs at all. Such a manifest keeps only the pages
on the site's own origin: it comes from the site, and it is get_page's allow-list.

The command's own options reach that build, so they mean there what they mean to
`pinax build`: `--allow-private` (a site on an intranet) and `--url` (the site a local
llms.txt, sitemap or objects.inv describes; a local file only, as one URL cannot be the site
of several URLs).

A folder is either a folder of manifests or a folder of documentation sources, which the
command builds in memory itself (`is_docs_folder` tells which; see folder.py).
"""

from __future__ import annotations

import hashlib
import os
import re
import stat
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pinax.errors import PinaxError

from .report import Reporter
from .suffixes import SOURCE_SUFFIXES
from .urls import default_name, is_url

if TYPE_CHECKING:
    from pinax.manifest import Manifest

MANIFEST_MAX_AGE = 7 * 24 * 3600.0


# JSON files docs tools keep beside the pages (Docusaurus, Nextra, npm): not manifests.
TOOL_JSON = frozenset(
    {"_category_.json", "_meta.json", "package.json", "package-lock.json", "tsconfig.json"}
)


def is_docs_folder(path: Path) -> bool:
    """Whether `--docs DIR` names documentation sources rather than a folder of manifests.
    A folder whose `*.json` files at its top are all Pinax manifests is a folder of
    manifests, as it always was (`manifests/` keeps a README.md beside them); one JSON file
    that is not a manifest (`versions.json`, `docs.json`, `mint.json`...) or a generator's
    config makes it a docs folder, and so do, without JSON, a documentation source at its
    top or subfolders (Docusaurus keeps its pages in them). An empty folder stays a folder
    of manifests to watch."""
    from .ignore import skipped_name

    try:
        with os.scandir(path) as listing:
            entries = [(e.name, e.is_dir()) for e in listing]
    except OSError:
        return False
    names = {name for name, _ in entries}
    if names & GENERATOR_CONFIGS or (path / ".vitepress").is_dir():
        return True
    entries = [(name.lower(), is_dir) for name, is_dir in entries if not name.startswith(".")]
    json_files = [
        name
        for name, is_dir in entries
        if name.endswith(".json") and not is_dir and name not in TOOL_JSON
    ]
    if json_files:
        return not all(_is_manifest_json(path / name) for name in json_files)
    if any(os.path.splitext(name)[1] in SOURCE_SUFFIXES for name, _ in entries):
        return True
    return any(is_dir and not skipped_name(name, True) for name, is_dir in entries)


# Config files a generator keeps at its folder's top: a folder holding one is a docs folder.
GENERATOR_CONFIGS = frozenset(
    {"mkdocs.yml", "mkdocs.yaml", "conf.py", "book.toml", "hugo.toml", "hugo.yaml"}
    | {f"docusaurus.config.{ext}" for ext in ("js", "ts", "mjs", "cjs", "mts")}
    | {f"astro.config.{ext}" for ext in ("mjs", "ts", "js", "mts")}
)
_MANIFEST_MARK = b'"pinax_manifest"'
TOOL_JSON_MAX_BYTES = 16 * 1024 * 1024


def _is_manifest_json(path: Path) -> bool:
    """Whether a JSON file is a Pinax manifest: its key `pinax_manifest` within its first
    64 KB (written first by `pinax build`; a hand-written one keeps it near the top too).
    A FIFO, a device or a file too big for a docs tool's JSON counts as a manifest, so that
    loading it says what is wrong with it (nothing here blocks on it or reads it whole)."""
    from pinax.files import SpecialFile, open_regular

    try:
        info = path.stat()
        if not stat.S_ISREG(info.st_mode) or info.st_size > TOOL_JSON_MAX_BYTES:
            return True
        with open_regular(path, TOOL_JSON_MAX_BYTES) as reader:
            return _MANIFEST_MARK in reader.read(64 * 1024)
    except (OSError, SpecialFile):
        return True


def resolve_docs(
    arg: str | Path,
    cache_dir: Path | None = None,
    reporter: Reporter | None = None,
    max_age: float = MANIFEST_MAX_AGE,
    allow_private: tuple[str, ...] = (),
    site_url: str | None = None,
    credentials: Any = None,
) -> Path:
    """The manifest file for a `--docs` argument, built (or rebuilt) when it is not one:
    with the networks `allow_private` may reach and, for a local file, its `site_url`;
    `credentials` (pinax.pages.Credentials) for a site behind a login, whose manifest is
    cached apart (under a hash of them: a private site's titles are not another's)."""
    text = str(arg)
    if is_url(text):
        source_time = None
        label = default_name(text)
        site_url = None
    else:
        path = Path(text).expanduser()
        if not path.is_file() or _is_manifest(path):
            return path  # loading reports a missing or bad file, naming it
        text = str(path.resolve())
        source_time = path.stat().st_mtime
        label = path.stem
    key = text if site_url is None else f"{text} {site_url}"
    namespace = credentials.namespace if credentials else None
    target = _cache_file(cache_dir, key if namespace is None else f"{key} {namespace}", label)
    if target.is_file() and _fresh(target, source_time, max_age):
        return target
    reporter = reporter or _console()
    try:
        _build_into(text, target, reporter, allow_private, site_url, credentials)
    except PinaxError as exc:
        if not target.is_file():
            raise
        age = (time.time() - target.stat().st_mtime) / 3600
        reporter.warn(
            f"could not rebuild the manifest of {text} ({exc.message}); "
            f"using the copy built {age:.0f} h ago"
        )
    return target


def _build_into(
    source: str,
    target: Path,
    reporter: Reporter,
    allow_private: tuple[str, ...],
    site_url: str | None,
    credentials: Any = None,
) -> None:
    from pinax.manifest import dump

    from .core import run_build
    from .model import BuildOptions  # the HTTP stack: only when a build runs
    from .output import write_atomic

    options = BuildOptions(
        site_url=site_url, allow_private=tuple(allow_private), credentials=credentials
    )

    reporter.note(f"building a manifest of {source} (cached in {target.parent})")
    manifest = _own_origin_only(run_build(source, options, reporter), source)
    write_atomic(target, dump(manifest))


def _own_origin_only(manifest: Manifest, source: str) -> Manifest:
    """The manifest's pages on the site's own origin only. A manifest is get_page's
    allow-list, and one built on the fly comes from the site itself: a link in its llms.txt
    or sitemap must not open another host to the model (the operator opens one by building
    a manifest file with `pinax build --allow-host` and serving that)."""
    from dataclasses import replace

    from pinax.pages import origin_of

    allowed = {_origin(origin_of, manifest.url)}
    if is_url(source):
        allowed.add(_origin(origin_of, source))
    kept = []
    for page in manifest.pages:
        if _origin(origin_of, page.url) not in allowed:
            continue
        if page.markdown_url and _origin(origin_of, page.markdown_url) not in allowed:
            page = replace(page, markdown_url=None)
        kept.append(page)
    if len(kept) == len(manifest.pages) and all(
        a is b for a, b in zip(kept, manifest.pages, strict=True)
    ):
        return manifest
    return replace(manifest, pages=tuple(kept))


def _origin(origin_of: Any, url: str) -> Any:
    try:
        return origin_of(url)
    except ValueError:
        return None


def _cache_file(cache_dir: Path | None, source: str, label: str) -> Path:
    from pinax.pages import default_cache_dir

    digest = hashlib.sha256(source.encode("utf-8")).hexdigest()[:16]
    safe = re.sub(r"[^A-Za-z0-9._-]+", "-", label).strip("-.") or "docs"
    return (cache_dir or default_cache_dir()) / "manifests" / f"{safe}-{digest}.json"


def _fresh(target: Path, source_time: float | None, max_age: float) -> bool:
    built = target.stat().st_mtime
    if source_time is not None:
        return built >= source_time
    return time.time() - built < max_age


def _is_manifest(path: Path) -> bool:
    if path.suffix.lower() == ".json":
        return True
    with path.open("rb") as handle:
        return handle.read(64).lstrip(b"\xef\xbb\xbf \t\r\n").startswith(b"{")


def _console() -> Reporter:
    from .console import ConsoleReporter

    return ConsoleReporter()
