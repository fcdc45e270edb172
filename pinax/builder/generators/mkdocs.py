"""MkDocs: `mkdocs.yml` (or `mkdocs.yaml`) at the folder, or the folder above it.

Pages are the Markdown files under `docs_dir` (relative to the config file; default
`docs`), never a theme's templates and partials (`custom_dir`: HTML, not Markdown), a top
`templates/` folder, nor what `exclude_docs` lists.
With `use_directory_urls` (the default) `guide/x.md` is served at `guide/x/`, else at
`guide/x.html`; `index.md` and `README.md` at their folder. Titles: the `nav:` entries'.
With Material's `blog` plugin, a post (`blog/posts/x.md`) is served at
`blog/YYYY/MM/DD/<slug>/` from its `date` and title. Tags (`!ENV`, `!!python/name:...`) are
read as plain values, never resolved or run.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

import yaml

from . import slugs
from .site import (
    Site,
    config_nodes,
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
    blog_posts: str | None = None  # Material's blog plugin: its posts' folder (`blog/posts/`)
    i18n: tuple[str, str, frozenset[str]] | None = None  # (structure, default, other locales)

    def is_page(self, path: str) -> bool:
        folder, _, name = path.rpartition("/")
        if name.lower() == "readme.md" and (self.source / folder / "index.md").is_file():
            return False  # MkDocs serves index.md at the folder, not the README beside it
        return super().is_page(path)

    def page_path(self, path: str, meta: Mapping[str, str]) -> str:
        path = self._localized(path)
        if self.blog_posts and path.startswith(self.blog_posts):
            post = _post_url(self.blog_posts, meta)
            if post is not None:
                return quoted(post)
        if self.directory_urls:
            return quoted(directory_url(path))
        folder, stem = stem_and_folder(path)
        name = "index.html" if stem.lower() in ("index", "readme") else f"{stem}.html"
        return quoted(f"{folder}/{name}" if folder else name)

    def _localized(self, path: str) -> str:
        """The i18n plugin's layout as the site serves it: `en/x.md` (folder structure) or
        `x.en.md` (suffix structure) of the default language at `x/`, another language's
        under `fr/`."""
        if self.i18n is None:
            return path
        structure, default, others = self.i18n
        if structure == "folder":
            first, _, rest = path.partition("/")
            return rest if first == default and rest else path
        folder, _, name = path.rpartition("/")
        stem, dot, suffix = name.rpartition(".")
        base, _, locale = stem.rpartition(".")
        if not dot or not base or locale not in (others | {default}):
            return path
        inner = f"{folder}/{base}.{suffix}" if folder else f"{base}.{suffix}"
        return inner if locale == default else f"{locale}/{inner}"


def _i18n(options: Any) -> tuple[str, str, frozenset[str]] | None:
    """mkdocs-static-i18n's structure, default locale and the other locales."""
    if not isinstance(options, dict) or not isinstance(options.get("languages"), list):
        return None
    locales = [lang for lang in options["languages"] if isinstance(lang, dict)]
    default = next((lang.get("locale") for lang in locales if lang.get("default")), None)
    if not isinstance(default, str):
        return None
    structure = options.get("docs_structure", "suffix")
    others = frozenset(
        lang["locale"] for lang in locales if isinstance(lang.get("locale"), str)
    ) - {default}
    return ("folder" if structure == "folder" else "suffix", default, others)


def find_config(folder: Path) -> Path | None:
    """`mkdocs.yml` here or one folder up; else a project's `mkdocs-*.yml` (built with
    `mkdocs build -f`), the one naming a `site_url` first (Textual: `mkdocs-online.yml`)."""
    for place in (folder, folder.parent):
        for name in CONFIG_NAMES:
            if (place / name).is_file():
                return place / name
    for place in (folder, folder.parent):
        variants = sorted(place.glob("mkdocs*.y*ml"))[:20]
        if variants:
            online = [v for v in variants if "site_url:" in (read_text(v) or "")]
            return (online or variants)[0]
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
    plugins = _plugins(data.get("plugins"))
    site.blog_posts = _blog_posts(plugins.get("blog"))
    site.i18n = _i18n(plugins.get("i18n"))
    excluded_by_plugin = plugins.get("exclude")  # the mkdocs-exclude plugin's globs
    if isinstance(excluded_by_plugin, dict) and isinstance(excluded_by_plugin.get("glob"), list):
        globs = [g for g in excluded_by_plugin["glob"] if isinstance(g, str)]
        site.excluded = (*site.excluded, *globs)
    return site


def _plugins(plugins: Any) -> dict[str, Any]:
    """`plugins:` as {name: options}, whether written as a list or a mapping."""
    if isinstance(plugins, dict):
        return {str(k): v or {} for k, v in plugins.items()}
    found: dict[str, Any] = {}
    for entry in plugins if isinstance(plugins, list) else ():
        if isinstance(entry, str):
            found[entry] = {}
        elif isinstance(entry, dict):
            found.update({str(k): v or {} for k, v in entry.items()})
    return found


def _blog_posts(options: Any) -> str | None:
    """The posts folder of Material's `blog` plugin, when it is on (`blog_dir`/posts/)."""
    if isinstance(options, dict):
        if options.get("enabled") is False:
            return None
        blog_dir = options.get("blog_dir", "blog")
        blog_dir = blog_dir.strip("/") if isinstance(blog_dir, str) else "blog"
        return f"{blog_dir}/posts/" if blog_dir not in ("", ".") else "posts/"
    return None


_DATE = re.compile(r"(\d{4})-(\d{2})-(\d{2})")


def _post_url(posts: str, meta: Mapping[str, str]) -> str | None:
    """A blog post's URL, as the plugin's default `post_url_format` (`{date}/{slug}`)
    makes it: `blog/2022/12/08/be-the-keymaster/` (slug: front matter `slug`, else the
    title, by the toc slug rule). None without a date."""
    date = _DATE.match(str(meta.get("date", "")).strip())
    if date is None:
        return None
    slug = str(meta.get("slug", "")).strip() or slugs.mkdocs(str(meta.get("title", "")))
    if not slug:
        return None
    blog = posts.removesuffix("posts/")
    return f"{blog}{date.group(1)}/{date.group(2)}/{date.group(3)}/{slug}/"


def _with_inherited(config: Path, data: Any, depth: int = 0) -> Any:
    """The config with what its `INHERIT:` file says beneath it (MkDocs merges the child's
    keys over the parent's), followed a few levels, inside the config's own folder tree."""
    if not isinstance(data, dict) or not isinstance(data.get("INHERIT"), str) or depth > 3:
        return data
    parent = (config.parent / data["INHERIT"]).resolve()
    if not parent.is_file() or not inside(parent, config.parent.parent):
        return data
    base = _with_inherited(parent, load_yaml(read_text(parent) or ""), depth + 1)
    return _merged(base, data) if isinstance(base, dict) else data


def _merged(base: dict[Any, Any], child: dict[Any, Any], depth: int = 0) -> dict[Any, Any]:
    """MkDocs' merge of a child config over its parent: mappings merged key by key, any
    other value (a list too) replaced."""
    merged = dict(base)
    for key, value in child.items():
        below = merged.get(key)
        if isinstance(value, dict) and isinstance(below, dict) and depth < MAX_NESTING:
            merged[key] = _merged(below, value, depth + 1)
        else:
            merged[key] = value
    return merged


def _nav_titles(nav: Any) -> Iterator[tuple[str, str]]:
    """(page path, title) of each `- Title: path.md` entry of `nav:`, at any depth."""
    for item in config_nodes(nav, MAX_NAV_ITEMS, MAX_NESTING):
        if isinstance(item, dict):
            for title, target in item.items():
                if isinstance(target, str) and isinstance(title, str) and "://" not in target:
                    yield target.lstrip("/"), title
