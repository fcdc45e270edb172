"""Astro Starlight: `src/content/docs/` beside an `astro.config.*` that uses Starlight.

Pages are `.md`/`.mdx`/`.mdoc` files under `src/content/docs/` (its top `404` page is the
site's not-found page, not one of its pages), never a file whose name starts with `_` (the
docs loader's `**/[^_]*` pattern), nor, with Astro's legacy content collections (no
`docsLoader` in `src/content.config.*`), anything in a `_`-prefixed folder;
`guide/Intro.md` is served
at `guide/intro/` (lower-cased slug, trailing slash), `index.md` at its folder; front
matter `slug` replaces the path. Read as literals: `site` and Starlight's `title`; the
`sidebar` items' `label` for their `link` or `slug`, and a page's front matter
`sidebar: {label}`, are sidebar labels (site.py's `nav_label`): the page's title stays its
front matter `title`. A locale's pages are its own translated files: the fallback pages
Starlight renders for untranslated ones (the default locale's text at `/<locale>/x/`) would
only repeat pages already listed, and are left out.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

from .frontmatter import front_matter
from .jsliteral import read_config, read_module
from .site import (
    Site,
    config_nodes,
    directory_url,
    first_file,
    manifest_name,
    quoted,
    read_head,
    read_text,
    site_base,
    text_of,
)

CONFIG_NAMES = ("astro.config.mjs", "astro.config.ts", "astro.config.js", "astro.config.mts")


class StarlightSite(Site):
    def nav_label(self, path: str, meta: Mapping[str, str]) -> str | None:
        if path in self.nav_labels:
            return self.nav_labels[path]
        sidebar = front_matter(read_head(self.source / path)).get("sidebar")
        return text_of(sidebar.get("label")) if isinstance(sidebar, dict) else None

    def page_path(self, path: str, meta: Mapping[str, str]) -> str:
        slug = meta.get("slug", "").strip().strip("/")
        if slug:
            return quoted(slug + "/")
        return quoted(directory_url(path.lower(), frozenset({"index"})))


def detect(folder: Path) -> StarlightSite | None:
    for place in (folder, folder / "docs", folder.parent.parent.parent):
        docs = place / "src" / "content" / "docs"
        config = first_file(place, CONFIG_NAMES)
        if config is not None and docs.is_dir():
            return _site(place, config, docs)
    return None


def _starlight_options(data: Any) -> dict[str, Any]:
    for integration in data.get("integrations") or () if isinstance(data, dict) else ():
        if isinstance(integration, dict) and "title" in integration:
            return integration
    return {}


def _site(place: Path, config: Path, docs: Path) -> StarlightSite:
    text = read_text(config) or ""
    module = read_config(config)
    data = module.export if isinstance(module.export, dict) else {}
    site = StarlightSite(
        "starlight",
        config,
        docs.resolve(),
        suffixes=frozenset({".md", ".mdx", ".mdoc"}),
        # the not-found page (served for missing URLs, not a page), and `_` files
        excluded=("404.*", "_*.*" if _loader_collections(place) else "_*"),
    )
    options = _starlight_options(data)
    if not options:
        options = _starlight_call(text)
    site.title = text_of(options.get("title"))
    site.name = manifest_name(site.title) if site.title else None
    site.site_url = site_base(text_of(data.get("site")))
    site.nav_labels = dict(_sidebar_labels(options.get("sidebar"), site))
    return site


def _loader_collections(place: Path) -> bool:
    """Whether the docs collection is read by Starlight's `docsLoader` (Astro 5 content
    layer: only `_` files are skipped) rather than Astro's legacy collections (`_` folders
    too)."""
    for name in ("content.config.ts", "content.config.mjs", "content.config.js"):
        text = read_text(place / "src" / name)
        if text is not None and "docsLoader" in text:
            return True
    return False


def _sidebar_labels(sidebar: Any, site: Site) -> Iterator[tuple[str, str]]:
    """(page path, label) of each sidebar item that links a page of the site."""
    for item in config_nodes(sidebar):
        if isinstance(item, dict):
            label = text_of(item.get("label"))
            link = text_of(item.get("link")) or text_of(item.get("slug"))
            path = _page_of(link, site) if label and link else None
            if label and path:
                yield path, label


def _page_of(link: str, site: Site) -> str | None:
    """The source file a sidebar link names (`/start/` -> `start/index.mdx`), if any."""
    if link.startswith(("http:", "https:", "//")) or "#" in link:
        return None
    slug = link.split("?", 1)[0].strip("/")
    for stem in (slug, f"{slug}/index") if slug else ("index",):
        for suffix in sorted(site.suffixes):
            if (site.source / f"{stem}{suffix}").is_file():
                return f"{stem}{suffix}"
    return None


def _starlight_call(text: str) -> dict[str, Any]:
    """`starlight({...})`'s literal options, wherever the call stands."""
    at = text.find("starlight(")
    if at < 0:
        return {}
    found = read_module("export default " + text[at + len("starlight") :]).export
    return found if isinstance(found, dict) else {}
