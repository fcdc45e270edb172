"""Sphinx: `conf.py` in the folder (or its `docs/`, `doc/`, `source/`), read with `ast` for
its literal assignments only (never imported or run).

Read: `project` (the docs set's name and title), `version`/`release`, `html_baseurl` (the
site), `master_doc`/`root_doc`, `exclude_patterns`, `source_suffix`. Pages are the `.rst`
files (and `.md` with MyST, `.txt` when `source_suffix` says so), never `_build/`,
`_templates/`, `_static/` nor what `exclude_patterns` lists; `guide/x.rst` is served at
`guide/x.html` (`html_file_suffix` changes the `.html`), or at `guide/x/` by the `dirhtml`
builder: that builder is chosen on the command line, not in `conf.py`, so it is read from
`.readthedocs.yaml` (`sphinx: builder: dirhtml`) or said with `--layout sphinx-dirhtml`.
A value computed by code is a warning and its default.
"""

from __future__ import annotations

import ast
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from .site import (
    Site,
    directory_url,
    manifest_name,
    quoted,
    read_text,
    site_base,
    stem_and_folder,
    text_of,
)

_READ = frozenset(
    {
        "project",
        "version",
        "release",
        "html_baseurl",
        "master_doc",
        "root_doc",
        "exclude_patterns",
        "source_suffix",
        "extensions",
        "html_file_suffix",
    }
)
MAX_CONF_BYTES = 1024 * 1024


class SphinxSite(Site):
    root_doc: str = "index"
    version: str | None = None
    directory_urls: bool = False  # the `dirhtml` builder (Read the Docs' `builder: dirhtml`)
    file_suffix: str = ".html"  # `html_file_suffix`

    def page_path(self, path: str, meta: Mapping[str, str]) -> str:
        if self.directory_urls:
            return quoted(directory_url(path, frozenset({"index"})))
        folder, stem = stem_and_folder(path)
        name = stem + self.file_suffix
        return quoted(f"{folder}/{name}" if folder else name)


def find_config(folder: Path) -> Path | None:
    for place in (
        folder,
        folder / "docs",
        folder / "doc",
        folder / "source",
        folder / "docs" / "source",
    ):
        if (place / "conf.py").is_file():
            return place / "conf.py"
    return None


def detect(folder: Path) -> SphinxSite | None:
    config = find_config(folder)
    if config is None:
        return None
    site = SphinxSite(
        "sphinx", config, config.parent.resolve(), suffixes=frozenset({".rst"}), slug_rule="sphinx"
    )
    site.root_doc = "index"
    site.version = None
    values, unread = conf_literals(read_text(config) or "")
    if values is None:
        site.warnings.append(f"{config}: not readable as Python; assumed Sphinx's defaults")
        values = {}
    for name in sorted(unread):
        site.warn_unread(name, "Sphinx's default")
    project = text_of(values.get("project"))
    if project:
        site.title = project
        site.name = manifest_name(project)
    site.version = text_of(values.get("release")) or text_of(values.get("version"))
    site.site_url = site_base(text_of(values.get("html_baseurl")))
    root_doc = text_of(values.get("root_doc")) or text_of(values.get("master_doc"))
    site.root_doc = root_doc or "index"
    patterns = values.get("exclude_patterns")
    excluded = ["_build", "_templates", "_static", "Thumbs.db", ".DS_Store"]
    if isinstance(patterns, (list, tuple)):
        excluded.extend(p for p in patterns if isinstance(p, str))
    site.excluded = tuple(excluded)
    suffix = values.get("source_suffix")
    suffixes = {".rst"}
    if isinstance(suffix, str):
        suffixes = {suffix}
    elif isinstance(suffix, (list, tuple, dict)):
        suffixes = {s for s in suffix if isinstance(s, str)}
    extensions = values.get("extensions")
    if isinstance(extensions, (list, tuple)) and any(
        e in ("myst_parser", "myst_nb") for e in extensions
    ):
        suffixes.add(".md")
    site.suffixes = frozenset(s.lower() for s in suffixes)
    site.directory_urls = _read_the_docs_builder(config.parent) == "dirhtml"
    file_suffix = text_of(values.get("html_file_suffix"))
    if file_suffix and file_suffix.startswith(".") and "/" not in file_suffix:
        site.file_suffix = file_suffix
    return site


def _read_the_docs_builder(docs: Path) -> str | None:
    """The Sphinx builder `.readthedocs.yaml` names (`sphinx: builder: dirhtml`), looked for
    beside `conf.py` and up to two folders above."""
    from .mkdocs import load_yaml

    for place in (docs, *list(docs.parents)[:2]):
        for name in (".readthedocs.yaml", ".readthedocs.yml"):
            if (place / name).is_file():
                data = load_yaml(read_text(place / name) or "")
                sphinx = data.get("sphinx") if isinstance(data, dict) else None
                builder = sphinx.get("builder") if isinstance(sphinx, dict) else None
                return builder if isinstance(builder, str) else None
    return None


def conf_literals(source: str) -> tuple[dict[str, Any] | None, set[str]]:
    """The literal values of `conf.py`'s top-level assignments to the names Sphinx reads,
    and the names assigned something else (a call, an f-string...). None: not Python."""
    if len(source) > MAX_CONF_BYTES:
        return None, set()
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None, set()
    values: dict[str, Any] = {}
    unread: set[str] = set()
    for node in tree.body:
        targets: list[ast.expr] = []
        value: ast.expr | None = None
        if isinstance(node, ast.Assign):
            targets, value = node.targets, node.value
        elif isinstance(node, ast.AnnAssign) and node.value is not None:
            targets, value = [node.target], node.value
        for target in targets:
            if isinstance(target, ast.Name) and target.id in _READ and value is not None:
                try:
                    values[target.id] = ast.literal_eval(value)
                    unread.discard(target.id)
                except (ValueError, TypeError, SyntaxError, RecursionError, MemoryError):
                    values.pop(target.id, None)
                    unread.add(target.id)
    return values, unread
