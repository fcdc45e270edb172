"""The get_page pipeline: URL check -> cache -> fetch (Markdown first) -> extract -> cache.

Where the text comes from (the result's `source`), tried in this order:
  markdown-twin       the Markdown twin the manifest names for the page (`markdown_url`)
  markdown-alternate  Markdown the page advertises: an HTTP `Link: <...>; rel="alternate";
                      type="text/markdown"` header or `<link rel=alternate type=text/markdown>`
  negotiated          the page URL itself answered `Accept: text/markdown` with Markdown
  html                the main content of the page's HTML, converted to Markdown
A meta-refresh redirect stub is followed (on the allowed sites only); a page that renders in
the browser (almost no text in its HTML) is a `fetch_failed`, never an empty success.

What the cache did (the result's `cache`): `hit` (fresh copy), `revalidated` (expired, the site
answered 304 Not Modified to a conditional request), `miss` (downloaded), `stale` (expired, the
site is down, timed out or rate-limited: the old copy is served with `stale: true`).

With a shared cache (`--cache-redis`, cache_shared.py) a page missing from the disk cache is
looked up there before the site (a `hit` too), and a cold page is fetched by one process of
all that share it: the one that takes its lock; the others poll for the page it stores, up to
the fetch's deadline, then serve the stale copy they have or fetch it themselves.
"""

from __future__ import annotations

import asyncio
import hashlib
import logging
import re
import threading
from collections.abc import Callable
from datetime import UTC, datetime
from functools import partial
from typing import TYPE_CHECKING, Any, TypeVar
from urllib.parse import urljoin

import anyio

from pinax.errors import CacheError, FetchFailed, InvalidArgs
from pinax.pages.budget import ENTRIES, HEADING_IDS, Document, document
from pinax.pages.cache import DEFAULT_TTL, PageCache
from pinax.pages.cache_shared import Claim, SharedCache
from pinax.pages.credentials import Credentials
from pinax.pages.fetch import Fetcher, Response
from pinax.pages.localfiles import LocalFiles
from pinax.pages.policy import UrlPolicy
from pinax.pages.text import clean_markdown_counted, code_test

if TYPE_CHECKING:
    from pinax.pages.extract import Extracted

log = logging.getLogger("pinax.pages")
T = TypeVar("T")

ACCEPT = "text/markdown, text/x-markdown;q=0.95, text/html;q=0.9, text/plain;q=0.5, */*;q=0.1"
MARKDOWN_ACCEPT = "text/markdown, text/x-markdown;q=0.95, text/plain;q=0.5"
MARKDOWN_TYPES = frozenset({"text/markdown", "text/x-markdown", "text/plain"})
MAX_STUB_HOPS = 3
SHARED_POLL = (0.005, 0.05)  # seconds between looks for a page another process is fetching
_LOOKS_LIKE_HTML = re.compile(
    rb"^\s*(?:<!--.*?-->\s*)*<(?:!doctype\s+html|html|head|body)\b", re.I | re.S
)
_LINK_HEADER = re.compile(r"<([^<>]*)>((?:\s*;\s*[\w*-]+\s*=\s*(?:\"[^\"]*\"|[^;,\s]*))*)")
_DOCUMENT_TAG = re.compile(rb"<(?:html|head|body)[\s>]", re.I)
_DOCUMENT_TAG_TEXT = re.compile(r"<(?:html|head|body)[\s>]", re.I)
_LINK_PARAM = re.compile(r";\s*([\w*-]+)\s*=\s*(?:\"([^\"]*)\"|([^;,\s]*))")


class PageReader:
    """Reads pages of the loaded sites as Markdown, through the cache."""

    def __init__(
        self,
        policy: UrlPolicy,
        cache: PageCache | None,
        fetcher: Fetcher | None = None,
        files: LocalFiles | None = None,
        credentials: Credentials | None = None,
        shared: SharedCache | None = None,
    ) -> None:
        self.policy = policy
        self.cache = cache
        self.shared = shared  # pages shared with other processes (Redis), after the disk
        self.fetcher = fetcher or Fetcher(
            policy.check, addresses=policy.addresses, credentials=credentials
        )
        self.files = files  # the pages of served docs folders, read from disk
        self._flights: dict[str, asyncio.Future[dict[str, Any]]] = {}

    def warm(self) -> None:
        """Load what the first read would (the extraction code, the TLS context) now, on a
        background thread at a server's start-up, rather than on its event loop."""
        from pinax.pages.extract import extract  # noqa: F401  (the import is the point)

        self.fetcher.warm()
        if self.shared is not None:
            self.shared.check()  # an unreachable Redis is said at start-up

    async def read(
        self,
        url: str,
        title_hint: str = "",
        twin_url: str | None = None,
        ttl: float | None = None,
    ) -> dict[str, Any]:
        """The whole page with its provenance and what the cache did."""
        if self.files is not None and url in self.files:
            # A docs folder's page: read now from disk (cheap), so never cached.
            entry = await anyio.to_thread.run_sync(self.files.read, url)
            return _answer(entry, "miss", 0.0)
        if url.lower().startswith("file:"):
            raise InvalidArgs(
                f"{url[:300]} is not a page of a served docs folder; get_page reads files "
                "only from the docs folders given with `--docs DIR`"
            )
        self.policy.check(url)
        # Disk I/O off the event loop: the cache folder may be slow, or planted with traps.
        found, problem = await anyio.to_thread.run_sync(self._lookup, url)
        fresh_for = (self.cache.ttl if self.cache else DEFAULT_TTL) if ttl is None else ttl
        if found is not None and found[1] < fresh_for:
            return _answer(found[0], "hit", found[1])
        # One fetch per URL at a time: concurrent readers wait for the same answer.
        flight = self._flights.get(url)
        if flight is None or flight.get_loop() is not asyncio.get_running_loop():
            flight = asyncio.ensure_future(
                self._refresh(url, title_hint, twin_url, found, problem, fresh_for)
            )
            self._flights[url] = flight
            flight.add_done_callback(lambda done: self._land(url, done))
        return await asyncio.shield(flight)

    def _land(self, url: str, flight: asyncio.Future[dict[str, Any]]) -> None:
        self._flights.pop(url, None)
        if not flight.cancelled():
            flight.exception()  # retrieved here too, in case every waiter was cancelled

    def _key(self, url: str) -> str:
        """The page's cache key: its URL, in the namespace of the credentials this reader
        holds (a hash of them), so a page read behind a login is never served without it."""
        namespace = self.fetcher.credentials.namespace
        return url if namespace is None else f"credentials:{namespace} {url}"

    def _lookup(self, url: str) -> tuple[tuple[dict[str, Any], float] | None, CacheError | None]:
        if self.cache is None:
            return None, None
        try:
            return self.cache.get(self._key(url)), None
        except CacheError as exc:
            log.warning("page cache unavailable, fetching live: %s", exc)
            return None, exc

    async def _refresh(
        self,
        url: str,
        title_hint: str,
        twin_url: str | None,
        found: tuple[dict[str, Any], float] | None,
        problem: CacheError | None,
        fresh_for: float,
    ) -> dict[str, Any]:
        claim = Claim()
        if self.shared is not None and fresh_for > 0:  # with no TTL nothing is shared
            shared, claim = await self._from_shared(url, found, fresh_for)
            if shared is not None:
                return shared
        if self.shared is None or claim.token is None:
            return await self._fetch_and_store(url, title_hint, twin_url, found, problem, fresh_for)
        try:
            async with anyio.create_task_group() as holding:
                holding.start_soon(self._hold, self._key(url), claim)
                try:
                    return await self._fetch_and_store(
                        url, title_hint, twin_url, found, problem, fresh_for
                    )
                finally:
                    holding.cancel_scope.cancel()
        finally:
            await anyio.to_thread.run_sync(self.shared.release, self._key(url), claim)

    async def _hold(self, key: str, claim: Claim) -> None:
        """Renew the fetch lock while the fetch lasts, so that it expires soon after a holder
        that died (and the others fetch), never under one still at work."""
        assert self.shared is not None
        while True:
            await anyio.sleep(self.shared.hold / 3)
            if not await anyio.to_thread.run_sync(self.shared.renew, key, claim):
                return

    async def _from_shared(
        self, url: str, found: tuple[dict[str, Any], float] | None, fresh_for: float
    ) -> tuple[dict[str, Any] | None, Claim]:
        """The page from the shared cache, or the lock on fetching it (or neither: Redis did
        not answer, or another process holds the lock past the deadline)."""
        assert self.shared is not None
        key = self._key(url)
        deadline = self.fetcher.limits.total_timeout
        give_up = anyio.current_time() + deadline
        pause, claim = SHARED_POLL[0], Claim()
        while True:
            copy = await anyio.to_thread.run_sync(self.shared.get, key)
            if copy is not None and copy[1] < fresh_for:
                if claim.token is not None:
                    await anyio.to_thread.run_sync(self.shared.release, key, claim)
                if self.cache is not None:
                    await anyio.to_thread.run_sync(self._store_on_disk, url, *copy)
                return _answer(copy[0], "hit", copy[1]), Claim()
            if claim.token is not None:  # looked once more since: the page is ours to fetch
                return None, claim
            claim = await anyio.to_thread.run_sync(self.shared.claim, key)
            if claim.token is not None:  # its last holder may have stored it just now
                continue
            if not claim.elsewhere:  # Redis did not answer
                return None, claim
            if anyio.current_time() >= give_up:
                break
            await anyio.sleep(pause)
            pause = min(pause * 1.5, SHARED_POLL[1])
        reason = f"another process has been fetching it for {deadline:g} s"
        if found is not None:
            log.warning("serving a stale copy of %s: %s", url, reason)
            return _answer(found[0], "stale", found[1], reason=reason), Claim()
        log.warning("fetching %s here: %s", url, reason)
        return None, Claim()

    async def _fetch_and_store(
        self,
        url: str,
        title_hint: str,
        twin_url: str | None,
        found: tuple[dict[str, Any], float] | None,
        problem: CacheError | None,
        fresh_for: float,
    ) -> dict[str, Any]:
        previous = found[0] if found else None
        deadline = self.fetcher.limits.total_timeout
        try:
            try:
                # One deadline for the whole read: redirects, stubs, alternates, extraction.
                with anyio.fail_after(deadline):
                    entry, state = await self._fetch(url, title_hint, twin_url, previous)
            except TimeoutError:
                raise FetchFailed(
                    f"{url}: no complete answer within {deadline:g} s in all (redirects, redirect "
                    "stubs and Markdown versions included)"
                ) from None
        except FetchFailed as exc:
            if found is not None and _site_unavailable(exc):
                log.warning("serving a stale copy of %s: %s", url, exc.message)
                return _answer(found[0], "stale", found[1], reason=exc.message)
            if problem is not None:
                raise CacheError(
                    f"the page cache failed ({problem.message}) and so did the live "
                    f"fetch ({exc.message})"
                ) from exc
            raise
        if self.cache is not None and problem is None:
            await anyio.to_thread.run_sync(self._store_on_disk, url, entry)
        if self.shared is not None:
            await anyio.to_thread.run_sync(self.shared.put, self._key(url), entry, fresh_for)
        return _answer(entry, state, 0.0)

    def _store_on_disk(self, url: str, entry: dict[str, Any], age: float = 0.0) -> None:
        assert self.cache is not None
        try:
            self.cache.put(self._key(url), entry, age)
        except CacheError as exc:
            log.warning("could not cache %s: %s", url, exc)

    async def _fetch(
        self, url: str, title_hint: str, twin_url: str | None, previous: dict[str, Any] | None
    ) -> tuple[dict[str, Any], str]:
        """(entry, "revalidated" | "miss"), trying the text's sources in order."""
        fetched: dict[str, Response] = {}  # a 200 answer to the conditional request, reused
        if previous is not None:
            answer = await self._revalidate(previous)
            if answer is not None and answer.status == 304:
                return _confirmed(previous, answer), "revalidated"
            if answer is not None:
                fetched[previous["source_url"]] = answer
        if twin_url:
            twin = await self._markdown_at(twin_url, fetched)
            if twin is not None:
                return await _off_loop(_entry, url, url, "markdown-twin", twin, title_hint), "miss"
        target = url
        for _ in range(MAX_STUB_HOPS + 1):
            response = fetched.pop(target, None) or await self._get(target, ACCEPT)
            _require_page(response)
            if await _off_loop(_is_markdown, response):
                entry = await _off_loop(
                    _entry, url, response.url, "negotiated", response, title_hint
                )
                return entry, "miss"
            if _is_markdown(response, as_served=True):  # an HTML page labelled as Markdown
                log.info("%s: served as Markdown but is an HTML page; reading it as HTML", target)
            advertised = _link_header_alternate(response)
            if advertised:
                twin = await self._markdown_at(advertised, fetched)
                if twin is not None:
                    entry = await _off_loop(
                        _entry, url, response.url, "markdown-alternate", twin, title_hint
                    )
                    return entry, "miss"
            extracted = await _extract_off_loop(response)
            if extracted.refresh_url:
                target = self._stub_target(response.url, extracted.refresh_url)
                continue
            if extracted.markdown_alternate:
                twin = await self._markdown_at(extracted.markdown_alternate, fetched)
                if twin is not None:
                    entry = await _off_loop(
                        _entry, url, response.url, "markdown-alternate", twin, title_hint
                    )
                    # The HTML's ids open the Markdown's sections.
                    await _off_loop(_page_ids, entry, extracted)
                    return entry, "miss"
            if extracted.js_shell:
                raise FetchFailed(extracted.shell_problem(response.url))
            title = extracted.title or title_hint
            entry = await _off_loop(
                _entry, url, response.url, "html", response, title, extracted.markdown
            )
            if any(heading.anchor for heading in extracted.headings):
                entry[HEADING_IDS] = [heading.anchor for heading in extracted.headings]
            if extracted.entries:
                entry[ENTRIES] = [list(found) for found in extracted.entries]
            if extracted.removed:
                entry["removed_hidden"] = extracted.removed
            return entry, "miss"
        raise FetchFailed(f"{url}: more than {MAX_STUB_HOPS} redirect stubs in a row")

    async def _revalidate(self, previous: dict[str, Any]) -> Response | None:
        """A conditional GET of the copy's source, when the copy has validators."""
        validators = previous.get("validators") or {}
        headers = {"Accept": MARKDOWN_ACCEPT if previous["source"] in _TWINS else ACCEPT}
        if validators.get("etag"):
            headers["If-None-Match"] = validators["etag"]
        if validators.get("last_modified"):
            headers["If-Modified-Since"] = validators["last_modified"]
        if len(headers) == 1:
            return None
        try:
            self.policy.check(previous["source_url"])
        except InvalidArgs:
            return None
        return await self.fetcher.get(previous["source_url"], headers=headers)

    async def _get(self, url: str, accept: str) -> Response:
        return await self.fetcher.get(url, headers={"Accept": accept})

    async def _markdown_at(self, url: str, fetched: dict[str, Response]) -> Response | None:
        """The Markdown at `url`, or None (off the allowed sites, failed, or not Markdown)."""
        try:
            self.policy.check(url)
            response = fetched.pop(url, None) or await self._get(url, MARKDOWN_ACCEPT)
        except (InvalidArgs, FetchFailed) as exc:
            log.info("no Markdown from %s: %s", url, exc.message)
            return None
        if not _is_page(response) or not await _off_loop(_is_markdown, response):
            return None
        return response

    def _stub_target(self, stub: str, target: str) -> str:
        if target.split("#", 1)[0] == stub:
            raise FetchFailed(f"{stub}: the page is a redirect stub pointing at itself")
        try:
            return self.policy.check(target)
        except InvalidArgs as exc:
            raise FetchFailed(
                f"{stub} is a redirect stub to {target}, refused: {exc.message}"
            ) from None


_TWINS = frozenset({"markdown-twin", "markdown-alternate"})


def _entry(
    url: str,
    final_url: str,
    source: str,
    response: Response,
    title: str,
    markdown: str | None = None,
) -> dict[str, Any]:
    """A cache entry: the page text with where, when and from what it came."""
    removed = 0
    if markdown is None:
        markdown, removed = clean_markdown_counted(_decode_text(response.body, response.charset))
    content_hash = "sha256:" + hashlib.sha256(markdown.encode("utf-8")).hexdigest()
    if source != "html":
        first = next((h for h in document(markdown, content_hash).headings if h.level == 1), None)
        title = first.title if first else title
    entry: dict[str, Any] = {"url": final_url, "title": title, "source": source}
    if final_url != url:
        entry["requested_url"] = url
    if removed:
        entry["removed_hidden"] = removed
    entry.update(
        source_url=response.url,
        fetched_at=_now(),
        content_hash=content_hash,
        markdown=markdown,
        validators={
            "etag": response.headers.get("etag"),
            "last_modified": response.headers.get("last-modified"),
        },
    )
    return entry


def _confirmed(previous: dict[str, Any], answer: Response) -> dict[str, Any]:
    """The copy, confirmed now by a 304 (which may carry new validators)."""
    validators = dict(previous.get("validators") or {})
    if answer.headers.get("etag"):
        validators["etag"] = answer.headers["etag"]
    if answer.headers.get("last-modified"):
        validators["last_modified"] = answer.headers["last-modified"]
    return {**previous, "fetched_at": _now(), "validators": validators}


def _answer(entry: dict[str, Any], state: str, age: float, reason: str = "") -> dict[str, Any]:
    """What a caller sees: the entry without its validators, and what the cache did."""
    result = {k: v for k, v in entry.items() if k != "validators"}
    result.update(cached=state != "miss", cache=state, stale=state == "stale", age=round(age))
    if reason:
        result["stale_reason"] = reason
    return result


def _site_unavailable(exc: FetchFailed) -> bool:
    """Down, timed out, rate-limited or answering without a page (a stale copy helps); not an
    answer like 404."""
    return exc.status is None or exc.status in (408, 429) or exc.status >= 500


# Answers that carry a page; 204, 205, 206, an unasked 304, 300 and the like do not.
_PAGE_STATUS = frozenset({200, 203})


def _is_page(response: Response) -> bool:
    return response.status in _PAGE_STATUS and bool(response.body.strip())


def _require_page(response: Response) -> None:
    """Only a real page may become (or replace) a cached copy."""
    if not _is_page(response):
        what = "an empty body" if response.status in _PAGE_STATUS else "no page"
        raise FetchFailed(
            f"{response.url}: HTTP {response.status} with {what}; not a page",
            status=None,  # not the site's answer about the page: a stale copy may serve
        )


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds")


def _page_ids(entry: dict[str, Any], extracted: Extracted) -> None:
    """Keep the page's own heading ids beside the Markdown of an advertised alternate."""
    from pinax.pages.outline import ids_for

    headings = document(entry["markdown"], entry["content_hash"]).headings
    ids = ids_for([heading.title for heading in headings], extracted.headings)
    if ids is not None:
        entry[HEADING_IDS] = ids


async def _off_loop(work: Callable[..., T], *args: Any) -> T:
    """`work(*args)` on a worker thread: a page's text costs CPU in proportion to its size
    (cleaning, hashing, finding its headings: up to a tenth of a second for a hostile page),
    time the event loop, and every other client, must not wait."""
    return await anyio.to_thread.run_sync(partial(work, *args))


async def _extract_off_loop(response: Response) -> Extracted:
    """Extraction, seconds of CPU for a big page, on a worker thread so other calls go on.
    When the call is cancelled or its deadline passes, the caller stops waiting at once and the
    worker stops at its next step."""
    stop = threading.Event()
    try:
        return await anyio.to_thread.run_sync(_extract, response, stop, abandon_on_cancel=True)
    finally:
        stop.set()


def _extract(response: Response, stop: threading.Event) -> Extracted:
    from pinax.pages.extract import decode_html, extract

    return extract(decode_html(response.body, response.charset), response.url, stop.is_set)


def _is_markdown(response: Response, as_served: bool = False) -> bool:
    """Markdown by its type, and not an HTML document labelled as Markdown (a page whose
    hidden parts would then reach the model as text). `as_served`: by its type alone."""
    if response.media_type not in MARKDOWN_TYPES:
        return False
    return as_served or not (
        _LOOKS_LIKE_HTML.match(response.body[:2048]) or _html_document(response.body)
    )


def _html_document(body: bytes) -> bool:
    """`<html>`, `<head>` or `<body>` tags outside code: a web page, not Markdown about one."""
    if not _DOCUMENT_TAG.search(body):
        return False
    text = _decode_text(body, None)
    in_code = code_test(text, Document(text))
    return any(not in_code(match.start()) for match in _DOCUMENT_TAG_TEXT.finditer(text))


def _link_header_alternate(response: Response) -> str | None:
    """The target of `Link: <...>; rel="alternate"; type="text/markdown"`, made absolute."""
    for value in response.headers.get_list("link"):
        for target, params in _LINK_HEADER.findall(value):
            found = {k.lower(): (a or b) for k, a, b in _LINK_PARAM.findall(params)}
            rels = found.get("rel", "").lower().split()
            if "alternate" in rels and found.get("type", "").lower() in MARKDOWN_TYPES:
                return urljoin(response.url, target.strip())
    return None


def _decode_text(body: bytes, charset: str | None) -> str:
    try:
        return body.decode(charset or "utf-8", errors="replace")
    except LookupError:  # an unknown charset name
        return body.decode("utf-8", errors="replace")
