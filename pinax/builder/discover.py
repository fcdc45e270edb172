"""From a site URL to its published index: the first source that yields pages wins.

Order: `llms.txt` at the given path, then at the host root; `sitemap.xml` at the given path,
the `Sitemap:` lines of robots.txt, then `/sitemap.xml` at the root; a polite crawl last.
A file read from above the given path only contributes pages under that path. A missing
file (404, or an HTML page served in its place) moves on to the next; a site that cannot be
reached at all stops the build at once, rather than timing out on every candidate.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable

from pinax.errors import FetchFailed, InvalidArgs

from . import crawl, llms_source, sitemap_source
from .model import BuildOptions, Found
from .net import SiteAccess
from .report import Reporter, count_pages
from .select import Patterns, under_prefix
from .urls import host_root, site_base


async def discover(
    base: str,
    access: SiteAccess,
    options: BuildOptions,
    reporter: Reporter,
    max_pages: int,
) -> Found:
    root = host_root(base)

    async def llms(url: str) -> Found:
        response = await access.get(url)
        return await llms_source.read(
            response.url, response.body, response.url, access, options, reporter
        )

    async def sitemap(url: str) -> Found:
        return await sitemap_source.read(url, access, options, reporter)

    for url in _unique([base + "llms.txt", root + "llms.txt"]):
        if found := _under(await _try(url, llms, access, reporter), base, reporter):
            return found
    robots = await access.robots(base)
    listed = robots.site_maps() or []
    for url in listed:
        if not access.allows(url):
            reporter.warn(f"robots.txt lists {url}, on another host; not read")
    candidates = [base + "sitemap.xml", *filter(access.allows, listed), root + "sitemap.xml"]
    for url in _unique(candidates):
        if found := _under(await _try(url, sitemap, access, reporter), base, reporter):
            return found
    reporter.note(f"no llms.txt or sitemap with pages under {base}; crawling it")
    patterns = Patterns(options.include, options.exclude)
    return await crawl.crawl(base, base, access, options, reporter, max_pages, patterns.excluded)


async def _try(
    url: str, read: Callable[[str], Awaitable[Found]], access: SiteAccess, reporter: Reporter
) -> Found | None:
    """The source at `url`, or None (saying why) when it is not there or not usable."""
    refused_before = len(access.refused)
    try:
        return await read(url)
    except FetchFailed as exc:
        if exc.status in (404, 410):
            reporter.note(f"no {url} (HTTP {exc.status})")
            return None
        if exc.status is None and len(access.refused) == refused_before:
            raise FetchFailed(f"cannot reach the site: {exc.message}") from None
        reporter.warn(f"skipped {url}: {exc.message}")
    except InvalidArgs as exc:
        reporter.warn(f"skipped {url}: {exc.message}")
    return None


def _under(found: Found | None, base: str, reporter: Reporter) -> Found | None:
    if found is None:
        return None
    above = site_base(found.location) != base
    pages = under_prefix(found.pages, base) if above else found.pages
    if len(pages) < len(found.pages):
        reporter.note(
            f"{found.location}: kept the {len(pages)} of {len(found.pages)} pages under {base}"
        )
    if not pages:
        return None
    found.pages = pages
    reporter.note(f"using {found.kind} at {found.location}: {count_pages(len(pages))}")
    return found


def _unique(urls: list[str]) -> list[str]:
    return list(dict.fromkeys(urls))
