"""hreflang alternates: keep a site in one language.

Each sitemap entry (locations and alternates already absolute) may list its translations
(`<xhtml:link rel="alternate" hreflang="ja">`). The kept language is `--lang`, else
`x-default`'s language, else the one whose URLs carry no language segment (`/agents/` rather
than `/ja/agents/`). An entry's translations into other languages are dropped; a page with no
version in the kept language stays.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence
from urllib.parse import urlsplit

from .sitemap import Entry


def choose(entries: Sequence[Entry], wanted: str | None) -> str | None:
    """The language to keep, or None when the sitemap has no alternates."""
    seen: Counter[str] = Counter()
    unprefixed: Counter[str] = Counter()
    default_hrefs: set[str] = set()
    for entry in entries:
        default = entry.alternates.get("x-default")
        if default is not None:
            default_hrefs.add(default)
        for lang, href in entry.alternates.items():
            if lang == "x-default":
                continue
            seen[lang] += 1
            if not _has_language_segment(href, lang):
                unprefixed[lang] += 1
    if not seen:
        return None
    if wanted:
        return _match(wanted.lower(), seen) or wanted.lower()
    for entry in entries:
        for lang, href in entry.alternates.items():
            if lang != "x-default" and href in default_hrefs:
                return lang
    ranked = sorted(seen, key=lambda lang: (-unprefixed[lang], -seen[lang], lang))
    return ranked[0]


def other_language_urls(entries: Iterable[Entry], keep: str) -> set[str]:
    """URLs that are translations into a language other than `keep`."""
    dropped: set[str] = set()
    for entry in entries:
        alternates = {lang: href for lang, href in entry.alternates.items() if lang != "x-default"}
        kept = _match(keep, alternates)
        if kept is None:
            continue
        for lang, href in alternates.items():
            if lang != kept:
                dropped.add(href)
    return dropped


def languages(entries: Iterable[Entry]) -> list[str]:
    return sorted({lang for e in entries for lang in e.alternates if lang != "x-default"})


def _match(wanted: str, available: Iterable[str]) -> str | None:
    """`wanted` itself, else the first language sharing its primary subtag (`en` ~ `en-us`)."""
    options = list(available)
    if wanted in options:
        return wanted
    primary = wanted.split("-")[0]
    return next((lang for lang in sorted(options) if lang.split("-")[0] == primary), None)


def _has_language_segment(href: str, lang: str) -> bool:
    segments = [s.lower() for s in urlsplit(href).path.split("/") if s]
    return lang in segments or lang.split("-")[0] in segments
