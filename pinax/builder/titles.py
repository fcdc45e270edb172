"""`--titles fetch`: each page's own `<title>` (or `<h1>`), fetched concurrently and politely.

Bounded: `--concurrency` requests at once over one shared client, `--delay` between two
request starts on a host (or robots.txt's Crawl-delay, if longer), robots.txt honoured. The
` - Site Name` most titles share is cut off (and becomes the site's title). A page that
fails keeps its title from the URL; the failures are summed up in one warning.
"""

from __future__ import annotations

import asyncio
from collections import Counter
from dataclasses import replace

from pinax.errors import PinaxError
from pinax.manifest import Page

from . import html
from .model import BuildOptions
from .net import SiteAccess
from .report import Reporter, count_pages
from .sniff import is_html


async def fetch_titles(
    pages: list[Page],
    access: SiteAccess,
    options: BuildOptions,
    reporter: Reporter,
    site_title: str | None = None,
) -> tuple[list[Page], str | None]:
    """The pages with the titles they declare, and the site name those titles share
    (`site_title`, when the site's name is already known, is cut off wherever it ends one)."""
    if not pages:
        return pages, None
    access.delay = max(options.delay, await access.crawl_delay(pages[0].url))
    found: dict[int, str] = {}
    problems: Counter[str] = Counter()
    first_failure: list[str] = []
    todo = iter(range(len(pages)))

    async def worker() -> None:
        for i in todo:
            try:
                found[i] = await _title(pages[i].url, access)
            except _NoTitle as exc:
                problems[exc.reason] += 1
            except PinaxError as exc:
                problems["failed"] += 1
                if not first_failure:
                    first_failure.append(exc.message)
            finally:
                progress.advance()

    workers = max(1, min(options.concurrency, len(pages)))
    async with access.session():
        with reporter.progress("Fetching page titles", len(pages)) as progress:
            async with asyncio.TaskGroup() as group:
                for _ in range(workers):
                    group.create_task(worker())
    suffix = html.site_suffix(list(found.values()), site_title)
    titled = [
        replace(page, title=html.strip_suffix(found[i], suffix)) if i in found else page
        for i, page in enumerate(pages)
    ]
    reporter.note(f"fetched {len(found)} of {len(pages)} page titles ({workers} at a time)")
    if problems:
        detail = ", ".join(f"{n} {what}" for what, n in sorted(problems.items()))
        hint = f" (first failure: {first_failure[0]})" if first_failure else ""
        reporter.warn(
            f"{count_pages(sum(problems.values()))} keep a title made from their URL: "
            f"{detail}{hint}"
        )
    return titled, suffix


class _NoTitle(Exception):
    """Raised when one page gives no title (robots.txt, not HTML, ...) and caught by its
    caller, which records `reason`; never leaves this module."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


async def _title(url: str, access: SiteAccess) -> str:
    if not await access.may_crawl(url):
        raise _NoTitle("disallowed by robots.txt")
    response = await access.get(url, paced=True)
    if not is_html(response.media_type, response.body):
        raise _NoTitle("not HTML")
    title = html.page_title(response.body, response.charset)
    if title is None:
        raise _NoTitle("without a title")
    return title
