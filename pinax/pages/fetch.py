"""HTTP fetching with limits, for URLs a model chose: every step assumes a hostile answer.

- The URL is checked (`check_url`) before the request and for every redirect hop.
- Connections go through `GuardedBackend`: the host is resolved once, every address is checked
  against the `AddressPolicy`, and the connection is made to the checked address itself, so a
  second DNS answer cannot rebind it (TLS still verifies the certificate for the host name,
  which httpcore sends as SNI). No proxy from the environment is used (`trust_env=False`).
- The body is read raw and decoded here, never past `max_bytes` of output, so a compressed
  bomb stops at the limit; a ratio over `max_ratio` is reported as a bomb.
- `total_timeout` bounds the whole exchange, however slowly the bytes trickle in.
"""

from __future__ import annotations

import codecs
import socket
import ssl
import zlib
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, field
from email.message import Message
from email.utils import parsedate_to_datetime
from time import time
from typing import Any
from urllib.parse import urljoin, urlsplit

import anyio
import httpcore
import httpx

from pinax import __version__
from pinax.errors import FetchFailed, InvalidArgs
from pinax.pages.credentials import Credentials
from pinax.pages.policy import AddressPolicy, ip_literal

USER_AGENT = f"pinax/{__version__} (documentation index for coding agents)"
REDIRECT_CODES = frozenset({301, 302, 303, 307, 308})
ACCEPT_ENCODING = "gzip, deflate"  # what _Decoder can bound; nothing else is asked for
RATIO_FLOOR = 1 << 20  # decoded bytes below this never count as a bomb
# Codecs that are no web page's charset; punycode decoding is quadratic.
UNUSABLE_CHARSETS = frozenset(
    {"punycode", "idna", "undefined", "unicode-escape", "raw-unicode-escape"}
)

Resolver = Callable[[str, int], Awaitable[list[str]]]


@dataclass(frozen=True)
class Limits:
    connect_timeout: float = 5.0
    read_timeout: float = 15.0
    total_timeout: float = 30.0
    max_bytes: int = 10 * 1024 * 1024  # of the decoded body
    max_ratio: int = 100  # decoded / compressed, past RATIO_FLOOR
    max_redirects: int = 5


def usable_charset(name: str | None) -> str | None:
    """A charset name Python can decode a web page with in linear time, else None."""
    if not name:
        return None
    try:
        info = codecs.lookup(name)
    except LookupError:
        return None
    if info.name in UNUSABLE_CHARSETS or not getattr(info, "_is_text_encoding", True):
        return None
    return info.name


@dataclass
class Response:
    url: str  # after redirects
    status: int
    headers: httpx.Headers
    body: bytes
    redirects: list[str] = field(default_factory=list)

    @property
    def media_type(self) -> str:
        return self.headers.get("content-type", "").split(";")[0].strip().lower()

    @property
    def charset(self) -> str | None:
        """The charset declared in the Content-Type header, if Pinax can decode with it."""
        header = self.headers.get("content-type")
        if not header:
            return None
        message = Message()
        message["content-type"] = header
        declared = message.get_param("charset")
        return usable_charset(declared) if isinstance(declared, str) else None


async def resolve(host: str, port: int) -> list[str]:
    """The host's addresses from the system resolver, in its order, without repeats."""
    infos = await anyio.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    return list(dict.fromkeys(str(info[4][0]) for info in infos))


class GuardedBackend(httpcore.AsyncNetworkBackend):
    """httpcore's network backend, dialing only addresses the policy allows, exactly those."""

    def __init__(self, addresses: AddressPolicy, resolver: Resolver = resolve) -> None:
        self.addresses = addresses
        self.resolver = resolver
        self._dial = httpcore.AnyIOBackend()

    async def connect_tcp(
        self,
        host: str,
        port: int,
        timeout: float | None = None,
        local_address: str | None = None,
        socket_options: Any = None,
    ) -> httpcore.AsyncNetworkStream:
        try:
            with anyio.fail_after(timeout):
                found = [host] if ip_literal(host) is not None else await self.resolver(host, port)
        except TimeoutError:
            raise httpcore.ConnectTimeout(f"looking up {host} timed out") from None
        except OSError as exc:
            raise httpcore.ConnectError(f"cannot resolve {host}: {exc}") from None
        if not found:
            raise httpcore.ConnectError(f"cannot resolve {host}: no addresses")
        for address in found:
            if reason := self.addresses.refusal(address):
                raise FetchFailed(
                    f"{host} resolves to {address}, {reason}; refused (an operator can allow "
                    "a network with --allow-private CIDR)"
                )
        failure: Exception | None = None
        for address in found:
            try:
                return await self._dial.connect_tcp(
                    address, port, timeout, local_address, socket_options
                )
            except (httpcore.ConnectError, httpcore.ConnectTimeout) as exc:
                failure = exc
        assert failure is not None
        raise failure

    async def connect_unix_socket(self, *args: Any, **kwargs: Any) -> httpcore.AsyncNetworkStream:
        raise httpcore.ConnectError("Pinax never connects to unix sockets")

    async def sleep(self, seconds: float) -> None:
        await self._dial.sleep(seconds)


class Fetcher:
    """Fetches URLs that `check_url` accepts, from addresses `addresses` allows, within `limits`.

    `addresses` defaults to the operator's `PINAX_ALLOW_PRIVATE`; `resolver` and `verify` (a TLS
    context) are there for tests and intranet sites.
    """

    def __init__(
        self,
        check_url: Callable[[str], str],
        limits: Limits | None = None,
        user_agent: str = USER_AGENT,
        *,
        addresses: AddressPolicy | None = None,
        resolver: Resolver = resolve,
        verify: ssl.SSLContext | bool = True,
        credentials: Credentials | None = None,
    ) -> None:
        self.check_url = check_url
        # Headers for sites behind a login: added at each hop for that hop's origin only.
        self.credentials = credentials or Credentials()
        self.limits = limits or Limits()
        self.user_agent = user_agent
        self.addresses = addresses if addresses is not None else AddressPolicy.from_env()
        self.resolver = resolver
        self.verify = verify
        self._tls: ssl.SSLContext | None = None

    def warm(self) -> None:
        """Build the TLS context now (it reads the CA bundle: tens of ms of CPU), so the first
        fetch does not build it on a server's event loop."""
        if self._tls is None:
            self._tls = httpx.create_ssl_context(verify=self.verify, trust_env=False)

    def open_client(self) -> httpx.AsyncClient:
        """A client to share across many `get` calls (connection reuse): `async with` it."""
        return self._client()

    def _client(self) -> httpx.AsyncClient:
        limits = self.limits
        timeout = httpx.Timeout(
            connect=limits.connect_timeout,
            read=limits.read_timeout,
            write=limits.read_timeout,
            pool=limits.connect_timeout,
        )
        self.warm()
        transport = httpx.AsyncHTTPTransport(verify=self._tls, trust_env=False)
        # httpx takes no network backend, so its pool is replaced by one that dials through
        # the guard (the same pool class and TLS context httpx would have built).
        transport._pool = httpcore.AsyncConnectionPool(
            ssl_context=self._tls,
            network_backend=GuardedBackend(self.addresses, self.resolver),
        )
        # trust_env=False: a proxy from the environment would defeat both checks.
        return httpx.AsyncClient(
            transport=transport, follow_redirects=False, timeout=timeout, trust_env=False
        )

    async def get(
        self,
        url: str,
        headers: Mapping[str, str] | None = None,
        client: httpx.AsyncClient | None = None,
    ) -> Response:
        """GET `url` (already checked by the caller or not: it is checked again here).

        `client` (from `open_client`) reuses connections; every hop is still checked.
        """
        self.check_url(url)
        request_headers = {
            "User-Agent": self.user_agent,
            "Accept-Encoding": ACCEPT_ENCODING,
            **(headers or {}),
        }
        try:
            with anyio.fail_after(self.limits.total_timeout):
                if client is not None:
                    return await self._follow(client, url, request_headers)
                async with self._client() as own:
                    return await self._follow(own, url, request_headers)
        except TimeoutError:
            raise FetchFailed(
                f"{url}: no complete answer within {self.limits.total_timeout:g} s"
            ) from None

    async def _follow(
        self, client: httpx.AsyncClient, url: str, headers: dict[str, str]
    ) -> Response:
        redirects: list[str] = []
        while True:
            try:
                secret = self.credentials.for_url(url)  # this hop's origin's, or none
                hop = {**headers, **secret} if secret else headers
                request = client.build_request("GET", url, headers=hop)
                response = await client.send(request, stream=True)
            except httpx.TimeoutException:
                raise FetchFailed(f"{url}: timed out") from None
            except httpx.HTTPError as exc:
                raise FetchFailed(f"{url}: {_reason(exc)}") from None
            except (httpx.InvalidURL, ValueError) as exc:  # httpx reads the Location itself
                raise FetchFailed(
                    f"{url}: the answer redirects to something that is not a web address ({exc})"
                ) from None
            try:
                location = response.headers.get("location")
                if response.status_code in REDIRECT_CODES and location:
                    # The status marks these as the site's answer, not an outage, so the page
                    # cache does not serve an old copy in their place.
                    if len(redirects) >= self.limits.max_redirects:
                        raise FetchFailed(
                            f"{redirects[0] if redirects else url}: more than "
                            f"{self.limits.max_redirects} redirects",
                            status=response.status_code,
                        )
                    target = urljoin(url, location)
                    try:
                        self.check_url(target)
                    except InvalidArgs as exc:
                        raise FetchFailed(
                            f"{url} redirects to {target}, refused: {exc}",
                            status=response.status_code,
                        ) from None
                    redirects.append(url)
                    url = target
                    continue
                if response.status_code in (401, 403):
                    raise FetchFailed(
                        _login_problem(url, response, bool(secret)), status=response.status_code
                    )
                if response.status_code >= 400:
                    raise FetchFailed(
                        f"{url}: HTTP {response.status_code} {response.reason_phrase}"
                        f"{_retry_after(response.headers.get('retry-after'))}",
                        status=response.status_code,
                    )
                body = await self._read(response, url)
                return Response(url, response.status_code, response.headers, body, redirects)
            finally:
                await response.aclose()

    async def _read(self, response: httpx.Response, url: str) -> bytes:
        limits = self.limits
        cap = limits.max_bytes
        declared = response.headers.get("content-length")
        if declared and declared.isdigit() and int(declared) > cap:
            raise FetchFailed(
                f"{url}: page is {int(declared):,} bytes, over the {cap:,}-byte limit"
            )
        decoder = _Decoder(response.headers.get("content-encoding", ""), url)
        chunks: list[bytes] = []
        received = size = 0
        try:
            async for raw in response.aiter_raw():
                received += len(raw)
                # Never decode past the cap, nor past max_ratio times what has arrived.
                allowance = min(cap, max(RATIO_FLOOR, limits.max_ratio * received))
                chunk = decoder.decode(raw, allowance - size + 1)
                size += len(chunk)
                if size > allowance and allowance < cap:
                    raise FetchFailed(
                        f"{url}: refused a decompression bomb (over {limits.max_ratio}:1; "
                        f"{received:,} compressed bytes made over {size - 1:,})"
                    )
                if received > cap or size > cap:
                    raise FetchFailed(
                        f"{url}: page is over the {cap:,}-byte limit; stopped reading"
                    )
                chunks.append(chunk)
        except httpx.TimeoutException:
            raise FetchFailed(f"{url}: timed out while reading the page") from None
        except httpx.HTTPError as exc:
            raise FetchFailed(f"{url}: {_reason(exc)}") from None
        decoder.finish()
        return b"".join(chunks)


class _Decoder:
    """Content-Encoding undone with a bound on the output of every call."""

    def __init__(self, header: str, url: str) -> None:
        self.url = url
        codings = [c.strip().lower() for c in header.split(",") if c.strip()]
        codings = [c for c in codings if c != "identity"]
        self._zlib: Any = None
        if not codings:
            return
        if len(codings) > 1 or codings[0] not in ("gzip", "x-gzip", "deflate"):
            raise FetchFailed(
                f"{url}: the server sent a body encoded as {header!r}, which Pinax did not ask "
                f"for (it accepts {ACCEPT_ENCODING})"
            )
        self._wbits = zlib.MAX_WBITS | 16 if "gzip" in codings[0] else zlib.MAX_WBITS
        self._zlib = zlib.decompressobj(self._wbits)
        self._started = False

    def decode(self, data: bytes, limit: int) -> bytes:
        """At most `limit` bytes of output (the caller treats reaching it as over the cap)."""
        if self._zlib is None:
            return data
        try:
            out = self._zlib.decompress(data, limit)
        except zlib.error as exc:
            if self._started or self._wbits != zlib.MAX_WBITS:
                raise FetchFailed(f"{self.url}: the compressed body is corrupt ({exc})") from None
            self._zlib = zlib.decompressobj(-zlib.MAX_WBITS)  # "deflate" sent without a header
            out = self._zlib.decompress(data, limit)
        self._started = True
        return out

    def finish(self) -> None:
        if self._zlib is not None and not self._zlib.eof and self._started:
            raise FetchFailed(f"{self.url}: the compressed body ends early")


def gunzip(data: bytes, max_bytes: int, what: str) -> bytes:
    """A gzip file's content (e.g. sitemap.xml.gz), refused past `max_bytes` of output."""
    inflater = zlib.decompressobj(zlib.MAX_WBITS | 16)
    try:
        out = inflater.decompress(data, max_bytes + 1)
    except zlib.error as exc:
        raise FetchFailed(f"{what}: not a valid gzip file ({exc})") from None
    if len(out) > max_bytes:
        raise FetchFailed(f"{what}: unpacks to over the {max_bytes:,}-byte limit; refused")
    return out


def _login_problem(url: str, response: httpx.Response, sent: bool) -> str:
    """A 401/403's message: the site wants credentials, and how to give them (no secret)."""
    what = f"{url}: HTTP {response.status_code} {response.reason_phrase}"
    parts = urlsplit(url)
    origin = f"{parts.scheme}://{parts.netloc}"
    if sent:
        return (
            f"{what}: the site refused the credentials given for {origin} (check the "
            "--header values or the variables they name)"
        )
    how = (
        f"give them when starting Pinax with --header '{origin}=Authorization: Bearer "
        "${TOKEN}' (the value read from the TOKEN environment variable) or --headers-file FILE"
    )
    if response.status_code == 401:
        return f"{what}: the site wants credentials; {how}"
    return f"{what}: the site refused access; if it is behind a login, it wants credentials: {how}"


def _retry_after(value: str | None) -> str:
    """', retry after 120 s' from a Retry-After header (seconds or a date), else ''."""
    if not value:
        return ""
    value = value.strip()
    if value.isdigit():
        seconds = int(value)
    else:
        try:
            seconds = round(parsedate_to_datetime(value).timestamp() - time())
        except (TypeError, ValueError, OverflowError):
            return ""
    return f" (the site asks to retry after {max(0, seconds)} s)"


def _reason(exc: httpx.HTTPError) -> str:
    if isinstance(exc, httpx.ConnectError):
        return f"could not connect ({exc or 'connection refused'})"
    return f"{type(exc).__name__}: {exc}" if str(exc) else type(exc).__name__
