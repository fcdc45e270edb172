"""Sitemaps (sitemaps.org): `<urlset>` and `<sitemapindex>`, plain or gzip, plus the plain-text
form (one URL per line). Parsing is pure and event-driven (expat); no DTD or entity is accepted,
so an entity bomb is refused before it expands.

Locations are kept as written; `resolve_loc` makes them absolute. Real sitemaps carry
`None./`-style locations (MkDocs built without `site_url`) and relative ones: both are
resolved against the sitemap's own folder, and the caller warns once.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from xml.parsers import expat

from pinax.errors import InvalidArgs

from .sniff import decode_text, looks_like_html
from .urls import is_url, resolve

_NS_SEPARATOR = "\x1f"
_MKDOCS_NONE = "None"


@dataclass
class Entry:
    loc: str
    lastmod: str | None = None
    alternates: dict[str, str] = field(default_factory=dict)  # hreflang -> href


@dataclass
class Sitemap:
    kind: str  # "urlset" or "sitemapindex"
    entries: list[Entry]  # pages (urlset) or child sitemaps (sitemapindex)
    truncated: bool = False  # stopped at the caller's limit


class _Refused(Exception):
    """Raised while reading a sitemap that must stop (a DTD, a root that is no sitemap, the
    entry limit) and caught by `parse`, which says why; never leaves this module."""


def parse(data: bytes, source: str, max_entries: int) -> Sitemap:
    """Parse one sitemap file (already inflated); stop after `max_entries` entries."""
    if looks_like_html(data):
        raise InvalidArgs(f"{source}: an HTML page was served where a sitemap (XML) was expected")
    head = data[:512].lstrip(b"\xef\xbb\xbf \t\r\n")
    if not head.startswith(b"<"):
        return _parse_text(data, source, max_entries)
    return _XmlSitemap(source, max_entries).parse(data)


def resolve_loc(loc: str, base: str | None) -> tuple[str | None, str | None]:
    """(absolute URL or None, the repair made or None): `None`-prefixed and relative
    locations are resolved against `base` (the sitemap's folder)."""
    text = loc.strip()
    if is_url(text):
        return resolve(text, text), None
    repair = "relative"
    if text.startswith(_MKDOCS_NONE):
        text, repair = text[len(_MKDOCS_NONE) :], "none"
    return (resolve(text, base) if base else None), repair


class _XmlSitemap:
    def __init__(self, source: str, max_entries: int) -> None:
        self.source = source
        self.max_entries = max_entries
        self.kind: str | None = None
        self.entries: list[Entry] = []
        self.current: Entry | None = None
        self.text: list[str] = []
        self.truncated = False

    def parse(self, data: bytes) -> Sitemap:
        parser = expat.ParserCreate(namespace_separator=_NS_SEPARATOR)
        parser.StartDoctypeDeclHandler = self._refuse_dtd
        parser.EntityDeclHandler = self._refuse_dtd
        parser.SetParamEntityParsing(expat.XML_PARAM_ENTITY_PARSING_NEVER)
        parser.StartElementHandler = self._start
        parser.EndElementHandler = self._end
        parser.CharacterDataHandler = self.text.append
        parser.buffer_text = True
        try:
            parser.Parse(data, True)
        except _Refused as exc:
            if not self.truncated:
                raise InvalidArgs(f"{self.source}: {exc}") from None
        except expat.ExpatError as exc:
            raise InvalidArgs(
                f"{self.source}: malformed XML at line {exc.lineno}, column {exc.offset + 1} "
                f"({expat.ErrorString(exc.code)})"
            ) from None
        if self.kind is None:
            raise InvalidArgs(f"{self.source}: no <urlset> or <sitemapindex> found")
        return Sitemap(self.kind, self.entries, self.truncated)

    def _refuse_dtd(self, *args: object) -> None:
        raise _Refused("a DOCTYPE or entity declaration; sitemaps have none, refused")

    def _start(self, name: str, attrs: dict[str, str]) -> None:
        local = name.rsplit(_NS_SEPARATOR, 1)[-1]
        if self.kind is None:
            if local not in ("urlset", "sitemapindex"):
                raise _Refused(f"not a sitemap: the root element is <{local}>")
            self.kind = local
            return
        if local in ("url", "sitemap"):
            self.current = Entry("")
        elif local == "link" and self.current is not None:
            lang, href = attrs.get("hreflang"), attrs.get("href")
            if lang and href is not None and attrs.get("rel", "alternate") == "alternate":
                self.current.alternates[lang.lower()] = href
        self.text.clear()

    def _end(self, name: str) -> None:
        local = name.rsplit(_NS_SEPARATOR, 1)[-1]
        current = self.current
        if current is None:
            return
        if local == "loc":
            current.loc = "".join(self.text).strip()
        elif local == "lastmod":
            current.lastmod = "".join(self.text).strip() or None
        elif local in ("url", "sitemap"):
            if current.loc:
                self.entries.append(current)
            self.current = None
            if len(self.entries) >= self.max_entries:
                self.truncated = True
                raise _Refused("limit reached")
        self.text.clear()


def _parse_text(data: bytes, source: str, max_entries: int) -> Sitemap:
    lines = [line.strip() for line in decode_text(data).splitlines() if line.strip()]
    if not lines or not all(is_url(line) for line in lines[:20]):
        raise InvalidArgs(f"{source}: neither XML nor a plain-text list of URLs")
    entries = [Entry(line) for line in lines if is_url(line)]
    return Sitemap("urlset", entries[:max_entries], len(entries) > max_entries)
