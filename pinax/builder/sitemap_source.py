"""Pages from a sitemap: the index tree walked within bounds, one language kept.

Bounds (`BuildLimits`): at most `max_sitemaps` files, `max_sitemap_depth` levels of index,
`max_locs` locations, `max_inflated` bytes per file. Past a bound the walk stops with a
warning and keeps what it read. A child sitemap that fails (404, HTML, malformed, another
host) is a warning; the first file failing is an error.
"""

from __future__ import annotations

from collections import Counter, deque
from urllib.parse import urlsplit

from pinax.errors import FetchFailed, InvalidArgs, PinaxError
from pinax.manifest import Page, parent_section

from . import languages
from .model import BuildOptions, Found
from .net import SiteAccess
from .report import Progress, Reporter
from .sitemap import Entry, Sitemap, parse, resolve_loc
from .sniff import gunzip_if_needed
from .urls import is_url, readable_title, site_base


async def read(
    location: str,
    access: SiteAccess,
    options: BuildOptions,
    reporter: Reporter,
    data: bytes | None = None,
    base: str | None = None,
) -> Found:
    """Read the sitemap at `location` (a URL, or a file whose bytes are `data`)."""
    walk = _Walk(access, options, reporter)
    entries = await walk.run(location, data, base)
    pages = _pages(entries, access, options, reporter)
    if walk.repairs:
        _warn_repairs(walk.repairs, location, reporter)
    # Where the sitemap was read from after redirects, as llms.txt reports it: the build
    # takes the site from there in both cases.
    return Found("sitemap", walk.read_from or location, pages, titled=False)


class _Walk:
    def __init__(self, access: SiteAccess, options: BuildOptions, reporter: Reporter) -> None:
        self.access = access
        self.limits = options.limits
        self.reporter = reporter
        self.repairs: Counter[str] = Counter()
        self.other_hosts: Counter[str] = Counter()
        self.read_from: str | None = None  # the top sitemap's URL after redirects

    async def run(self, location: str, data: bytes | None, base: str | None) -> list[Entry]:
        with self.reporter.progress("Reading sitemaps", 1) as progress:
            entries = await self._walk(location, data, base, progress)
        for host, count in sorted(self.other_hosts.items()):
            self.reporter.warn(
                f"skipped {count} sitemap entr{'y' if count == 1 else 'ies'} on {host}, another "
                f"host than the site's; allow it with --allow-host {host}"
            )
        return entries

    async def _walk(
        self, location: str, data: bytes | None, base: str | None, progress: Progress
    ) -> list[Entry]:
        entries: list[Entry] = []
        queue: deque[tuple[str, bytes | None, int]] = deque([(location, data, 0)])
        seen = {location}
        files = 0
        while queue:
            url, body, depth = queue.popleft()
            if files >= self.limits.max_sitemaps:
                self.reporter.warn(
                    f"read {files} sitemap files, the limit; {len(queue) + 1} more not read"
                )
                break
            files += 1
            try:
                sitemap, url = await self._read_one(url, body, len(entries))
            except PinaxError as exc:
                if depth == 0:
                    raise
                self.reporter.warn(f"skipped a child sitemap: {exc.message}")
                continue
            finally:
                progress.advance()
            if depth == 0 and is_url(url):
                self.read_from = url
            folder = site_base(url) if is_url(url) else base
            if sitemap.kind == "sitemapindex":
                if depth >= self.limits.max_sitemap_depth:
                    self.reporter.warn(
                        f"{url}: sitemap indexes nested deeper than "
                        f"{self.limits.max_sitemap_depth} levels; not followed"
                    )
                    continue
                for child in self._resolved(sitemap.entries, folder):
                    if child.loc not in seen:
                        seen.add(child.loc)
                        queue.append((child.loc, None, depth + 1))
                progress.set_total(min(len(seen), self.limits.max_sitemaps))
                self.reporter.note(f"{url}: sitemap index of {len(sitemap.entries)} sitemaps")
            else:
                entries.extend(self._resolved(sitemap.entries, folder))
            if sitemap.truncated or len(entries) >= self.limits.max_locs:
                self.reporter.warn(
                    f"stopped reading sitemaps at {self.limits.max_locs:,} locations (the limit)"
                )
                break
        return entries

    async def _read_one(
        self, url: str, body: bytes | None, read_so_far: int
    ) -> tuple[Sitemap, str]:
        if body is None:
            try:
                response = await self.access.get(url)
            except InvalidArgs as exc:  # refused by the allow-list before any request
                raise FetchFailed(exc.message) from None
            body, url = response.body, response.url
        body = gunzip_if_needed(body, self.limits.max_inflated, url)
        remaining = max(1, self.limits.max_locs - read_so_far)
        return parse(body, url, remaining), url

    def _resolved(self, entries: list[Entry], folder: str | None) -> list[Entry]:
        """Entries with absolute locations and alternates; other hosts counted and left out."""
        kept: list[Entry] = []
        for entry in entries:
            loc, repair = resolve_loc(entry.loc, folder)
            if repair:
                self.repairs[repair] += 1
            if loc is None:
                self.repairs["unresolved"] += 1
                continue
            if not self.access.allows(loc):
                self.other_hosts[urlsplit(loc).netloc or loc] += 1
                continue
            alternates = {}
            for lang, href in entry.alternates.items():
                resolved, _ = resolve_loc(href, folder)
                if resolved is not None:
                    alternates[lang] = resolved
            kept.append(Entry(loc, entry.lastmod, alternates))
        return kept


def _pages(
    entries: list[Entry], access: SiteAccess, options: BuildOptions, reporter: Reporter
) -> list[Page]:
    keep = languages.choose(entries, options.lang)
    dropped: set[str] = set()
    if keep is not None:
        dropped = languages.other_language_urls(entries, keep)
        found = languages.languages(entries)
        how = "--lang" if options.lang else "the site's default; choose with --lang"
        reporter.note(
            f"sitemap has {len(found)} languages ({', '.join(found)}); kept {keep} ({how}), "
            f"left out {len(dropped)} translated URLs"
        )
    pages: dict[str, Page] = {}
    for entry in entries:
        if entry.loc in dropped or entry.loc in pages:
            continue
        pages[entry.loc] = Page(
            url=entry.loc,
            title=readable_title(entry.loc),
            section=parent_section(entry.loc),
            lastmod=entry.lastmod if options.lastmod else None,
        )
    return sorted(pages.values(), key=lambda page: page.url)


def _warn_repairs(repairs: Counter[str], location: str, reporter: Reporter) -> None:
    if repairs["none"]:
        reporter.warn(
            f"{location}: {repairs['none']} locations start with 'None' (MkDocs built the "
            "sitemap without site_url); resolved them against the sitemap's folder"
        )
    if repairs["unresolved"]:
        reporter.warn(
            f"{location}: {repairs['unresolved']} locations are not absolute URLs and the "
            "site is unknown; give it with --url to keep them"
        )
    if repairs["relative"]:
        reporter.warn(
            f"{location}: {repairs['relative']} locations are not absolute URLs; resolved "
            "them against the sitemap's folder"
        )
