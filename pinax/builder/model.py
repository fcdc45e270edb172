"""What a build is asked for (options, limits) and what a source yields (`Found`)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

from pinax.manifest import Heading, Page, PageText
from pinax.pages import Credentials, Limits

from .sections import Sections

TitleMode = Literal["slug", "fetch"]


@dataclass(frozen=True)
class BuildLimits:
    """Bounds on the work one build may do, whatever the site serves."""

    fetch: Limits = field(
        default_factory=lambda: Limits(total_timeout=60.0, max_bytes=50 * 1024 * 1024)
    )
    max_sitemaps: int = 200  # sitemap files read, index children included
    max_sitemap_depth: int = 3  # index -> index -> index -> urlset
    max_locs: int = 200_000  # <loc> entries read before a sitemap read stops
    max_inflated: int = 50 * 1024 * 1024  # bytes a .gz or objects.inv may inflate to
    max_followed_llms: int = 20  # other llms files one llms.txt may send us to
    published_max_pages: int = 50_000  # --max-pages default for published files
    crawl_max_pages: int = 1_000  # --max-pages default for a crawl


@dataclass(frozen=True)
class BuildOptions:
    name: str | None = None
    title: str | None = None
    site_url: str | None = None  # the site a local file describes (base of relative links)
    layout: str | None = None  # a docs folder's generator, for its pages' URLs (layouts.py)
    include: tuple[str, ...] = ()
    exclude: tuple[str, ...] = ()
    max_pages: int | None = None  # None: the source's default from BuildLimits
    titles: TitleMode = "slug"
    lang: str | None = None
    allow_hosts: tuple[str, ...] = ()
    allow_private: tuple[str, ...] = ()  # networks (CIDR) beyond PINAX_ALLOW_PRIVATE
    concurrency: int = 8
    delay: float = 0.1  # seconds between two request starts on one host
    lastmod: bool = False  # keep sitemap <lastmod> (off: it changes on every site rebuild)
    outline: bool = False  # read each page for its headings (--outline)
    previous: tuple[Page, ...] = ()  # the last build's pages (-o file): outlines to reuse
    content: bool = False  # record each page's text by section too (--content; implies outline)
    previous_texts: Mapping[str, PageText] = field(default_factory=dict)  # the last build's
    # text by page URL (its content file), reused with its outline for an unchanged page
    symbols: str | None = None  # an objects.inv (URL or file) whose symbols join the pages
    no_symbols: bool = False  # record no symbols (and look for no inventory)
    cache_dir: Path | None = None  # where a rebuild's validators (ETag, Last-Modified) live
    check: bool = False  # --check: nothing is written, not even this download's validators
    # (a later build would take the site's 304 for the new version it never recorded)
    limits: BuildLimits = field(default_factory=BuildLimits)
    credentials: Credentials | None = None  # headers for a site behind a login (--header)


@dataclass
class Found:
    """Pages one source yielded, and what it said about the site."""

    kind: str  # "llms.txt", "sitemap", "objects.inv", "crawl"
    location: str  # the URL or file it was read from
    pages: list[Page]
    title: str | None = None
    description: str | None = None
    titled: bool = True  # False: titles are guesses from URLs; --titles fetch can do better
    name: str | None = None  # the name it gives the manifest (a manifest as the source)
    previous: tuple[Page, ...] = ()  # pages whose outlines a rebuild may reuse
    outlines: dict[str, tuple[Heading, ...]] = field(default_factory=dict)  # by page URL,
    # read with the source, so the pages need no fetch of their own (llms-full.txt, a crawl)
    texts: dict[str, Sections] = field(default_factory=dict)  # by page URL, read with the
    # source too (--content): a page in `outlines` but not here is read for its text
