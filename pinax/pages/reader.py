"""The get_page pipeline: URL check -> cache -> fetch (Markdown first) -> extract -> cache."""

from __future__ import annotations

import logging
import re
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

import anyio

from pinax.errors import CacheError, FetchFailed
from pinax.pages.cache import PageCache
from pinax.pages.fetch import Fetcher, Response
from pinax.pages.policy import UrlPolicy

if TYPE_CHECKING:
    from pinax.pages.extract import Extracted

log = logging.getLogger("pinax.pages")

ACCEPT = "text/markdown, text/x-markdown;q=0.95, text/html;q=0.9, text/plain;q=0.5, */*;q=0.1"
MARKDOWN_TYPES = frozenset({"text/markdown", "text/x-markdown", "text/plain"})
_LOOKS_LIKE_HTML = re.compile(
    rb"^\s*(?:<!--.*?-->\s*)*<(?:!doctype\s+html|html|head|body)\b", re.I | re.S
)
_FIRST_HEADING = re.compile(r"^#\s+(.+?)\s*#*\s*$", re.M)


class PageReader:
    """Reads pages of the loaded sites as Markdown, through the cache."""

    def __init__(
        self, policy: UrlPolicy, cache: PageCache | None, fetcher: Fetcher | None = None
    ) -> None:
        self.policy = policy
        self.cache = cache
        self.fetcher = fetcher or Fetcher(policy.check, addresses=policy.addresses)

    async def read(self, url: str, title_hint: str = "") -> dict[str, Any]:
        self.policy.check(url)
        cache_problem = None
        if self.cache is not None:
            try:
                found = self.cache.get(url)
            except CacheError as exc:
                log.warning("page cache unavailable, fetching live: %s", exc)
                cache_problem = exc
                found = None
            if found is not None:
                entry, age = found
                if self.cache.is_fresh(age):
                    return {**entry, "cached": True}
        try:
            page = await self._fetch(url, title_hint)
        except FetchFailed as exc:
            if cache_problem is not None:
                raise CacheError(
                    f"the page cache failed ({cache_problem.message}) and so did the live "
                    f"fetch ({exc.message})"
                ) from exc
            raise
        if self.cache is not None and cache_problem is None:
            try:
                self.cache.put(url, page)
            except CacheError as exc:
                log.warning("could not cache %s: %s", url, exc)
        return {**page, "cached": False}

    async def _fetch(self, url: str, title_hint: str) -> dict[str, Any]:
        response = await self.fetcher.get(url, headers={"Accept": ACCEPT})
        fetched_at = datetime.now(UTC).isoformat(timespec="seconds")
        if _is_markdown(response):
            markdown = _decode_text(response.body, response.charset)
            heading = _FIRST_HEADING.search(markdown)
            title = heading.group(1) if heading else title_hint
            source = "markdown"
        else:
            # Seconds of CPU for a big page: off the event loop, so other calls go on.
            extracted = await anyio.to_thread.run_sync(_extract, response)
            markdown, title, source = extracted.markdown, extracted.title or title_hint, "html"
        return {
            "url": response.url,
            "title": title,
            "source": source,
            "fetched_at": fetched_at,
            "markdown": markdown,
        }


def _extract(response: Response) -> Extracted:
    from pinax.pages.extract import decode_html, extract

    return extract(decode_html(response.body, response.charset), response.url)


def _is_markdown(response: Response) -> bool:
    return response.media_type in MARKDOWN_TYPES and not _LOOKS_LIKE_HTML.match(
        response.body[:2048]
    )


def _decode_text(body: bytes, charset: str | None) -> str:
    try:
        return body.decode(charset or "utf-8", errors="replace")
    except LookupError:  # an unknown charset name
        return body.decode("utf-8", errors="replace")
