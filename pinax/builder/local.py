"""A published file on disk: read within bounds, and the site it describes.

A local llms.txt or sitemap names its site in its own URLs (the deepest folder shared by
the URLs on the first URL's origin: an llms.txt lists its own site first, then GitHub, a
CDN...). An objects.inv holds only relative links: its site must be given (`--url`).
"""

from __future__ import annotations

from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

from pinax.errors import InvalidArgs
from pinax.files import SpecialFile, read_regular
from pinax.pages import origin_of

from . import llmstxt, sitemap
from .model import BuildLimits
from .sniff import gunzip_if_needed
from .urls import is_url, site_base


def read_file(path: Path, limit: int) -> bytes:
    try:
        return read_regular(path, limit)  # a FIFO or a device: refused at once
    except SpecialFile as exc:
        raise InvalidArgs(f"{path}: {exc}") from None
    except FileNotFoundError:
        raise InvalidArgs(f"{path}: no such file (and not an http(s) URL)") from None
    except IsADirectoryError:
        raise InvalidArgs(f"{path}: is a directory, not a published file") from None
    except OSError as exc:
        raise InvalidArgs(f"{path}: cannot read: {exc.strerror or exc}") from None


def site_of(kind: str, body: bytes, location: str, limits: BuildLimits) -> str | None:
    """The site a local file describes, or None when its links do not say."""
    if kind == "llms.txt":
        urls = [link.url for link in llmstxt.parse(body.decode("utf-8", "replace"), "").links]
    elif kind == "sitemap":
        data = gunzip_if_needed(body, limits.max_inflated, location)
        entries = sitemap.parse(data, location, limits.max_locs).entries
        urls = [entry.loc for entry in entries if is_url(entry.loc)]
    else:
        return None
    return common_base(urls)


def common_base(urls: list[str]) -> str | None:
    """The deepest folder shared by the URLs on the first URL's origin."""
    if not urls:
        return None
    origin = origin_of(urls[0])
    shared: list[str] | None = None
    for url in urls:
        if origin_of(url) != origin:
            continue
        folder = [s for s in urlsplit(site_base(url)).path.split("/") if s]
        if shared is None:
            shared = folder
            continue
        n = 0
        while n < min(len(shared), len(folder)) and shared[n] == folder[n]:
            n += 1
        shared = shared[:n]
    parts = urlsplit(urls[0])
    path = "/" + "".join(segment + "/" for segment in shared or [])
    return urlunsplit((parts.scheme, parts.netloc, path, "", ""))
