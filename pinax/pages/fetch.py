"""HTTP fetching with limits: timeouts, a total deadline, a body cap, checked redirects.

Every hop of a redirect chain goes through the same URL check as the first request, and the
body is read in chunks so a page over the size limit is cut off, never held whole in memory.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from email.message import Message
from urllib.parse import urljoin

import anyio
import httpx

from pinax import __version__
from pinax.errors import FetchFailed, InvalidArgs

USER_AGENT = f"pinax/{__version__} (documentation index for coding agents)"
REDIRECT_CODES = frozenset({301, 302, 303, 307, 308})


@dataclass(frozen=True)
class Limits:
    connect_timeout: float = 5.0
    read_timeout: float = 15.0
    total_timeout: float = 30.0
    max_bytes: int = 10 * 1024 * 1024
    max_redirects: int = 5


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
        """The charset declared in the Content-Type header, if any."""
        header = self.headers.get("content-type")
        if not header:
            return None
        message = Message()
        message["content-type"] = header
        return message.get_param("charset")  # type: ignore[return-value]


class Fetcher:
    """Fetches URLs that `check_url` accepts, within `limits`."""

    def __init__(
        self,
        check_url: Callable[[str], str],
        limits: Limits | None = None,
        user_agent: str = USER_AGENT,
    ) -> None:
        self.check_url = check_url
        self.limits = limits or Limits()
        self.user_agent = user_agent

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
        # trust_env=False: a proxy from the environment would defeat the URL check.
        return httpx.AsyncClient(follow_redirects=False, timeout=timeout, trust_env=False)

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
        request_headers = {"User-Agent": self.user_agent, **(headers or {})}
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
                request = client.build_request("GET", url, headers=headers)
                response = await client.send(request, stream=True)
            except httpx.TimeoutException:
                raise FetchFailed(f"{url}: timed out") from None
            except httpx.HTTPError as exc:
                raise FetchFailed(f"{url}: {_reason(exc)}") from None
            try:
                location = response.headers.get("location")
                if response.status_code in REDIRECT_CODES and location:
                    if len(redirects) >= self.limits.max_redirects:
                        raise FetchFailed(
                            f"{redirects[0] if redirects else url}: more than "
                            f"{self.limits.max_redirects} redirects"
                        )
                    target = urljoin(url, location)
                    try:
                        self.check_url(target)
                    except InvalidArgs as exc:
                        raise FetchFailed(f"{url} redirects to {target}, refused: {exc}") from None
                    redirects.append(url)
                    url = target
                    continue
                if response.status_code >= 400:
                    raise FetchFailed(
                        f"{url}: HTTP {response.status_code} {response.reason_phrase}",
                        status=response.status_code,
                    )
                body = await self._read(response, url)
                return Response(url, response.status_code, response.headers, body, redirects)
            finally:
                await response.aclose()

    async def _read(self, response: httpx.Response, url: str) -> bytes:
        cap = self.limits.max_bytes
        declared = response.headers.get("content-length")
        if declared and declared.isdigit() and int(declared) > cap:
            raise FetchFailed(
                f"{url}: page is {int(declared):,} bytes, over the {cap:,}-byte limit"
            )
        chunks: list[bytes] = []
        size = 0
        try:
            async for chunk in response.aiter_bytes():
                size += len(chunk)
                if size > cap:
                    raise FetchFailed(
                        f"{url}: page is over the {cap:,}-byte limit; stopped reading"
                    )
                chunks.append(chunk)
        except httpx.TimeoutException:
            raise FetchFailed(f"{url}: timed out while reading the page") from None
        except httpx.HTTPError as exc:
            raise FetchFailed(f"{url}: {_reason(exc)}") from None
        return b"".join(chunks)


def _reason(exc: httpx.HTTPError) -> str:
    if isinstance(exc, httpx.ConnectError):
        return f"could not connect ({exc or 'connection refused'})"
    return f"{type(exc).__name__}: {exc}" if str(exc) else type(exc).__name__
