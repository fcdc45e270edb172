"""VitePress: `.vitepress/config.{js,ts,mjs,mts}` at the folder (or its `docs/`).

Pages are the Markdown files under `srcDir` (default: the folder holding `.vitepress`),
never `.vitepress/`, `public/`, `node_modules/`, `srcExclude`, dynamic routes
(`[id].md`, generated from a paths loader) or other files. `guide/x.md` is served at
`guide/x.html`, or `guide/x` with `cleanUrls`; `guide/index.md` at `guide/`; a `rewrites`
entry moves a page (`'en/:rest*': ':rest*'` parameters too). The sidebar's `text` for its
`link` is a sidebar label (site.py's `nav_label`): VitePress titles a page by its front
matter `title` or H1, shown in its <title>.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

from .jsliteral import UNKNOWN, read_config
from .site import (
    Site,
    config_nodes,
    first_file,
    manifest_name,
    quoted,
    site_base,
    stem_and_folder,
    text_of,
)

CONFIG_NAMES = ("config.ts", "config.mts", "config.js", "config.mjs", "config.cts", "config.cjs")
INDEX_NAMES = tuple(name.replace("config", "index") for name in CONFIG_NAMES)  # config/index.ts


class VitePressSite(Site):
    clean_urls: bool = False
    rewrites: dict[str, str]
    patterns: list[tuple[re.Pattern[str], str]]  # `'en/:rest*': ':rest*'` rewrites

    def is_page(self, path: str) -> bool:
        name = path.rsplit("/", 1)[-1]
        if name.startswith("[") or path.startswith((".vitepress/", "public/")):
            return False
        return super().is_page(path)

    def page_path(self, path: str, meta: Mapping[str, str]) -> str:
        path = self.rewrites.get(path) or _rewritten(path, self.patterns) or path
        folder, stem = stem_and_folder(path)
        if stem == "index":
            return quoted(f"{folder}/" if folder else "")
        name = stem if self.clean_urls else stem + ".html"
        return quoted(f"{folder}/{name}" if folder else name)


def detect(folder: Path) -> VitePressSite | None:
    for root in (folder, folder / "docs"):
        config = first_file(root / ".vitepress", CONFIG_NAMES) or first_file(
            root / ".vitepress" / "config", INDEX_NAMES
        )
        if config is not None:
            return _site(root, config)
    return None


def _site(root: Path, config: Path) -> VitePressSite:
    module = read_config(config)
    data = module.export if isinstance(module.export, dict) else {}
    site = VitePressSite(
        "vitepress", config, root, slug_rule="vitepress", suffixes=frozenset({".md"})
    )
    site.clean_urls = False
    site.rewrites = {}
    if module.export is UNKNOWN:
        site.warnings.append(
            f"{config}: the exported config is not a literal; assumed srcDir '.', "
            "no cleanUrls, no rewrites"
        )
    src = data.get("srcDir", ".")
    if src is UNKNOWN:
        site.warn_unread("srcDir", "'.'")
    elif isinstance(src, str) and (root / src).is_dir():
        site.source = (root / src).resolve()
    site.clean_urls = data.get("cleanUrls") is True
    if data.get("cleanUrls") is UNKNOWN:
        site.warn_unread("cleanUrls", "false")
    site.patterns = []
    rewrites = data.get("rewrites")
    if isinstance(rewrites, dict):
        literal = {k: v for k, v in rewrites.items() if isinstance(v, str)}
        site.rewrites = {k: v for k, v in literal.items() if ":" not in k}
        site.patterns = [p for k, v in literal.items() if ":" in k for p in _pattern(k, v)][:50]
    elif rewrites is UNKNOWN:
        site.warn_unread("rewrites", "none")
    excludes = data.get("srcExclude")
    site.excluded = ("node_modules", *(e for e in excludes or () if isinstance(e, str)))
    site.title = text_of(data.get("title"))
    site.name = manifest_name(site.title) if site.title else None
    dynamic = _dynamic_routes(site.source)
    if dynamic:
        shown = ", ".join(dynamic[:5]) + (
            f" and {len(dynamic) - 5} more" if len(dynamic) > 5 else ""
        )
        site.warnings.append(
            f"{config}: skipped {len(dynamic)} dynamic route(s), whose pages a paths loader "
            f"makes by running code (never run here): {shown}"
        )
    sitemap = data.get("sitemap")
    hostname = sitemap.get("hostname") if isinstance(sitemap, dict) else None
    base = data.get("base") if isinstance(data.get("base"), str) else None
    site.site_url = site_base(text_of(hostname), base)
    themes = [data.get("themeConfig")]  # the site's, then each locale's own
    locales = data.get("locales")
    if isinstance(locales, dict):
        themes += [v.get("themeConfig") for v in locales.values() if isinstance(v, dict)]
    for theme in themes:
        sidebar = theme.get("sidebar") if isinstance(theme, dict) else None
        for path, title in _sidebar_titles(sidebar, site.source):
            site.nav_labels.setdefault(path, title)
    return site


def _dynamic_routes(source: Path, limit: int = 100_000) -> list[str]:
    """The `[param].md` files under `source` (outside `.vitepress/`, `public/` and
    `node_modules/`), whose pages VitePress generates from their `[param].paths.*` loader."""
    found: list[str] = []
    seen = 0
    for folder, names, files in os.walk(source):
        names[:] = sorted(n for n in names if n not in (".vitepress", "public", "node_modules"))
        seen += len(files)
        if seen > limit:
            break
        for name in sorted(files):
            if name.startswith("[") and name.endswith(".md"):
                found.append((Path(folder) / name).relative_to(source).as_posix())
    return found


_PARAM = re.compile(r":([A-Za-z_]\w*)(\*?)")


def _pattern(source: str, target: str) -> list[tuple[re.Pattern[str], str]]:
    """A parameterized rewrite (`':lang/:rest*'`) as a regex and its replacement; [] for a
    form this reader does not know (groups, optional parts)."""
    if any(c in source for c in "()[]?+"):
        return []
    parts: list[str] = []
    at = 0
    for match in _PARAM.finditer(source):
        parts.append(re.escape(source[at : match.start()]))
        star = match.group(2) == "*"
        parts.append(f"(?P<{match.group(1)}>{'.*' if star else '[^/]+'})")
        at = match.end()
    parts.append(re.escape(source[at:]))
    try:
        regex = re.compile("".join(parts) + r"\Z")
    except re.error:  # a parameter named twice
        return []
    return [(regex, _PARAM.sub(lambda m: "\\g<" + m.group(1) + ">", target))]


def _rewritten(path: str, patterns: list[tuple[re.Pattern[str], str]]) -> str | None:
    for regex, replacement in patterns:
        match = regex.match(path)
        if match:
            try:
                return match.expand(replacement).lstrip("/") or None
            except (re.error, IndexError):  # the target names a parameter the source lacks
                return None
    return None


def _sidebar_titles(sidebar: Any, source: Path) -> Iterator[tuple[str, str]]:
    """(page path, text) of each sidebar item with a link inside the site."""
    for item in config_nodes(sidebar):
        if isinstance(item, dict):
            text, link = text_of(item.get("text")), text_of(item.get("link"))
            internal = link and not link.startswith(("http:", "https:", "//"))
            if text and internal and "#" not in link:  # `/x#part` names a section, not x
                path = _link_path(link, item.get("base"), source)
                if path:
                    yield path, text


def _link_path(link: str, base: Any, source: Path) -> str | None:
    link = link.split("#", 1)[0].split("?", 1)[0]
    if isinstance(base, str) and not link.startswith("/"):
        link = base.rstrip("/") + "/" + link
    path = link.strip("/")
    for suffix in (".html", ".md"):
        path = path.removesuffix(suffix)
    if not path or link.endswith("/"):
        return f"{path}/index.md" if path else "index.md"
    if (source / f"{path}.md").is_file():
        return f"{path}.md"
    if (source / path / "index.md").is_file():
        return f"{path}/index.md"
    return f"{path}.md"
