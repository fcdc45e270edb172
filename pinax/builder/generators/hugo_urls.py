"""Hugo's URL settings: `permalinks` patterns per top-level section (the map form, with
`page`/`section` kinds or the older flat one), `uglyURLs` (for the site or per section),
`disablePathToLower` and front matter `url`, as Hugo's "Configure permalinks" and "URL
management" pages describe.

A pattern is expanded from its tokens (`:year`, `:month`, `:monthname`, `:day`, `:section`,
`:sections` with its slices (`:sections[1:]`, `[:last]`, `[last]`), `:title`, `:slug`,
`:filename`, `:slugorfilename`, `:contentbasename`, `:slugorcontentbasename`); a pattern
with any other token (Go time layouts) is one warning and Hugo's default URL; so is the
array form (`[[permalinks]]` with page matchers). Front matter `aliases` are redirects to a
page, not pages. Nothing is run.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

_TOKEN = re.compile(r":(\w+)(\[[^\]]*\])?")
_SLICE = re.compile(r"\[(\d+|last)?(:(\d+|last)?)?\]\Z")  # `:sections[1:]`, `[last]`
_DATE = re.compile(r"(\d{4})-(\d{2})-(\d{2})")
_MONTHS = (
    "January February March April May June July August September October November December"
).split()
_UNSAFE = re.compile(r"[^\w\-.~/]+")


@dataclass
class HugoUrls:
    """A site's URL settings, read from its config."""

    page: dict[str, str] = field(default_factory=dict)  # top-level section -> pattern
    section: dict[str, str] = field(default_factory=dict)
    ugly: bool = False
    ugly_sections: dict[str, bool] = field(default_factory=dict)
    lower: bool = True  # Hugo lower-cases paths unless `disablePathToLower`
    warnings: list[str] = field(default_factory=list)

    def permalink(self, path: str, meta: Mapping[str, str]) -> str | None:
        """The page's URL path by its section's pattern; None when none applies."""
        folder, _, name = path.rpartition("/")
        stem = name.rpartition(".")[0] or name
        parts = [part for part in folder.split("/") if part]
        listing = stem.lower() == "_index"
        if not parts:
            return None
        pattern = (self.section if listing else self.page).get(parts[0])
        if pattern is None:
            return None
        return _expanded(pattern, parts, stem, meta, self.lower)

    def uglified(self, path: str, url: str) -> str:
        """`a/b/` -> `a/b.html` where `uglyURLs` applies to the page's section (never a
        section's own list page, nor the home page)."""
        folder, _, name = path.rpartition("/")
        section = folder.split("/", 1)[0] if folder else ""
        ugly = self.ugly_sections.get(section, self.ugly)
        if not ugly or name.lower().startswith("_index") or not url.endswith("/") or not url:
            return url
        return url.rstrip("/") + ".html"


def read_urls(data: Mapping[str, Any]) -> HugoUrls:
    urls = HugoUrls()
    permalinks = data.get("permalinks")
    if isinstance(permalinks, dict):
        for key, value in permalinks.items():
            if key in ("page", "section") and isinstance(value, dict):
                kind = urls.page if key == "page" else urls.section
                kind.update({k: v for k, v in value.items() if _known(v, k, urls)})
            elif isinstance(value, str) and _known(value, key, urls):
                urls.page[key] = value
    elif isinstance(permalinks, list):
        urls.warnings.append("permalinks: the array form is not read; assumed Hugo's default URLs")
    urls.lower = data.get("disablePathToLower", data.get("disablepathtolower")) is not True
    ugly = data.get("uglyURLs", data.get("uglyurls"))
    if isinstance(ugly, bool):
        urls.ugly = ugly
    elif isinstance(ugly, dict):
        urls.ugly_sections = {k: v for k, v in ugly.items() if isinstance(v, bool)}
    return urls


def _known(pattern: Any, section: str, urls: HugoUrls) -> bool:
    if not isinstance(pattern, str):
        return False
    for match in _TOKEN.finditer(pattern):
        cut = match.group(2)
        if match.group(1) not in _TOKENS or (
            cut and not (match.group(1) == "sections" and _SLICE.match(cut))
        ):
            urls.warnings.append(
                f"permalinks.{section}: {pattern!r} uses {match.group(0)!r}, not read; "
                "assumed Hugo's default URLs for that section"
            )
            return False
    return True


def urlized(text: str) -> str:
    """Hugo's `urlize` of a title: lower case, spaces to `-`, URL-unsafe characters dropped."""
    return _UNSAFE.sub("", "-".join(text.lower().split()))


def _sliced(sections: list[str], cut: str) -> list[str]:
    """`:sections[1:]` as Hugo cuts it: Go slice bounds, `last` the last index, an index
    past the end nothing."""
    match = _SLICE.match(cut)
    if match is None or not sections:
        return sections

    def bound(text: str | None, low: bool) -> int:
        if not text:
            return 0 if low else len(sections)
        n = len(sections) - 1 if text == "last" else int(text)
        return (-1 if low else len(sections)) if n >= len(sections) else n

    start = bound(match.group(1), True)
    if match.group(2) is None:  # one index
        return [] if start < 0 else [sections[start]]
    end = bound(match.group(3), False)
    return [] if start < 0 else sections[start:end]


def _expanded(
    pattern: str, parts: list[str], stem: str, meta: Mapping[str, str], lower: bool = True
) -> str:
    date = _DATE.match(meta.get("date", "").strip())
    valid = date is not None and "01" <= date.group(2) <= "12"
    bundle = stem.lower() == "index" and bool(parts)  # a leaf bundle: its folder is no section
    sections = parts[:-1] if bundle else parts
    base = parts[-1] if stem.lower() in ("index", "_index") and parts else stem
    title = meta.get("title", "").strip() or base
    slug = meta.get("slug", "").strip()
    values = {
        "year": date.group(1) if date else "0001",
        "month": date.group(2) if date else "01",
        "monthname": _MONTHS[int(date.group(2)) - 1] if date and valid else "January",
        "day": date.group(3) if date else "01",
        "section": parts[0] if parts else "",
        "title": urlized(title),
        "slug": slug or urlized(title),
        "filename": base,
        "contentbasename": base,
        "slugorfilename": slug or base,
        "slugorcontentbasename": slug or base,
    }

    def value(match: re.Match[str]) -> str:
        if match.group(1) == "sections":
            return "/".join(_sliced(sections, match.group(2) or ""))
        return values[match.group(1)]

    path = re.sub(r"/{2,}", "/", _TOKEN.sub(value, pattern)).lstrip("/")
    path = path.lower() if lower else path
    return path if not path or path.endswith(("/", ".html")) else path + "/"


_TOKENS = frozenset(
    (
        "year month monthname day section sections title slug filename contentbasename "
        "slugorfilename slugorcontentbasename"
    ).split()
)
