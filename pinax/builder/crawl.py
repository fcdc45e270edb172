"""The last resort: a polite link crawl of the site's pages under its path prefix.

Polite: robots.txt honoured (a site that disallows us is an error, not a guess), at most
`--concurrency` requests at once, `--delay` (or robots.txt's Crawl-delay) between two request
starts, HTML pages only, no query strings (they multiply pages without end), and never more
than `max_pages` pages (plus a few failed fetches) requested. With `--outline`, each page's
outline is read from the crawl's own fetch.
"""

from __future__ import annotations

import asyncio
import re
from collections.abc import Awaitable, Callable
from urllib.parse import urlsplit

from pinax.errors import InvalidArgs, PinaxError
from pinax.manifest import Heading, Page, parent_section

from . import html
from .model import BuildOptions, Found
from .net import ROBOTS_AGENT, SiteAccess
from .outlines import outline_of_response
from .report import Reporter, count_pages
from .sections import Sections
from .sniff import is_html
from .urls import clean, in_prefix, readable_title

_NOT_PAGES = re.compile(
    r"\.(png|jpe?g|gif|svg|webp|ico|css|js|mjs|map|json|xml|txt|pdf|zip|gz|tgz|tar|whl|"
    r"woff2?|ttf|eot|mp4|webm|mp3|wav|ipynb|py|csv)$",
    re.I,
)


async def crawl(
    start: str,
    base: str,
    access: SiteAccess,
    options: BuildOptions,
    reporter: Reporter,
    max_pages: int,
    skip: Callable[[str], bool] = lambda url: False,
) -> Found:
    """Pages reachable from `start` by links that stay under `base`."""
    if not await access.may_crawl(start):
        raise InvalidArgs(
            f"robots.txt of {urlsplit(start).netloc} disallows {start} for crawlers "
            f"(user agent {ROBOTS_AGENT!r}); not crawling it"
        )
    access.delay = max(options.delay, await access.crawl_delay(start))
    budget = max_pages + max(10, max_pages // 10)  # room for a few failed or non-HTML URLs
    seen = {start}
    titles: dict[str, str] = {}
    outlines: dict[str, tuple[Heading, ...]] = {}
    texts: dict[str, Sections] = {}
    failures: list[PinaxError] = []
    start_failure: list[PinaxError] = []
    cut = False
    queue: asyncio.Queue[str] = asyncio.Queue()
    queue.put_nowait(start)

    async def visit(url: str) -> None:
        nonlocal cut
        try:
            response = await access.get(url, paced=True)
        except PinaxError as exc:
            (start_failure if url == start else failures).append(exc)
            return
        final = _page_url(response.url)
        if (
            final is None
            or not in_prefix(final, base)
            or final in titles
            or len(titles) >= max_pages
        ):
            return
        if not is_html(response.media_type, response.body):
            return
        tree = html.parse(response.body)
        titles[final] = html.title(tree) or ""
        if options.outline:  # read once: the crawl's fetch gives the outline too
            read = await outline_of_response(response, options.content)
            if read is not None:
                outlines[final], text = read
                if text is not None:
                    texts[final] = text
        for link in html.links(tree, response.url):
            target = _page_url(link)
            if (
                target is None
                or target in seen
                or not _worth_following(target, base, access)
                or skip(target)
            ):
                continue
            if len(seen) >= budget:
                cut = True
                break
            if await access.may_crawl(target):
                seen.add(target)
                queue.put_nowait(target)
                progress.set_total(len(seen))

    async def worker() -> None:
        while True:
            url = await queue.get()
            try:
                await visit(url)
            finally:
                progress.advance()
                queue.task_done()

    async with access.session():
        with reporter.progress("Crawling", None) as progress:
            await _drain(queue, worker, options.concurrency)
    if start_failure:
        raise start_failure[0]
    if not titles:
        raise InvalidArgs(f"crawling {start} found no HTML pages under {base}")
    suffix = html.site_suffix(list(titles.values()))
    pages = [
        Page(
            url=url,
            title=html.strip_suffix(title, suffix) or readable_title(url),
            section=parent_section(url),
        )
        for url, title in sorted(titles.items())
    ]
    reporter.note(f"crawled {len(seen)} URLs under {base}: {count_pages(len(pages))}")
    if cut or len(titles) >= max_pages:
        reporter.warn(f"the crawl stopped at {max_pages} pages (--max-pages); there may be more")
    if failures:
        reporter.warn(
            f"{len(failures)} URLs failed during the crawl (first: {failures[0].message})"
        )
    return Found("crawl", start, pages, title=suffix, outlines=outlines, texts=texts)


async def _drain(
    queue: asyncio.Queue[str], worker: Callable[[], Awaitable[None]], concurrency: int
) -> None:
    """Run `concurrency` workers until the queue is done; a worker's crash is re-raised."""
    joined = asyncio.ensure_future(queue.join())
    workers = [asyncio.ensure_future(worker()) for _ in range(max(1, concurrency))]
    try:
        done, _ = await asyncio.wait([joined, *workers], return_when=asyncio.FIRST_COMPLETED)
    finally:
        for task in (joined, *workers):
            task.cancel()
        await asyncio.gather(joined, *workers, return_exceptions=True)
    for task in done:
        if task is not joined and task.exception() is not None:
            raise task.exception()  # type: ignore[misc]


def _page_url(url: str) -> str | None:
    try:
        return clean(url)
    except ValueError:
        return None


def _worth_following(url: str, base: str, access: SiteAccess) -> bool:
    parts = urlsplit(url)
    return (
        not parts.query
        and access.allows(url)
        and in_prefix(url, base)
        and not _NOT_PAGES.search(parts.path)
    )
