"""MkDocs: `mkdocs.yml` (or `mkdocs.yaml`) at the folder, or the folder above it.

Pages are the Markdown files under `docs_dir` (relative to the config file; default
`docs`), never a theme's templates and partials (`custom_dir`: HTML, not Markdown), a top
`templates/` folder, nor what `exclude_docs` lists.
With `use_directory_urls` (the default) `guide/x.md` is served at `guide/x/`, else at
`guide/x.html`; `index.md` and `README.md` at their folder. Titles: the `nav:` entries'.
Tags (`!ENV`, `!!python/name:...`) are read as plain values, never resolved or run.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

import yaml

from .site import (
    Site,
    directory_url,
    inside,
    manifest_name,
    quoted,
    read_text,
    site_base,
    stem_and_folder,
    text_of,
)

CONFIG_NAMES = ("mkdocs.yml", "mkdocs.yaml")
MAX_NESTING = 100
MAX_NAV_ITEMS = 100_000


class _TolerantLoader(yaml.SafeLoader):
    """SafeLoader that reads any tag as the plain value it tags (`!ENV [X, 'd']` -> the list,
    `!!python/name:mod.f` -> the text): the config is data, not instructions."""


def _untagged(loader: yaml.SafeLoader, suffix: str, node: yaml.Node) -> Any:
    if isinstance(node, yaml.ScalarNode):
        return loader.construct_scalar(node)
    if isinstance(node, yaml.SequenceNode):
        return loader.construct_sequence(node, deep=True)
    return loader.construct_mapping(node, deep=True)  # type: ignore[arg-type]


_TolerantLoader.add_multi_constructor("!", _untagged)
_TolerantLoader.add_multi_constructor("tag:", _untagged)


def load_yaml(text: str) -> Any:
    """YAML as plain data; None when it cannot be read (too deep, malformed)."""
    try:
        return yaml.load(text, Loader=_TolerantLoader)
    except (yaml.YAMLError, RecursionError, ValueError, TypeError):
        return None


class MkDocsSite(Site):
    directory_urls: bool = True

    def is_page(self, path: str) -> bool:
        folder, _, name = path.rpartition("/")
        if name.lower() == "readme.md" and (self.source / folder / "index.md").is_file():
            return False  # MkDocs serves index.md at the folder, not the README beside it
        return super().is_page(path)

    def page_path(self, path: str, meta: Mapping[str, str]) -> str:
        if self.directory_urls:
            return quoted(directory_url(path))
        folder, stem = stem_and_folder(path)
        name = "index.html" if stem.lower() in ("index", "readme") else f"{stem}.html"
        return quoted(f"{folder}/{name}" if folder else name)


def find_config(folder: Path) -> Path | None:
    for place in (folder, folder.parent):
        for name in CONFIG_NAMES:
            if (place / name).is_file():
                return place / name
    return None


def detect(folder: Path) -> MkDocsSite | None:
    config = find_config(folder)
    if config is None:
        return None
    data = _with_inherited(config, load_yaml(read_text(config) or ""))
    site = MkDocsSite("mkdocs", config, config.parent / "docs", slug_rule="mkdocs")
    site.directory_urls = True
    site.suffixes = frozenset({".md", ".markdown", ".mdown", ".mkdn", ".mkd"})
    if not isinstance(data, dict):
        site.warnings.append(f"{config}: not readable as YAML; assumed docs_dir 'docs'")
        data = {}
    docs_dir = data.get("docs_dir", "docs")
    if isinstance(docs_dir, str):
        site.source = (config.parent / docs_dir).resolve()
    else:
        site.warn_unread("docs_dir", "'docs'")
    if data.get("use_directory_urls") is False:
        site.directory_urls = False
    site.title = text_of(data.get("site_name"))
    site.name = manifest_name(site.title) if site.title else None
    site.site_url = site_base(text_of(data.get("site_url")))
    # MkDocs leaves out dot files (scan does) and a top `templates/` folder; a theme's
    # `custom_dir` inside docs_dir holds templates (never pages: only Markdown is), and its
    # Markdown is published as MkDocs publishes it (DRF's `theme/src/README.md` is on its
    # sitemap).
    excluded: list[str] = ["templates/**"]
    exclude_docs = data.get("exclude_docs")
    if isinstance(exclude_docs, str):
        excluded.extend(
            line.strip() for line in exclude_docs.splitlines() if line.strip()[:1] not in "#!"
        )
    site.excluded = tuple(excluded)
    site.nav_titles = dict(_nav_titles(data.get("nav")))
    return site


def _with_inherited(config: Path, data: Any, depth: int = 0) -> Any:
    """The config with what its `INHERIT:` file says beneath it (MkDocs merges the child's
    keys over the parent's), followed a few levels, inside the config's own folder tree."""
    if not isinstance(data, dict) or not isinstance(data.get("INHERIT"), str) or depth > 3:
        return data
    parent = (config.parent / data["INHERIT"]).resolve()
    if not parent.is_file() or not inside(parent, config.parent.parent):
        return data
    base = _with_inherited(parent, load_yaml(read_text(parent) or ""), depth + 1)
    return {**base, **data} if isinstance(base, dict) else data


def _nav_titles(nav: Any) -> Iterator[tuple[str, str]]:
    """(page path, title) of each `- Title: path.md` entry of `nav:`, at any depth."""
    stack: list[tuple[Any, int]] = [(nav, 0)]
    budget = MAX_NAV_ITEMS  # YAML aliases can make a small file a huge tree: walked so far
    while stack and budget:
        budget -= 1
        item, depth = stack.pop()
        if depth > MAX_NESTING:
            continue
        if isinstance(item, list):
            stack.extend((entry, depth + 1) for entry in reversed(item))
        elif isinstance(item, dict):
            for title, target in item.items():
                if isinstance(target, str) and isinstance(title, str):
                    if "://" not in target:
                        yield target.lstrip("/"), title
                else:
                    stack.append((target, depth + 1))
