"""Bytes as sites serve them: what kind of file they are, inflated and decoded within bounds."""

from __future__ import annotations

import re
import zlib

from pinax.errors import InvalidArgs

GZIP_MAGIC = b"\x1f\x8b"
INVENTORY_MAGIC = b"# Sphinx inventory"
_HTML_START = re.compile(
    rb"^\s*(?:<!--.*?-->\s*)*<(?:!doctype\s+html|html|head|body)\b", re.I | re.S
)


_URL_LINE = re.compile(r"^https?://\S+$")
HTML_TYPES = frozenset({"text/html", "application/xhtml+xml"})


def looks_like_html(body: bytes) -> bool:
    return bool(_HTML_START.match(body[:2048].lstrip(b"\xef\xbb\xbf")))


def is_html(media_type: str, body: bytes) -> bool:
    """An HTML page, by its declared type or, when that is missing or wrong, its first bytes."""
    return media_type in HTML_TYPES or looks_like_html(body)


def sniff(body: bytes) -> str:
    """`manifest`, `objects.inv`, `sitemap`, `html` or `llms.txt` (Markdown, the default)."""
    head = body[:512].lstrip(b"\xef\xbb\xbf \t\r\n")
    if head.startswith(GZIP_MAGIC):
        return "sitemap"
    if head.startswith(INVENTORY_MAGIC):
        return "objects.inv"
    if head.startswith(b"{"):
        return "manifest"
    if looks_like_html(head):
        return "html"
    if head.startswith(b"<"):
        return "sitemap"
    lines = head.decode("utf-8", "replace").split()[:5]
    if lines and all(_URL_LINE.match(line) for line in lines[:-1] or lines):
        return "sitemap"  # the plain-text form: one URL per line
    return "llms.txt"


def inflate(data: bytes, limit: int, source: str, wbits: int = zlib.MAX_WBITS) -> bytes:
    """zlib or gzip data (`wbits=31`) inflated, refusing more than `limit` bytes of output."""
    inflater = zlib.decompressobj(wbits)
    try:
        out = inflater.decompress(data, limit + 1)
        if len(out) > limit or inflater.unconsumed_tail:
            raise InvalidArgs(f"{source}: inflates to more than {limit:,} bytes; refused")
        out += inflater.flush()
    except zlib.error as exc:
        raise InvalidArgs(f"{source}: corrupt compressed data ({exc})") from None
    if not inflater.eof:
        raise InvalidArgs(f"{source}: corrupt compressed data (truncated)")
    if len(out) > limit:
        raise InvalidArgs(f"{source}: inflates to more than {limit:,} bytes; refused")
    return out


def gunzip_if_needed(body: bytes, limit: int, source: str) -> bytes:
    return inflate(body, limit, source, wbits=31) if body.startswith(GZIP_MAGIC) else body


def decode_text(body: bytes, charset: str | None = None) -> str:
    try:
        return body.decode(charset or "utf-8-sig", errors="replace")
    except LookupError:
        return body.decode("utf-8-sig", errors="replace")
