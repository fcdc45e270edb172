"""Docusaurus: `docusaurus.config.{js,ts,mjs,cjs,mts}` at the folder, its `website/`, or
(for a `docs/` given beside it) the folder above or its `website/`.

Read as literals: `url` + `baseUrl` (the site), `title`, `trailingSlash`, and the classic
preset's (or docs plugin's) `docs.path` (default `docs`) and `routeBasePath` (default
`docs`). With `versions.json` and versioned docs, the site's main docs are its newest
version's (`versioned_docs/version-X/`, served at `routeBasePath`), unless the config says
`lastVersion: 'current'`. Pages are `.md`/`.mdx`, never `_`-prefixed files or folders.
URL rules (number prefixes dropped, `index`/`README`/same-named file at its folder, front
matter `id` and `slug`) as layouts.py's docusaurus layout.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from .. import layouts
from .jsliteral import UNKNOWN, read_config
from .site import (
    Site,
    config_nodes,
    first_file,
    manifest_name,
    read_json,
    site_base,
    strip_number_prefix,
    text_of,
)

SIDEBAR_NAMES = ("sidebars.ts", "sidebars.js", "sidebars.mjs", "sidebars.cjs", "sidebars.json")

CONFIG_NAMES = tuple(f"docusaurus.config.{ext}" for ext in ("ts", "js", "mjs", "cjs", "mts"))
_EXCLUDED = ("_*", "**/_*/**", "__tests__", "*.test.*")


class DocusaurusSite(Site):
    route: str = "docs"
    trailing_slash: bool = False
    current: Path | None = None  # the docs path (the version in progress) when versioned
    sidebar_labels: dict[str, str]  # doc id -> the label a sidebar item gives it

    def nav_label(self, path: str, meta: Mapping[str, str]) -> str | None:
        """A sidebar item's `label` for the page's doc id, else its `sidebar_label`."""
        label = self.sidebar_labels.get(doc_id(path, meta))
        return label or super().nav_label(path, meta)

    def elsewhere(self, given: Path) -> None:
        """`docs/` given while the site serves its newest version: the version in progress,
        which Docusaurus serves at `<route>/next/`."""
        super().elsewhere(given)
        if self.current is not None and given == self.current:
            self.route = f"{self.route}/next".strip("/")

    def page_path(self, path: str, meta: Mapping[str, str]) -> str:
        # A slug `/x` is from the docs' own route (`/docs/x`), not the host's root.
        inner = layouts.page_path(path, "docusaurus", meta)
        url = "/".join(p.strip("/") for p in (self.route, inner) if p.strip("/"))
        if self.trailing_slash and url and not url.endswith("/"):
            url += "/"
        return url


def doc_id(path: str, meta: Mapping[str, str]) -> str:
    """A doc's id as Docusaurus gives it: its folders (number prefixes dropped) and its
    front matter `id`, else its file name (number prefix dropped)."""
    folder, _, name = path.rpartition("/")
    parts = [strip_number_prefix(part) for part in folder.split("/") if part]
    own = meta.get("id", "").strip() or strip_number_prefix(name.rpartition(".")[0] or name)
    return "/".join([*parts, own])


def detect(folder: Path) -> DocusaurusSite | None:
    for place in (folder, folder / "website", folder.parent / "website", folder.parent):
        config = first_file(place, CONFIG_NAMES)
        if config is not None:
            return _site(place, config)
    return None


def _docs_options(data: dict[str, Any]) -> dict[str, Any]:
    """The classic preset's `docs` options, or the docs plugin's."""
    for preset in data.get("presets") or ():
        if isinstance(preset, list) and len(preset) > 1 and isinstance(preset[1], dict):
            docs = preset[1].get("docs")
            if isinstance(docs, dict):
                return docs
    for plugin in data.get("plugins") or ():
        if (
            (
                isinstance(plugin, list)
                and len(plugin) > 1
                and plugin[0]
                in (
                    "@docusaurus/plugin-content-docs",
                    "content-docs",
                )
            )
            and isinstance(plugin[1], dict)
            and plugin[1].get("id") in (None, "default")
        ):
            return plugin[1]
    return {}


def _sidebar_labels(place: Path, docs: dict[str, Any], versions: Any) -> dict[str, str]:
    """{doc id: label} of the sidebar items that label a doc (`{type: 'doc', id, label}`),
    from the served version's `versioned_sidebars/` file, else the docs' `sidebarPath`
    (where literal), else `sidebars.*` beside the config."""
    found: Path | None = None
    if isinstance(versions, list) and versions and isinstance(versions[0], str):
        named = place / "versioned_sidebars" / f"version-{versions[0]}-sidebars.json"
        found = named if named.is_file() else None
    given = docs.get("sidebarPath")
    if found is None and isinstance(given, str) and (place / given).is_file():
        found = place / given
    found = found or first_file(place, SIDEBAR_NAMES)
    if found is None:
        return {}
    data = read_json(found) if found.suffix == ".json" else read_config(found).export
    labels: dict[str, str] = {}
    for item in config_nodes(data):
        if isinstance(item, dict):
            kind, doc, label = item.get("type"), text_of(item.get("id")), text_of(item.get("label"))
            link = item.get("link")  # a category whose label opens a doc
            if kind == "category" and isinstance(link, dict) and link.get("type") == "doc":
                doc = text_of(link.get("id"))
            if kind in ("doc", "ref", "category") and doc and label:
                versioned = doc.startswith("version-")  # `version-0.60/x`: older sidebars
                labels.setdefault(doc.split("/", 1)[1] if versioned else doc, label)
    return labels


def _site(place: Path, config: Path) -> DocusaurusSite:
    module = read_config(config)
    data = module.export if isinstance(module.export, dict) else {}
    site = DocusaurusSite(
        "docusaurus", config, place / "docs", excluded=_EXCLUDED, label_keys=("sidebar_label",)
    )
    site.route = "docs"
    site.trailing_slash = data.get("trailingSlash") is True
    if module.export is UNKNOWN:
        site.warnings.append(
            f"{config}: the exported config is not a literal; assumed docs in 'docs' "
            "served at /docs/"
        )
    docs = _docs_options(data)
    path = docs.get("path", "docs")
    if path is UNKNOWN:
        site.warn_unread("docs.path", "'docs'")
        path = "docs"
    route = docs.get("routeBasePath", "docs")
    if route is UNKNOWN:
        site.warn_unread("docs.routeBasePath", "'docs'")
        route = "docs"
    site.route = route.strip("/") if isinstance(route, str) else "docs"
    source = (place / path).resolve() if isinstance(path, str) else place / "docs"
    versions = read_json(place / "versions.json")
    if isinstance(versions, list) and versions and isinstance(versions[0], str):
        newest = place / "versioned_docs" / f"version-{versions[0]}"
        if docs.get("lastVersion") not in ("current",) and newest.is_dir():
            site.current = source
            source = newest.resolve()
    site.source = source
    site.sidebar_labels = _sidebar_labels(place, docs, versions if site.current else None)
    site.title = text_of(data.get("title"))
    site.name = manifest_name(site.title) if site.title else None
    url = data.get("url")
    base = data.get("baseUrl")
    site.site_url = site_base(text_of(url), base if isinstance(base, str) else None)
    return site
