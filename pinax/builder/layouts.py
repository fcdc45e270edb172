"""The URL a docs generator publishes a source file at, so a folder's hits carry real links.

`path` is the file's path inside the docs folder (`guide/intro.md`); the result is relative
to the site URL given with `--url`:

  mkdocs      guide/intro.md -> guide/intro/, guide/index.md or README.md -> guide/
  docusaurus  guide/01-intro.md -> guide/intro, guide/index.md -> guide; front matter
              `id` renames the page, `slug` replaces its path (`/x` from the site's root)
  hugo        guide/Intro.md -> guide/intro/, guide/_index.md or index.md -> guide/;
              front matter `slug` renames the page, `url` replaces its path
  sphinx      guide/intro.rst -> guide/intro.html
  plain       the path as it is (a site serving the files themselves)

An HTML file is published as it is in every layout.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from pathlib import Path
from urllib.parse import quote

LAYOUTS = ("mkdocs", "docusaurus", "hugo", "sphinx", "plain")
_NUMBER_PREFIX = re.compile(r"^\d+[-_.\s]+(?=.)")
_INDEX = frozenset({"index", "readme"})


def detect(folder: Path) -> str:
    """The layout a folder's generator suggests: its config file, here or up to two levels
    up (Hugo's `content/en/` lies two below its `hugo.toml`)."""
    for place in (folder, folder.parent, folder.parent.parent):
        names = {p.name for p in _listing(place)}
        if "mkdocs.yml" in names or "mkdocs.yaml" in names:
            return "mkdocs"
        if "conf.py" in names and place == folder:
            return "sphinx"
        if names & {"docusaurus.config.js", "docusaurus.config.ts", "docusaurus.config.mjs"}:
            return "docusaurus"
        if names & {"hugo.toml", "hugo.yaml", "hugo.json"}:
            return "hugo"
    return "plain"


def _listing(place: Path) -> list[Path]:
    try:
        return [p for p, _ in zip(place.iterdir(), range(10_000), strict=False)]
    except OSError:
        return []


def page_path(path: str, layout: str, meta: Mapping[str, str], lower: bool = True) -> str:
    """The page's URL path relative to the site, percent-encoded (`lower`: Hugo's paths
    lower-cased, unless its config says `disablePathToLower`)."""
    folder, _, name = path.rpartition("/")
    stem, dot, suffix = name.rpartition(".")
    stem = stem if dot else name
    if suffix.lower() in ("html", "htm") or layout == "plain":
        return _quoted(path)
    if layout == "sphinx":
        return _quoted(f"{folder}/{stem}.html" if folder else f"{stem}.html")
    if layout == "docusaurus":
        return _quoted(_docusaurus(folder, stem, meta))
    if layout == "hugo":
        return _quoted(_hugo(folder, stem, meta, lower))
    if stem.lower() in _INDEX:  # mkdocs: directory URLs
        return _quoted(f"{folder}/" if folder else "")
    return _quoted(f"{folder}/{stem}/" if folder else f"{stem}/")


def _docusaurus(folder: str, stem: str, meta: Mapping[str, str]) -> str:
    parts = [_NUMBER_PREFIX.sub("", part) for part in folder.split("/") if part]
    slug = meta.get("slug", "").strip()
    if slug.startswith("/"):
        return slug.strip("/")
    name = meta.get("id", "").strip() or _NUMBER_PREFIX.sub("", stem)
    if slug:
        return "/".join([*parts, slug.strip("/")])
    if name.lower() in _INDEX or (parts and name == parts[-1]):
        return "/".join(parts)
    return "/".join([*parts, name])


def _hugo(folder: str, stem: str, meta: Mapping[str, str], lower: bool = True) -> str:
    url = meta.get("url", "").strip().strip("/")  # with or without its leading `/`
    if url:  # `x.html` keeps its extension; else a folder
        return url if url.lower().endswith((".html", ".htm", ".xml")) else url + "/"
    if meta.get("url", "").strip() == "/":
        return ""
    parts = [part.lower() if lower else part for part in folder.split("/") if part]
    if stem.lower() in ("_index", "index"):
        return "".join(part + "/" for part in parts)
    name = meta.get("slug", "").strip() or stem
    name = name.lower() if lower else name
    return "".join(part + "/" for part in [*parts, name])


def _quoted(path: str) -> str:
    return quote(path, safe="/-._~")
