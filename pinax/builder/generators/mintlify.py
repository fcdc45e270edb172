"""Mintlify: `docs.json` (or the older `mint.json`) at the folder.

Pages are the `.md`/`.mdx` files (never `snippets/`, Mintlify's default ignored files and
folders, nor what `.mintignore` lists); `x/y.mdx` is served at `x/y`, `index.mdx` at its
folder. A page's title is its front matter `title`; `sidebarTitle` is the sidebar's label
(site.py's `nav_label`). Read: `name` (the docs set's title); the
pages `navigation` lists are the site's, in its order (`languages`, `versions`, `tabs`,
`anchors`, `groups`, `pages`, at any depth).
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

from .site import (
    Site,
    config_nodes,
    manifest_name,
    quoted,
    read_json,
    read_text,
    stem_and_folder,
    text_of,
)

CONFIG_NAMES = ("docs.json", "mint.json")
# What Mintlify never publishes without being told (its "Exclude files from publishing" page:
# the default ignored patterns), and `snippets/`, which holds imported fragments.
_IGNORED = (
    *(".git", ".github", ".claude", ".agents", ".idea", ".vscode", "node_modules", "build"),
    *("dist", "coverage", ".cache", "tmp", "temp", "snippets"),
    *("README.md", "LICENSE.md", "CHANGELOG.md", "CONTRIBUTING.md"),
)


class MintlifySite(Site):
    def page_path(self, path: str, meta: Mapping[str, str]) -> str:
        folder, stem = stem_and_folder(path)
        if stem == "index":
            return quoted(folder)
        return quoted(f"{folder}/{stem}" if folder else stem)


def detect(folder: Path) -> MintlifySite | None:
    for name in CONFIG_NAMES:
        config = folder / name
        if config.is_file():
            data = read_json(config)
            if isinstance(data, dict) and ("navigation" in data or "$schema" in data):
                return _site(folder, config, data)
    return None


def _site(folder: Path, config: Path, data: dict[str, Any]) -> MintlifySite:
    ignore = read_text(folder / ".mintignore") or ""
    excluded = list(_IGNORED)
    excluded.extend(
        line.strip() for line in ignore.splitlines() if line.strip()[:1] not in ("", "#", "!")
    )
    site = MintlifySite(
        "mintlify",
        config,
        folder.resolve(),
        excluded=tuple(excluded),
        label_keys=("sidebartitle",),  # the sidebar's label; the page's title is its `title`
    )
    site.title = text_of(data.get("name"))
    site.name = manifest_name(site.title) if site.title else None
    site.nav_order = list(navigation_pages(data.get("navigation")))  # type: ignore[attr-defined]
    return site


def navigation_pages(navigation: Any) -> Iterator[str]:
    """The page paths `navigation` lists, in order (`"guides/x"`, a group's `root`)."""
    for item in config_nodes(navigation):
        if isinstance(item, str):
            yield item.strip("/")
        elif isinstance(item, dict) and isinstance(item.get("root"), str):
            yield item["root"].strip("/")
