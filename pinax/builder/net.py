"""The build's only way to the network: `Fetcher` (limits, checked redirects) behind an
allow-list of the site being built, with robots.txt, per-host pacing and a shared client.

Allowed: the origin of what the user named, the site given with `--url`, and each
`--allow-host`. Everything else (a sitemap child on another host, a redirect off-site) is
refused by the same check on every hop, and the caller turns that into a warning or error.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator, Iterable
from contextlib import asynccontextmanager
from urllib.parse import urlsplit
from urllib.robotparser import RobotFileParser

import httpx

from pinax.errors import FetchFailed, InvalidArgs
from pinax.pages import (
    AddressPolicy,
    Credentials,
    Fetcher,
    Limits,
    Origin,
    Response,
    UrlPolicy,
    origin_of,
)

from .urls import host_root

ROBOTS_AGENT = "pinax"
MISSING = frozenset({404, 410})


class SiteAccess:
    """Fetches for one build, only from its allowed origins."""

    def __init__(
        self,
        origins: Iterable[Origin],
        limits: Limits,
        delay: float = 0.0,
        addresses: AddressPolicy | None = None,
        credentials: Credentials | None = None,
    ) -> None:
        self.origins = set(origins)
        addresses = addresses or AddressPolicy.from_env()
        self._policy = UrlPolicy(self.origins, addresses)
        self.fetcher = Fetcher(self.check, limits, addresses=addresses, credentials=credentials)
        self.delay = delay
        self._client: httpx.AsyncClient | None = None
        self._robots: dict[Origin, RobotFileParser] = {}
        self._robots_lock = asyncio.Lock()
        self._next_start: dict[str, float] = {}
        self.refused: list[str] = []  # URLs the allow-list turned away (redirect hops too)

    def allows(self, url: str) -> bool:
        try:
            return origin_of(url) in self.origins
        except ValueError:
            return False

    def check(self, url: str) -> str:
        """The URL check every hop goes through; names the way to allow another host."""
        if not self.allows(url):
            self.refused.append(url)
            host = urlsplit(url).netloc or url
            raise InvalidArgs(
                f"{url} is outside the site being built; allow its host with --allow-host {host}"
            )
        return self._policy.check(url)

    @asynccontextmanager
    async def session(self) -> AsyncIterator[None]:
        """Share one HTTP client (connection reuse) for every fetch inside the block."""
        if self._client is not None:
            yield
            return
        async with self.fetcher.open_client() as client:
            self._client = client
            try:
                yield
            finally:
                self._client = None

    async def get(self, url: str, paced: bool = False) -> Response:
        """GET through the allow-list; `paced` waits its turn on the host (crawls, titles)."""
        if paced and self.delay > 0:
            await self._wait_turn(url)
        return await self.fetcher.get(url, client=self._client)

    async def get_optional(self, url: str) -> Response | None:
        """GET, or None when the site says the file is not there (404, 410)."""
        try:
            return await self.get(url)
        except FetchFailed as exc:
            if exc.status in MISSING:
                return None
            raise

    @property
    def client(self) -> httpx.AsyncClient | None:
        """The shared client inside `session()` (None outside it)."""
        return self._client

    async def wait_turn(self, url: str) -> None:
        """Wait until the host's next request may start (`delay` apart)."""
        await self._wait_turn(url)

    def slow_down(self, url: str, seconds: float) -> None:
        """The host asked us to wait (429 Retry-After): no request starts before then."""
        host = urlsplit(url).netloc
        now = time.monotonic()
        self._next_start[host] = max(self._next_start.get(host, now), now + seconds)

    async def _wait_turn(self, url: str) -> None:
        host = urlsplit(url).netloc
        now = time.monotonic()
        start = max(now, self._next_start.get(host, now))
        self._next_start[host] = start + self.delay
        if start > now:
            await asyncio.sleep(start - now)

    async def robots(self, url: str) -> RobotFileParser:
        """The robots.txt rules of `url`'s origin (fetched once; none found allows all)."""
        origin = origin_of(url)
        async with self._robots_lock:
            if origin not in self._robots:
                parser = RobotFileParser()
                try:
                    response = await self.get_optional(host_root(url) + "robots.txt")
                except FetchFailed:
                    response = None
                lines = [] if response is None else _text(response).splitlines()
                parser.parse(lines)
                self._robots[origin] = parser
            return self._robots[origin]

    async def may_crawl(self, url: str) -> bool:
        return (await self.robots(url)).can_fetch(ROBOTS_AGENT, url)

    async def crawl_delay(self, url: str) -> float:
        delay = (await self.robots(url)).crawl_delay(ROBOTS_AGENT)
        return min(float(delay), 10.0) if delay else 0.0


def _text(response: Response) -> str:
    if response.media_type.startswith("text/html") or response.body[:1] == b"<":
        return ""  # an HTML error page served as robots.txt: no rules
    return response.body.decode(response.charset or "utf-8", errors="replace")
