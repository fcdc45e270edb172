"""Hugo: `hugo.toml`/`config.toml` (or `.yaml`/`.json`) at the folder, or up to four folders
above it (`content/en/docs/` lies three below its config).

Read: `baseURL` (the site), `title`, `contentDir` (default `content`), and a language's
own `contentDir`. Pages are the Markdown files under the content folder; `_index.md` and a
leaf bundle's `index.md` are served at their folder, and the other Markdown files inside a
leaf bundle are its resources, not pages. Paths are lower-cased (Hugo's default);
front matter `slug` renames, `url` replaces the path (layouts.py's hugo layout);
`permalinks` patterns and `uglyURLs` as hugo_urls.py reads them.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from .. import layouts
from .frontmatter import front_matter, load_toml
from .hugo_urls import HugoUrls, read_urls
from .mkdocs import load_yaml
from .site import Site, manifest_name, quoted, read_head, read_text, site_base, text_of

CONFIG_NAMES = (
    "hugo.toml",
    "hugo.yaml",
    "hugo.yml",
    "hugo.json",
    "config.toml",
    "config.yaml",
    "config.yml",
)


class HugoSite(Site):
    bundles: frozenset[str] = frozenset()
    urls: HugoUrls = HugoUrls()

    def is_page(self, path: str) -> bool:
        folder, _, name = path.rpartition("/")
        if name.lower() != "index.md" and _in_bundle(folder, self.bundles):
            return False  # a leaf bundle's resource
        return super().is_page(path)

    def page_path(self, path: str, meta: Mapping[str, str]) -> str:
        if not meta.get("url", "").strip():  # front matter `url` wins over any pattern
            found = self.urls.permalink(path, meta)
            if found is not None:
                return quoted(found)
        url = layouts.page_path(path, "hugo", meta, lower=self.urls.lower)
        return self.urls.uglified(path, url)


def _in_bundle(folder: str, bundles: frozenset[str]) -> bool:
    parts = folder.split("/") if folder else []
    return any("/".join(parts[:i]) in bundles for i in range(len(parts), 0, -1))


def _load(config: Path) -> Any:
    text = read_text(config) or ""
    if config.suffix == ".toml":
        return load_toml(text)
    if config.suffix == ".json":
        try:
            return json.loads(text)
        except (ValueError, RecursionError):
            return None
    return load_yaml(text)


def detect(folder: Path) -> HugoSite | None:
    for place in (folder, *list(folder.parents)[:4]):  # content/en/docs: three below
        for name in (*CONFIG_NAMES, *(f"config/_default/{n}" for n in CONFIG_NAMES)):
            config = place / name
            if not config.is_file():
                continue
            if name.startswith("config.") and not (place / "content").is_dir():
                continue  # a `config.toml` of something else
            return _site(place, config)
    return None


def _site(place: Path, config: Path) -> HugoSite:
    data = _load(config)
    site = HugoSite("hugo", config, place / "content")
    if not isinstance(data, dict):
        site.warnings.append(f"{config}: not readable; assumed contentDir 'content'")
        data = {}
    languages_file = config.parent / "languages.toml"  # config/_default/languages.toml
    if "languages" not in data and config.parent.name == "_default" and languages_file.is_file():
        data = {**data, "languages": _load(languages_file)}
    content = data.get("contentDir", "content")
    source = place / content if isinstance(content, str) else place / "content"
    default_language = data.get("defaultContentLanguage", "en")
    languages = data.get("languages")
    if isinstance(languages, dict):
        own = languages.get(default_language)
        if isinstance(own, dict) and isinstance(own.get("contentDir"), str):
            source = place / own["contentDir"]
    if not source.is_dir() and (place / "content").is_dir():
        source = place / "content"
    if (source / str(default_language)).is_dir() and not (source / "_index.md").is_file():
        source = source / str(default_language)  # content/en/ by language
    site.source = source.resolve()
    site.title = text_of(data.get("title"))
    site.name = manifest_name(site.title) if site.title else None
    site.site_url = site_base(text_of(data.get("baseURL") or data.get("baseurl")))
    site.urls = read_urls(data)
    site.warnings.extend(f"{config}: {warning}" for warning in site.urls.warnings)
    site.bundles = frozenset(_leaf_bundles(site.source))
    site.excluded = tuple(f"{folder}/**" for folder in _headless(site.source))
    return site


def _headless(source: Path, limit: int = 20_000) -> list[str]:
    """Sections that render no pages: a `_index.md` or `index.md` saying `headless: true`
    or `build: {render: never}` for itself or (`cascade`) for what lies below."""
    found = []
    for seen, index in enumerate(source.rglob("*index.md")):
        if seen >= limit:
            break
        if index.name not in ("_index.md", "index.md") or index.parent == source:
            continue
        meta = front_matter(read_head(index))
        cascade = meta.get("cascade")
        rules = [meta, *(cascade if isinstance(cascade, list) else [cascade])]
        for rule in rules:
            build = rule.get("build") if isinstance(rule, dict) else None
            never = isinstance(build, dict) and build.get("render") in ("never", False, "false")
            if never or (rule is meta and meta.get("headless") is True):
                found.append(index.parent.relative_to(source).as_posix())
                break
    return found


def _leaf_bundles(source: Path, limit: int = 200_000) -> set[str]:
    """Folders (inside `source`) holding an `index.md`: leaf bundles."""
    found: set[str] = set()
    for seen, index in enumerate(source.rglob("index.md")):
        if seen >= limit:
            break
        if index.is_file():
            found.add(index.parent.relative_to(source).as_posix())
    found.discard(".")
    return found
