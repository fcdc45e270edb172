"""What the build reads in an HTML page: its title and its links (selectolax)."""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterator
from html import unescape
from urllib.parse import urljoin

from selectolax.lexbor import LexborHTMLParser

_SEPARATOR = r"\s+[-|—–·»]\s+"
_TITLE_TAG = re.compile(rb"<title\b[^<>]*>([^<]*)</title\s*>", re.I)
_HEAD_BYTES = 256 * 1024
_SPACES = re.compile(r"\s+")
_PERMALINKS = "a.headerlink, a.anchor, a.hash-link, a.header-anchor"


def parse(body: bytes) -> LexborHTMLParser:
    return LexborHTMLParser(body)


def page_title(body: bytes, charset: str | None = None) -> str | None:
    """The title of an HTML page. Fast path: the first `<title>` read straight from the
    bytes (thousands of pages for `--titles fetch`); else a full parse."""
    match = _TITLE_TAG.search(body, 0, _HEAD_BYTES)
    if match:
        try:
            text = match.group(1).decode(charset or "utf-8")
        except (LookupError, UnicodeDecodeError):
            text = ""
        text = _SPACES.sub(" ", unescape(text)).strip()
        if text:
            return text
    return title(parse(body))


def title(tree: LexborHTMLParser) -> str | None:
    """`<title>`, else the first `<h1>` (without its permalink anchors)."""
    node = tree.css_first("title")
    text = _SPACES.sub(" ", node.text()).strip() if node is not None else ""
    if not text:
        heading = tree.css_first("h1")
        if heading is not None:
            for anchor in heading.css(_PERMALINKS):
                anchor.decompose()
            text = _SPACES.sub(" ", heading.text()).strip().rstrip("¶#").strip()
    return text or None


def links(tree: LexborHTMLParser, page_url: str) -> Iterator[str]:
    """Every `<a href>` made absolute (against `<base href>` when the page has one)."""
    base = page_url
    base_node = tree.css_first("base[href]")
    try:
        if base_node is not None:
            base = urljoin(page_url, base_node.attributes.get("href") or "")
    except ValueError:
        pass
    for node in tree.css("a[href]"):
        href = node.attributes.get("href")
        if not href:
            continue
        try:
            yield urljoin(base, href.strip())
        except ValueError:
            continue


def site_suffix(titles: list[str], known: str | None = None) -> str | None:
    """The ` - Site Name` (` | Site Name` ...) the titles end with: `known` (the site's name,
    when the build knows it) if any title ends so, else the ending most titles share: at
    least half of them and 3, or every one of two. A title that is just the site's name (its
    home page) counts for that ending."""
    endings: Counter[str] = Counter()
    bare: Counter[str] = Counter()
    for text in titles:
        parts = re.split(_SEPARATOR, text)
        if len(parts) > 1:
            endings[parts[-1]] += 1
        else:
            bare[text] += 1
    if not endings:
        return None
    if known and known in endings:
        return known
    for ending in endings:
        endings[ending] += bare[ending]
    ending, count = endings.most_common(1)[0]
    shared = count >= 3 and count * 2 >= len(titles)
    return ending if shared or count == len(titles) >= 2 else None


def strip_suffix(text: str, suffix: str | None) -> str:
    """`Authentication - Django REST framework` -> `Authentication`."""
    if suffix:
        match = re.search(_SEPARATOR + re.escape(suffix) + "$", text)
        if match and match.start() > 0:
            return text[: match.start()]
    return text
