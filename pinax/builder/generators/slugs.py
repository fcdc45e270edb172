"""Heading ids as each generator makes them, so a heading hit's anchor opens that heading
on the published page. An explicit `{#id}` always wins (markdown_outline reads it first).

  github      GitHub, Docusaurus, Starlight, Hugo (goldmark's default), Mintlify
  mkdocs      Python-Markdown's toc `slugify` (duplicates `_1`, `_2`)
  vitepress   @mdit-vue's `slugify` (duplicates `-1`, `-2`)
  mdbook      mdBook's `normalize_id`
  sphinx      docutils' `make_id` (a section's id without an explicit label)
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable

Slugger = Callable[[str], str]  # heading text -> a unique id on its page

_GITHUB_DROP = re.compile(r"[^\w\- ]", re.U)
_MKDOCS_DROP = re.compile(r"[^\w\s-]")
_MKDOCS_JOIN = re.compile(r"[-\s]+")
_VITEPRESS_SPECIAL = re.compile(r"[\s~`!@#$%^&*()\-_+=\[\]{}|\\;:\"'“”‘’<>,.?/]+")
_COMBINING = re.compile(r"[\u0300-\u036f]")
_CONTROL = re.compile(r"[\u0000-\u001f]")


def github(text: str) -> str:
    return _GITHUB_DROP.sub("", text.strip().lower()).replace(" ", "-")


def mkdocs(text: str) -> str:
    plain = unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode("ascii")
    return _MKDOCS_JOIN.sub("-", _MKDOCS_DROP.sub("", plain).strip().lower())


def vitepress(text: str) -> str:
    plain = _COMBINING.sub("", unicodedata.normalize("NFKD", text))
    slug = _VITEPRESS_SPECIAL.sub("-", _CONTROL.sub("", plain))
    slug = re.sub(r"-{2,}", "-", slug).strip("-")
    return ("_" + slug if slug[:1].isdigit() else slug).lower()


_NON_ID = re.compile(r"[^a-z0-9]+")
_NON_ID_ENDS = re.compile(r"^[-0-9]+|-+$")


def sphinx(text: str) -> str:
    """docutils' `make_id`, which Sphinx gives a section without an explicit label."""
    plain = unicodedata.normalize("NFKD", " ".join(text.lower().split()))
    plain = plain.encode("ascii", "ignore").decode("ascii")
    return _NON_ID_ENDS.sub("", _NON_ID.sub("-", plain))


def mdbook(text: str) -> str:
    kept = (c for c in text.strip() if c.isalnum() or c in " -_")
    return "".join(kept).replace(" ", "-").lower()


RULES: dict[str, tuple[Callable[[str], str], str]] = {
    "github": (github, "-"),
    "mkdocs": (mkdocs, "_"),
    "vitepress": (vitepress, "-"),
    "mdbook": (mdbook, "-"),
    "sphinx": (sphinx, "id"),
}


def slugger(rule: str) -> Slugger:
    """A new page's slugger: the same text twice gets `-1` (`_1` for MkDocs) the second time."""
    make, joiner = RULES.get(rule, RULES["github"])
    seen: dict[str, int] = {}

    repeats = 0  # Sphinx numbers every repeated id on a page in one series: id1, id2...

    def unique(text: str) -> str:
        nonlocal repeats
        base = make(text) or "section"
        count = seen.get(base, 0)
        seen[base] = count + 1
        if count == 0:
            slug = base
        elif joiner == "id":
            repeats += 1
            slug = f"id{repeats}"
        else:
            slug = f"{base}{joiner}{count}"
        seen.setdefault(slug, 1)
        return slug

    return unique
