"""Which URLs Pinax may fetch: only pages on a loaded manifest's site, over http or https.

Checked before any connection is made, and again for every redirect hop.
"""

from __future__ import annotations

from collections.abc import Iterable
from urllib.parse import urlsplit

from pinax.errors import InvalidArgs

MAX_URL_LENGTH = 4096
Origin = tuple[str, str, int]


def origin_of(url: str) -> Origin:
    """(scheme, host, port) with the scheme's default port filled in."""
    parts = urlsplit(url)
    scheme = parts.scheme.lower()
    port = parts.port or (443 if scheme == "https" else 80)
    return scheme, (parts.hostname or "").lower(), port


class UrlPolicy:
    """An allow-list of origins (scheme, host, port)."""

    def __init__(self, origins: Iterable[Origin]) -> None:
        self.origins = frozenset(origins)

    def check(self, url: str) -> str:
        """Return the URL if it may be fetched; raise `InvalidArgs` saying why not."""
        if len(url) > MAX_URL_LENGTH:
            raise InvalidArgs(f"URL is longer than {MAX_URL_LENGTH} characters")
        if any(c.isspace() or ord(c) < 32 for c in url):
            raise InvalidArgs("URL contains whitespace or control characters")
        try:
            parts = urlsplit(url)
            origin = origin_of(url)
        except ValueError as exc:
            raise InvalidArgs(f"not a valid URL: {url!r} ({exc})") from None
        if parts.scheme.lower() not in ("http", "https"):
            raise InvalidArgs(f"only http and https URLs can be fetched, not {url!r}")
        if parts.username is not None or parts.password is not None:
            raise InvalidArgs(f"URLs with a user name or password are refused: {url!r}")
        if not parts.hostname:
            raise InvalidArgs(f"URL has no host: {url!r}")
        if origin not in self.origins:
            raise InvalidArgs(
                f"{origin[0]}://{parts.netloc} is not the site of any loaded manifest; "
                "get_page only fetches pages of loaded docs (see list_docs)"
            )
        return url
