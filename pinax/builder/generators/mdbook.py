"""mdBook: `book.toml` at the folder (or the folder above its `src`).

Read: `[book] src` (default `src`), `title`, `[output.html] site-url`. Pages are the
chapters `SUMMARY.md` links to (an unlisted file is not rendered), titled as SUMMARY
names them; `x/y.md` is served at `x/y.html`, a `README.md` at `index.html` of its folder.
"""

from __future__ import annotations

import re
import tomllib
from collections.abc import Mapping
from pathlib import Path

from .site import Site, manifest_name, quoted, read_text, site_base, stem_and_folder, text_of

_LINK = re.compile(r"\[([^\]\n]{1,500})\]\(<?([^)>\s]{1,1000})>?\)")
MAX_CHAPTERS = 50_000


class MdBookSite(Site):
    def page_path(self, path: str, meta: Mapping[str, str]) -> str:
        folder, stem = stem_and_folder(path)
        name = "index" if stem.lower() in ("readme", "index") else stem
        return quoted(f"{folder}/{name}.html" if folder else f"{name}.html")


def detect(folder: Path) -> MdBookSite | None:
    for place in (folder, folder.parent):
        config = place / "book.toml"
        if config.is_file():
            return _site(place, config)
    return None


def _site(place: Path, config: Path) -> MdBookSite:
    site = MdBookSite("mdbook", config, place / "src", slug_rule="mdbook")
    try:
        data = tomllib.loads(read_text(config) or "")
    except (tomllib.TOMLDecodeError, RecursionError):
        site.warnings.append(f"{config}: not readable as TOML; assumed src 'src'")
        data = {}
    book = data.get("book") if isinstance(data.get("book"), dict) else {}
    src = book.get("src", "src")
    if isinstance(src, str):
        site.source = (place / src).resolve()
    site.title = text_of(book.get("title"))
    site.name = manifest_name(site.title) if site.title else None
    output = data.get("output")
    html = output.get("html") if isinstance(output, dict) else None
    url = html.get("site-url") if isinstance(html, dict) else None
    site.site_url = site_base(text_of(url))  # a bare path (`/mdBook/`) names no host
    summary = read_text(site.source / "SUMMARY.md")
    if summary is not None:
        chapters = dict(summary_chapters(summary))
        site.nav_titles = chapters
        site.listed = frozenset(chapters)
    return site


def summary_chapters(text: str) -> list[tuple[str, str]]:
    """(path, title) of each chapter link in SUMMARY.md, in order."""
    found: list[tuple[str, str]] = []
    for match in _LINK.finditer(text):
        target = match.group(2).split("#", 1)[0]
        if target and "://" not in target and target.endswith(".md"):
            found.append((target.lstrip("./"), match.group(1).strip()))
            if len(found) >= MAX_CHAPTERS:
                break
    return found
