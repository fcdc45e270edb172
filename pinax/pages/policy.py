"""Where Pinax may fetch from: which URLs, and which network addresses.

Every URL comes from a model, and a model can be steered by any page it reads, so a URL is
treated as hostile. It may be fetched only when it is http(s), written plainly (no user info,
no numeric, percent-encoded or look-alike host, no trailing dot) and on the site of a loaded
manifest. After DNS resolution, every address of the host must be public unless the operator
allowed its network (`--allow-private CIDR`, `PINAX_ALLOW_PRIVATE`). The URL is checked before
any connection and for every redirect hop; `pinax.pages.fetch` checks the addresses and connects
to the very address it checked.

httpx parses URLs here as the fetcher will (one parser: no gap between what is checked and
what is fetched). It is imported when a URL is first parsed, so that a server that only
searches never loads it (about 60 ms of start-up).
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping
from ipaddress import IPv4Address, IPv4Network, IPv6Address, IPv6Network, ip_address, ip_network
from typing import TYPE_CHECKING
from urllib.parse import urlsplit

from pinax.errors import InvalidArgs

if TYPE_CHECKING:
    import httpx

MAX_URL_LENGTH = 4096
ALLOW_PRIVATE_ENV = "PINAX_ALLOW_PRIVATE"
Origin = tuple[str, str, int]
Address = IPv4Address | IPv6Address
Network = IPv4Network | IPv6Network

# Networks no fetch may reach unless the operator allows them; the first match names the reason.
BLOCKED: tuple[tuple[Network, str], ...] = tuple(
    (ip_network(cidr), reason)
    for cidr, reason in (
        ("0.0.0.0/8", "an unspecified address"),
        ("10.0.0.0/8", "a private address"),
        ("100.64.0.0/10", "a carrier-grade NAT address"),
        ("127.0.0.0/8", "a loopback address"),
        ("169.254.0.0/16", "a link-local address (cloud metadata lives here)"),
        ("172.16.0.0/12", "a private address"),
        ("192.0.0.0/24", "an IETF protocol address"),
        ("192.0.2.0/24", "a documentation address"),
        ("192.88.99.0/24", "a 6to4 relay address"),
        ("192.168.0.0/16", "a private address"),
        ("198.18.0.0/15", "a benchmarking address"),
        ("198.51.100.0/24", "a documentation address"),
        ("203.0.113.0/24", "a documentation address"),
        ("224.0.0.0/4", "a multicast address"),
        ("240.0.0.0/4", "a reserved or broadcast address"),
        ("::/128", "an unspecified address"),
        ("::1/128", "a loopback address"),
        ("::/96", "an IPv4-compatible address"),
        ("::ffff:0:0:0/96", "an IPv4-translated address"),
        ("64:ff9b:1::/48", "a local NAT64 address"),
        ("100::/64", "a discard-only address"),
        ("2001::/23", "an IETF protocol address (Teredo and others)"),
        ("2001:db8::/32", "a documentation address"),
        ("fc00::/7", "a unique local (private) address"),
        ("fe80::/10", "a link-local address"),
        ("fec0::/10", "a site-local address"),
        ("ff00::/8", "a multicast address"),
    )
)
_NAT64 = ip_network("64:ff9b::/96")


def parse_networks(values: Iterable[str], source: str = "--allow-private") -> tuple[Network, ...]:
    """CIDR networks ('10.1.0.0/16', or one address '127.0.0.1'); a clear error for a bad one."""
    networks = []
    for value in values:
        text = value.strip()
        if not text:
            continue
        try:
            networks.append(ip_network(text))
        except ValueError as exc:
            raise InvalidArgs(
                f"{source}: {text!r} is not a network in CIDR form, e.g. 10.0.0.0/8 ({exc})"
            ) from None
    return tuple(networks)


def networks_from_env(environ: Mapping[str, str] = os.environ) -> tuple[Network, ...]:
    """The networks in `PINAX_ALLOW_PRIVATE` (comma-separated)."""
    return parse_networks(environ.get(ALLOW_PRIVATE_ENV, "").split(","), ALLOW_PRIVATE_ENV)


def _embedded_ipv4(address: IPv6Address) -> IPv4Address | None:
    """The IPv4 address a NAT64 or 6to4 address leads to."""
    if address in _NAT64:
        return IPv4Address(int(address) & 0xFFFFFFFF)
    return address.sixtofour


class AddressPolicy:
    """Public addresses only, plus the networks the operator allowed."""

    def __init__(self, allow_private: Iterable[str | Network] = ()) -> None:
        self.allowed = tuple(
            n
            for value in allow_private
            for n in (parse_networks([value]) if isinstance(value, str) else (value,))
        )

    @classmethod
    def from_env(cls, extra: Iterable[str] = ()) -> AddressPolicy:
        """`PINAX_ALLOW_PRIVATE` plus `extra` (the operator's `--allow-private` values)."""
        return cls(networks_from_env() + parse_networks(extra))

    def refusal(self, address: str | Address) -> str | None:
        """Why a connection to `address` is refused ('a loopback address'), or None."""
        try:
            ip = ip_address(address) if isinstance(address, str) else address
        except ValueError:
            return "not an IP address"
        if isinstance(ip, IPv6Address):
            ip = ip.ipv4_mapped or ip  # the same host either way
        if any(ip in network for network in self.allowed):
            return None
        candidates = [ip]
        if isinstance(ip, IPv6Address) and (inner := _embedded_ipv4(ip)) is not None:
            candidates.append(inner)
        for candidate in candidates:
            for network, reason in BLOCKED:
                if candidate in network:
                    return reason
        return None


def origin_of(url: str | httpx.URL) -> Origin:
    """(scheme, ASCII host, port), the scheme's default port filled in; ValueError if `url`
    cannot be parsed."""
    import httpx  # on first use (see above)

    try:
        parsed = httpx.URL(url)
    except httpx.InvalidURL as exc:
        raise ValueError(f"not a valid URL: {url!r} ({exc})") from None
    scheme = parsed.scheme.lower()
    host = parsed.raw_host.decode("ascii").lower()
    return scheme, host, parsed.port or (443 if scheme == "https" else 80)


def site_origins(urls: Iterable[str]) -> set[Origin]:
    """The origins of many URLs (a manifest's pages), parsing each site once."""
    sites = {tuple(url.split("/", 3)[:3]): url for url in urls}
    origins = set()
    for url in sites.values():
        try:
            origins.add(origin_of(url))
        except ValueError:
            continue  # a page no request could be made to; nothing to allow
    return origins


class UrlPolicy:
    """An allow-list of origins (scheme, host, port) and the addresses their hosts may have."""

    def __init__(
        self, origins: Iterable[Origin], allow_private: Iterable[str | Network] = ()
    ) -> None:
        self.origins = frozenset(origins)
        self.addresses = (
            allow_private
            if isinstance(allow_private, AddressPolicy)
            else AddressPolicy(allow_private)
        )

    def check(self, url: str) -> str:
        """Return the URL if it may be fetched; raise `InvalidArgs` saying why not."""
        import httpx  # on first use (see above)

        try:
            return self._check(url)
        except (httpx.InvalidURL, ValueError) as exc:  # e.g. an IDNA error deeper in a check
            if isinstance(exc, InvalidArgs):
                raise
            raise InvalidArgs(f"not a valid URL: {url[:300]!r} ({exc})") from None

    def _check(self, url: str) -> str:
        import httpx

        if len(url) > MAX_URL_LENGTH:
            raise InvalidArgs(f"URL is longer than {MAX_URL_LENGTH} characters")
        if any(c.isspace() or ord(c) < 32 or c == "\x7f" for c in url):
            raise InvalidArgs("URL contains whitespace or control characters")
        if "\\" in url:
            raise InvalidArgs(f"URL contains a backslash: {url!r}")
        try:
            parsed = httpx.URL(url)
            authority = urlsplit(url).netloc
        except (httpx.InvalidURL, ValueError) as exc:
            raise InvalidArgs(f"not a valid URL: {url!r} ({exc})") from None
        scheme = parsed.scheme.lower()
        if scheme not in ("http", "https") or not url.lower().startswith(f"{scheme}://"):
            raise InvalidArgs(f"only http and https URLs can be fetched, not {url!r}")
        if "@" in authority or parsed.userinfo:
            raise InvalidArgs(f"URLs with a user name or password are refused: {url!r}")
        if not parsed.host:
            raise InvalidArgs(f"URL has no host: {url!r}")
        if parsed.port is not None and not 0 < parsed.port < 65536:
            raise InvalidArgs(f"URL has an impossible port: {url!r}")
        _check_spelling(_written_host(authority), parsed, url)
        literal = ip_literal(parsed.host)
        if literal is not None and (reason := self.addresses.refusal(literal)):
            raise InvalidArgs(
                f"{url} points at {reason}; refused (an operator can allow a network with "
                "--allow-private CIDR)"
            )
        if origin_of(parsed) not in self.origins:
            lookalike = " (an international look-alike?)" if not parsed.host.isascii() else ""
            raise InvalidArgs(
                f"{scheme}://{authority} is not the site of any loaded manifest{lookalike}; "
                "get_page only fetches pages of loaded docs (see list_docs)"
            )
        return url


def _written_host(authority: str) -> str:
    """The host as the URL spells it, before any normalization."""
    if authority.startswith("["):
        return authority[: authority.find("]") + 1]
    return authority.rsplit(":", 1)[0] if ":" in authority else authority


def ip_literal(host: str) -> Address | None:
    try:
        return ip_address(host)
    except ValueError:
        return None


def _check_spelling(written: str, parsed: httpx.URL, url: str) -> None:
    """Refuse hosts that resolve to somewhere other than what they seem to say."""
    host = written.lower()
    if "%" in host:
        raise InvalidArgs(f"percent-encoded hosts and IPv6 zones are refused: {url!r}")
    if host.endswith("."):
        raise InvalidArgs(f"write the host without a trailing dot: {url!r}")
    if host.startswith("["):
        if host[1:-1] != parsed.host:
            raise InvalidArgs(f"the IPv6 host is not written plainly: {url!r}")
        return
    last_label = host.rsplit(".", 1)[-1]
    if (last_label.isdigit() or last_label.startswith("0x")) and not _is_dotted_quad(host):
        raise InvalidArgs(
            f"numeric hosts must be a plain dotted IPv4 address (no decimal, octal, hex or "
            f"short forms): {url!r}"
        )
    if host not in (parsed.host, parsed.raw_host.decode("ascii")):
        raise InvalidArgs(
            f"the host {written!r} is not written in its plain form "
            f"({parsed.raw_host.decode('ascii')}): {url!r}"
        )


def _is_dotted_quad(host: str) -> bool:
    try:
        return isinstance(ip_address(host), IPv4Address)
    except ValueError:
        return False
