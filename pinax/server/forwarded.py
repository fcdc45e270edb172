"""Behind a proxy: the public name and the client's address, from the proxies trusted.

A request that comes from an address in `--forwarded-allow-ips` (a proxy: HAProxy, nginx, a
Kubernetes ingress) is read as the proxy says: `X-Forwarded-Host` becomes the Host header the
Host/Origin checks see (so the public name is accepted as `--allow-host` names it, never a
421), `X-Forwarded-For` the client's address (the nearest address not itself a trusted
proxy) and `X-Forwarded-Proto` the scheme. From any other address these headers are
ignored, so a client cannot claim a name or an address.
"""

from __future__ import annotations

import ipaddress
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from starlette.types import ASGIApp, Receive, Scope, Send

Network = ipaddress.IPv4Network | ipaddress.IPv6Network


class TrustedProxies:
    """Addresses and networks (`10.0.0.0/8`, `127.0.0.1`, `*` for any) a proxy may speak from."""

    def __init__(self, entries: list[str]) -> None:
        self.any = "*" in entries
        self.networks: list[Network] = []
        for entry in entries:
            for part in entry.split(","):
                part = part.strip()
                if part and part != "*":
                    self.networks.append(ipaddress.ip_network(part, strict=False))

    @staticmethod
    def problem(entries: list[str]) -> str | None:
        """Why `entries` are not addresses or networks, if they are not."""
        for entry in entries:
            for part in entry.split(","):
                part = part.strip()
                if part and part != "*":
                    try:
                        ipaddress.ip_network(part, strict=False)
                    except ValueError:
                        return f"--forwarded-allow-ips {part!r} is not an address or a network"
        return None

    def __contains__(self, address: str) -> bool:
        if self.any:
            return True
        try:
            ip = ipaddress.ip_address(address)
        except ValueError:
            return False
        return any(ip in network for network in self.networks)


class Forwarded:
    """ASGI middleware: the forwarded Host, client and scheme, when a trusted proxy sent them."""

    def __init__(self, app: ASGIApp, trusted: TrustedProxies) -> None:
        self.app = app
        self.trusted = trusted

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        peer = scope.get("client")
        if scope["type"] == "http" and peer and peer[0] in self.trusted:
            scope = self._rewritten(scope)
        await self.app(scope, receive, send)

    def _rewritten(self, scope: Scope) -> Scope:
        forwarded: dict[bytes, bytes] = {}
        headers = []
        for name, value in scope["headers"]:
            if name in (b"x-forwarded-host", b"x-forwarded-for", b"x-forwarded-proto"):
                forwarded[name] = value  # the last one a proxy added is the nearest
            elif name != b"host":
                headers.append((name, value))
        scope = dict(scope)
        host = _last(forwarded.get(b"x-forwarded-host"))
        original = next((v for k, v in scope["headers"] if k == b"host"), None)
        chosen = host.encode("latin-1") if host else original
        if chosen is not None:
            headers.append((b"host", chosen))
        scope["headers"] = headers
        proto = _last(forwarded.get(b"x-forwarded-proto"))
        if proto in ("http", "https"):
            scope["scheme"] = proto
        chain = (forwarded.get(b"x-forwarded-for") or b"").decode("latin-1").split(",")
        for address in reversed([a.strip() for a in chain if a.strip()]):
            if address not in self.trusted:  # the nearest one no trusted proxy vouches for
                scope["client"] = (address, 0)
                break
        return scope


def _last(value: bytes | None) -> str:
    """The nearest proxy's value of a header that lists one per hop."""
    if not value:
        return ""
    return value.decode("latin-1").split(",")[-1].strip()
