"""URL helpers of the build: site bases, path prefixes, readable titles, default names."""

from __future__ import annotations

import re
from urllib.parse import quote, unquote, urljoin, urlsplit, urlunsplit

from pinax.pages import Origin, ip_literal, origin_of

_INDEX_FILE = re.compile(r"^index\.\w+$|^index$", re.I)
_EXTENSION = re.compile(r"\.(html?|md|mdx|txt|php|aspx?)$", re.I)
_FILE_NAME = re.compile(r"\.(html?|md|txt|xml|gz|inv|json|php|aspx?)$", re.I)  # not `/3.12`
_HOSTED_PROJECTS = ("github.io", "gitlab.io", "pages.dev", "netlify.app", "vercel.app")
_HOST_PREFIXES = ("www.", "docs.", "doc.", "developer.", "developers.", "dev.")


def is_url(text: str) -> bool:
    parts = urlsplit(text)
    return parts.scheme in ("http", "https") and bool(parts.netloc)


def clean(url: str) -> str:
    """Without fragment, whitespace or characters a manifest URL may not hold."""
    parts = urlsplit(url.strip())
    path = quote(parts.path, safe="/%:@!$&'()*+,;=~-._")
    return urlunsplit((parts.scheme.lower(), parts.netloc.lower(), path or "/", parts.query, ""))


def site_base(url: str) -> str:
    """The folder URL a site or file URL stands for: `https://a.io/docs` -> `https://a.io/docs/`,
    `https://a.io/docs/llms.txt` -> `https://a.io/docs/`, `https://a.io/3.12` -> `.../3.12/`."""
    parts = urlsplit(clean(url))
    path = parts.path
    last = path.rsplit("/", 1)[-1]
    if _FILE_NAME.search(last):
        path = path[: len(path) - len(last)]
    elif not path.endswith("/"):
        path += "/"
    return urlunsplit((parts.scheme, parts.netloc, path, "", ""))


def host_root(url: str) -> str:
    parts = urlsplit(url)
    return urlunsplit((parts.scheme, parts.netloc, "/", "", ""))


def in_prefix(url: str, base: str) -> bool:
    """Whether `url` lies on `base`'s origin, at or under its path."""
    if origin_of(url) != origin_of(base):
        return False
    path, prefix = urlsplit(url).path or "/", urlsplit(base).path or "/"
    return path.startswith(prefix) or path == prefix.rstrip("/")


def display_site(base: str) -> str:
    """The manifest `url`: the site root without its trailing slash, a sub-path with it."""
    return base[:-1] if urlsplit(base).path == "/" else base


def origins_for_host(host: str) -> set[Origin]:
    """`--allow-host docs.example.com` (or `host:port`): that host over http and https."""
    if "://" in host:
        return {origin_of(host)}
    name, _, port = host.lower().partition(":")
    if port:
        return {("http", name, int(port)), ("https", name, int(port))}
    return {("http", name, 80), ("https", name, 443)}


def readable_title(url: str) -> str:
    """A title from the URL for pages published without one: `/api/getting-started/` ->
    `Getting started`; an `index.html` stands for its folder."""
    segments = [s for s in unquote(urlsplit(url).path).split("/") if s]
    while segments and _INDEX_FILE.match(segments[-1]):
        segments.pop()
    if not segments:
        return urlsplit(url).hostname or url
    words = re.sub(r"[-_]+", " ", _EXTENSION.sub("", segments[-1])).strip()
    return (words[:1].upper() + words[1:]) if words else segments[-1]


def default_name(site_url: str) -> str:
    """A manifest name from the site: `docs.stripe.com` -> `stripe`, `openai.github.io/
    openai-agents-python` -> `openai-agents-python`."""
    parts = urlsplit(site_url)
    host = (parts.hostname or "docs").lower()
    first_segment = next((s for s in parts.path.split("/") if s), "")
    if host == "localhost" or ip_literal(host) is not None:
        # `127.0.0.1:8000` -> `127.0.0.1-8000`: an address has no name in it to take, and
        # two local sites differ by port.
        port = f"-{parts.port}" if parts.port else ""
        v6 = ":" in host
        candidate = ("ipv6-" if v6 else "") + "-".join(filter(None, host.split(":"))) + port
    elif host.endswith(_HOSTED_PROJECTS) and first_segment:
        candidate = first_segment
    else:
        for prefix in _HOST_PREFIXES:
            if host.startswith(prefix) and host.count(".") > 1:
                host = host[len(prefix) :]
                break
        candidate = host.split(".")[0]
    name = re.sub(r"[^A-Za-z0-9._-]+", "-", candidate).strip("-._")[:64]
    return name or "docs"


def resolve(link: str, base: str) -> str | None:
    """An absolute, cleaned http(s) URL for `link` read in a file at `base`, or None."""
    try:
        url = clean(urljoin(base, link.strip()))
    except ValueError:
        return None
    return url if is_url(url) else None
