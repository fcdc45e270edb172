"""Astro Starlight: `src/content/docs/` beside an `astro.config.*` that uses Starlight.

Pages are `.md`/`.mdx`/`.mdoc` files under `src/content/docs/` (its top `404` page is the
site's not-found page, not one of its pages); `guide/Intro.md` is served
at `guide/intro/` (lower-cased slug, trailing slash), `index.md` at its folder; front
matter `slug` replaces the path. Read as literals: `site` and Starlight's `title`.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from .jsliteral import read_config, read_module
from .site import (
    Site,
    directory_url,
    first_file,
    manifest_name,
    quoted,
    read_text,
    site_base,
    text_of,
)

CONFIG_NAMES = ("astro.config.mjs", "astro.config.ts", "astro.config.js", "astro.config.mts")


class StarlightSite(Site):
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
        excluded=("404.*",),  # the not-found page: served for missing URLs, not a page
    )
    options = _starlight_options(data)
    if not options:
        options = _starlight_call(text)
    site.title = text_of(options.get("title"))
    site.name = manifest_name(site.title) if site.title else None
    site.site_url = site_base(text_of(data.get("site")))
    return site


def _starlight_call(text: str) -> dict[str, Any]:
    """`starlight({...})`'s literal options, wherever the call stands."""
    at = text.find("starlight(")
    if at < 0:
        return {}
    found = read_module("export default " + text[at + len("starlight") :]).export
    return found if isinstance(found, dict) else {}
