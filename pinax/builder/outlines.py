"""`--outline` (and `--titles fetch` with it): each page read once, its headings recorded.

Why one reader: a page fetched for its outline also gives its title, so `--titles fetch
--outline` costs one request per page. Each page goes through get_page's own fetcher limits
and extraction (`extract_page`), so the outline holds the main content's h2..h6, never the
navigation, sidebars, tables of contents or footers, and each anchor is one get_page opens
with `section=anchor`. Markdown gives headings without anchors (but an explicit `{#id}`): a
page's Markdown twin (`markdown_url`, which get_page reads first) or a page that answers as
`text/markdown`.

Politeness: `--concurrency` pages at once, at most `PER_HOST` on one host, `--delay` (or
robots.txt's Crawl-delay) between two request starts on a host, robots.txt honoured, and a
429/503 answer waits out its Retry-After (at most `MAX_RETRY_WAIT` s, `RETRIES` times).

A rebuild reuses a page's previous outline without a download when the site says it has not
changed: the same sitemap `lastmod`, or a 304 to a conditional request (the ETag and
Last-Modified of the last build are kept in the cache folder, see `Validators`). A page that
fails keeps its entry without an outline; the failures are counted in one warning.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import logging
import os
import re
from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from pinax.errors import FetchFailed, PinaxError
from pinax.manifest import Heading, Page, PageText
from pinax.pages import (
    Fetcher,
    Limits,
    Response,
    clean_markdown,
    decode_html,
    extract_page,
    heading_lines,
)

from . import html
from .markdown_outline import outline_cuts
from .model import BuildOptions
from .net import SiteAccess
from .outline_rules import outline_entries
from .report import Reporter
from .sections import MAX_PAGE_TEXT, MAX_URL, Cut, Sections, fetched_at, split
from .sniff import is_html

PER_HOST = 4  # connections to one host at once, whatever --concurrency says
RETRIES = 3  # a 429 or 503 is retried this many times
MAX_RETRY_WAIT = 60.0  # seconds; a longer Retry-After fails the page instead
DEFAULT_RETRY_WAIT = 5.0  # a 429 without Retry-After
_RETRY_AFTER = re.compile(r"retry after (\d+) s")
MARKDOWN_TYPES = frozenset({"text/markdown", "text/x-markdown"})
log = logging.getLogger("pinax.builder")


@dataclass(frozen=True)
class Read:
    """What one page gave: its title (None: keep the one we have) and outline, and with
    `--content` its text by section and when that text was current."""

    title: str | None
    outline: tuple[Heading, ...]
    how: str  # "fetched", "unchanged (304)", "unchanged (lastmod)"
    text: Sections | None = None
    fetched_at: str | None = None


class _Failed(Exception):
    """Raised inside one page's outline fetch (robots.txt, not HTML, ...) and caught by its
    caller, which records `reason` for the report; never leaves this module."""

    def __init__(self, reason: str, detail: str = "") -> None:
        super().__init__(reason)
        self.reason = reason
        self.detail = detail


class Validators:
    """ETag / Last-Modified per page URL from the last build of one manifest, kept in
    `<cache>/build/<name>-<hash>.json` so a rebuild can ask "changed since?" (a manifest has
    no place for them: they are not the page's, they are this machine's last download's)."""

    def __init__(self, path: Path | None) -> None:
        self.path = path
        self.known: dict[str, list[str | None]] = {}
        if path is not None:
            try:
                data = json.loads(path.read_text(encoding="utf-8"))
                if isinstance(data, dict):
                    self.known = {
                        k: v
                        for k, v in data.items()
                        if isinstance(v, list)
                        and len(v) == 2
                        and all(x is None or isinstance(x, str) for x in v)
                    }
            except (OSError, ValueError):
                self.known = {}
        self.seen: dict[str, list[str | None]] = {}

    @classmethod
    def for_site(cls, cache_dir: Path | None, key: str) -> Validators:
        if cache_dir is None:
            return cls(None)
        digest = hashlib.sha256(key.encode()).hexdigest()[:16]
        safe = re.sub(r"[^\w.-]", "_", urlsplit(key).netloc or "site")[:60]
        return cls(cache_dir / "build" / f"{safe}-{digest}.json")

    def headers(self, url: str) -> dict[str, str]:
        etag, modified = self.known.get(url, [None, None])
        headers = {}
        if etag:
            headers["If-None-Match"] = etag
        if modified:
            headers["If-Modified-Since"] = modified
        return headers

    def remember(self, url: str, response: Response | None) -> None:
        if response is None:
            self.seen[url] = self.known.get(url, [None, None])
        else:
            etag, modified = response.headers.get("etag"), response.headers.get("last-modified")
            if etag or modified:
                self.seen[url] = [etag, modified]

    def save(self) -> None:
        """Written whole or not at all; a cache folder that cannot be written is no error."""
        if self.path is None:
            return
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            temporary = self.path.with_suffix(f".{os.getpid()}.tmp")
            temporary.write_text(json.dumps(self.seen, sort_keys=True), encoding="utf-8")
            temporary.replace(self.path)
        except OSError:
            pass


async def read_pages(
    pages: list[Page],
    access: SiteAccess,
    options: BuildOptions,
    reporter: Reporter,
    previous: Mapping[str, Page] | None = None,
    validators: Validators | None = None,
    known: Mapping[str, tuple[Heading, ...]] | None = None,
    site_title: str | None = None,
    texts: list[PageText] | None = None,
    known_texts: Mapping[str, Sections] | None = None,
) -> tuple[list[Page], str | None]:
    """The pages with their outlines (and, with `--titles fetch`, their titles), and the
    site name the titles share (`site_title`, when the site's name is already known, is cut
    off wherever it ends one). With `--content`, each page read also adds its text to
    `texts` (in page order; a page that failed has none)."""
    if not pages:
        return pages, None
    previous = previous or {}
    known = {} if options.titles == "fetch" else (known or {})  # titles need the page
    known_texts = known_texts or {}
    if options.content:  # a page known without its text is read for it
        known = {url: outline for url, outline in known.items() if url in known_texts}
    validators = validators or Validators(None)
    access.delay = max(options.delay, await access.crawl_delay(pages[0].url))
    fetcher = Fetcher(
        access.check,
        Limits(),
        addresses=access.fetcher.addresses,
        credentials=access.fetcher.credentials,
    )
    hosts: dict[str, asyncio.Semaphore] = {}
    found: dict[int, Read] = {}
    problems: Counter[str] = Counter()
    first_failure: list[str] = []
    todo = iter(range(len(pages)))

    async def worker() -> None:
        for i in todo:
            page = pages[i]
            if page.url in known:
                text = known_texts.get(page.url)
                when = text.fetched_at if text is not None else None
                found[i] = Read(None, known[page.url], "read with the source", text, when)
                progress.advance()
                continue
            host = urlsplit(page.url).netloc
            gate = hosts.setdefault(host, asyncio.Semaphore(PER_HOST))
            try:
                async with gate:
                    found[i] = await _read(
                        page, previous.get(page.url), access, fetcher, validators, options
                    )
            except _Failed as exc:
                problems[exc.reason] += 1
                if exc.detail and not first_failure:
                    first_failure.append(exc.detail)
            except PinaxError as exc:  # outside the site, refused by policy, ...
                problems["failed"] += 1
                if not first_failure:
                    first_failure.append(exc.message)
            except Exception as exc:  # a bug on one hostile page must not end the build
                log.warning("outline of %s failed", page.url, exc_info=True)
                problems["failed (internal error)"] += 1
                if not first_failure:
                    first_failure.append(f"{page.url}: {type(exc).__name__}")
            finally:
                progress.advance()

    workers = max(1, min(options.concurrency, len(pages)))
    label = "Reading pages (outlines" + (", text" if options.content else "")
    label += ", titles)" if options.titles == "fetch" else ")"
    async with access.session():
        with reporter.progress(label, len(pages)) as progress:
            async with asyncio.TaskGroup() as group:
                for _ in range(workers):
                    group.create_task(worker())
    if not options.check:
        validators.save()
    titles = {i: r.title for i, r in found.items() if r.title}
    suffix = (
        html.site_suffix(list(titles.values()), site_title) if options.titles == "fetch" else None
    )
    result = []
    for i, page in enumerate(pages):
        read = found.get(i)
        if read is None:
            result.append(replace(page, outline=()))
            continue
        title = page.title
        if options.titles == "fetch" and read.title:
            title = html.strip_suffix(read.title, suffix)
        result.append(replace(page, title=title, outline=read.outline))
        if texts is not None and read.text is not None and len(page.url) <= MAX_URL:
            texts.append(PageText(page.url, read.text.titled(title), read.fetched_at))
    hows = Counter(r.how for r in found.values())
    headings = sum(len(r.outline) for r in found.values())
    detail = ", ".join(f"{n} {how}" for how, n in sorted(hows.items()))
    reporter.note(
        f"outlines of {len(found)} of {len(pages)} pages ({detail}; {headings} headings; "
        f"{workers} at a time, at most {PER_HOST} per host)"
    )
    if texts is not None:
        capped = sum(1 for r in found.values() if r.text is not None and r.text.capped)
        cap = f"; {capped} cut to the {MAX_PAGE_TEXT // 1024} KB cap" if capped else ""
        reporter.note(f"text of {len(texts)} of {len(pages)} pages{cap}")
    if problems:
        detail = ", ".join(f"{n} {what}" for what, n in sorted(problems.items()))
        hint = f" (first failure: {first_failure[0]})" if first_failure else ""
        reporter.warn(f"{sum(problems.values())} pages have no outline: {detail}{hint}")
    return result, suffix


async def _read(
    page: Page,
    before: Page | None,
    access: SiteAccess,
    fetcher: Fetcher,
    validators: Validators,
    options: BuildOptions,
) -> Read:
    known = before is not None and (before.outline or page.url in validators.known)
    earlier = options.previous_texts.get(page.url)
    if earlier is not None and (before is None or not _follows(earlier, before.outline)):
        earlier = None  # text of another build than the outline's (an --outline rebuild since)
    if options.content and earlier is None:
        known = False  # no text of the last build to reuse: the page is read whole
    if known and before is not None and page.lastmod and page.lastmod == before.lastmod:
        validators.remember(page.url, None)
        return _unchanged(before, earlier, "unchanged (lastmod)", options.content)
    if not await access.may_crawl(page.url):
        raise _Failed("disallowed by robots.txt")
    if page.markdown_url:  # get_page reads the twin first: the outline is the twin's
        twin = await _twin(page, access, fetcher, options.content)
        if twin is not None:
            return twin
    headers = {"Accept": "text/html, text/markdown;q=0.9, */*;q=0.1"}
    if known:
        headers.update(validators.headers(page.url))
    response = await _get(page.url, headers, access, fetcher)
    if response.status == 304 and before is not None:
        validators.remember(page.url, None)
        return _unchanged(before, earlier, "unchanged (304)", options.content)
    validators.remember(page.url, response)
    if response.media_type in MARKDOWN_TYPES:
        return _markdown_read(response, page, "fetched", options.content)
    if not is_html(response.media_type, response.body):
        raise _Failed("not HTML")
    title = html.page_title(response.body, response.charset)
    extracted, text = await asyncio.to_thread(_extract_text, response, options.content)
    if extracted.refresh_url and access.allows(extracted.refresh_url):
        response = await _get(extracted.refresh_url, {}, access, fetcher)
        if not is_html(response.media_type, response.body):
            raise _Failed("not HTML")
        title = html.page_title(response.body, response.charset)
        extracted, text = await asyncio.to_thread(_extract_text, response, options.content)
    if extracted.js_shell:
        raise _Failed("rendered by JavaScript")
    return Read(title, outline_of(extracted.headings), "fetched", text, _when(response, page))


def _follows(text: PageText, outline: tuple[Heading, ...]) -> bool:
    """Whether a page's text is cut at these headings (and so was recorded with them)."""
    return len(text.sections) == len(outline) + 1 and all(
        (s.level, s.heading, s.anchor) == tuple(h)
        for s, h in zip(text.sections[1:], outline, strict=True)
    )


def _unchanged(before: Page, earlier: PageText | None, how: str, content: bool) -> Read:
    """The last build's outline (and text) of a page the site says has not changed."""
    if not content or earlier is None:
        return Read(before.title, before.outline, how)
    return Read(before.title, before.outline, how, Sections(earlier.sections), earlier.fetched_at)


async def _twin(page: Page, access: SiteAccess, fetcher: Fetcher, content: bool) -> Read | None:
    """The outline (and text) of a page's Markdown twin, or None when the twin is not
    Markdown or fails (the HTML page is read instead)."""
    assert page.markdown_url is not None
    accept = {"Accept": "text/markdown, text/plain;q=0.5"}
    try:
        response = await _get(page.markdown_url, accept, access, fetcher)
    except (_Failed, PinaxError):
        return None
    if not response.media_type.startswith("text/") or is_html(response.media_type, response.body):
        return None
    return _markdown_read(response, page, "fetched (Markdown twin)", content)


def _markdown_read(response: Response, page: Page, how: str, content: bool) -> Read:
    """A page served as Markdown, read as get_page reads it: what its rendered page would
    hide (comments, hidden HTML, invisible characters) is left out of outline and text."""
    text = clean_markdown(response.body.decode(response.charset or "utf-8", errors="replace"))
    title, outline, sections = markdown_read(text, content)
    return Read(title, outline, how, sections, _when(response, page))


def markdown_read(
    markdown: str, content: bool
) -> tuple[str | None, tuple[Heading, ...], Sections | None]:
    """Served Markdown's title, outline and (with `content`) sections: one pass for all."""
    title, cuts = outline_cuts(markdown)
    outline = tuple(cut.heading for cut in cuts if cut.heading is not None)
    return title, outline, split(markdown, cuts) if content else None


def _when(response: Response, page: Page) -> str | None:
    return fetched_at(response.headers.get("last-modified"), page.lastmod)


async def outline_of_response(
    response: Response, content: bool = False
) -> tuple[tuple[Heading, ...], Sections | None] | None:
    """The outline (and with `content` the text) of an HTML page fetched for another
    reason (a crawl), or None when it has none to give (over get_page's size limit, a
    redirect stub, rendered by JavaScript, refused by extraction): the page is then read on
    its own, like any other."""
    if len(response.body) > Limits().max_bytes or not is_html(response.media_type, response.body):
        return None
    try:
        extracted, text = await asyncio.to_thread(_extract_text, response, content)
    except PinaxError:
        return None
    if extracted.refresh_url or extracted.js_shell:
        return None
    return outline_of(extracted.headings), text


def outline_of(headings: tuple) -> tuple[Heading, ...]:
    """The h2..h6 of a page's extracted headings as manifest entries, within the manifest's
    limits (an over-long title is cut, an anchor that is not one is left out)."""
    return tuple(heading for _, heading in outline_entries(headings))


def _extract(response: Response) -> Any:  # pinax.pages' Extracted
    return extract_page(decode_html(response.body, response.charset), response.url)


def _extract_text(response: Response, content: bool) -> tuple[Any, Sections | None]:
    """The page extracted and, with `content`, its main content cut at its headings (off
    the event loop: a big page takes a while)."""
    extracted = _extract(response)
    if not content or extracted.js_shell or extracted.refresh_url:
        return extracted, None
    return extracted, split(extracted.markdown, html_cuts(extracted.markdown, extracted.headings))


def html_cuts(markdown: str, headings: tuple) -> list[Cut]:
    """Extraction's headings (one per Markdown heading, in order) as cuts: the outline's
    entries, the first H1 as the title, the rest left in the text."""
    entries = dict(outline_entries(headings))
    cuts = []
    title = False
    for i, (start, end, level) in enumerate(heading_lines(markdown)[: len(headings)]):
        is_title = level == 1 and not title
        title = title or is_title
        cuts.append(Cut(start, end, entries.get(i), is_title))
    return cuts


async def _get(url: str, headers: dict[str, str], access: SiteAccess, fetcher: Fetcher) -> Response:
    """GET with get_page's limits on the build's client, paced per host; a 429 or 503 waits
    out its Retry-After and tries again."""
    for attempt in range(RETRIES + 1):
        await access.wait_turn(url)
        try:
            return await fetcher.get(url, headers=headers, client=access.client)
        except FetchFailed as exc:
            if exc.status not in (429, 503) or attempt == RETRIES:
                raise _Failed(
                    f"HTTP {exc.status}" if exc.status else "failed", exc.message
                ) from None
            match = _RETRY_AFTER.search(exc.message)
            wait = float(match.group(1)) if match else DEFAULT_RETRY_WAIT
            if wait > MAX_RETRY_WAIT:
                raise _Failed(f"HTTP {exc.status}", exc.message) from None
            access.slow_down(url, wait)
    raise AssertionError("unreachable")
