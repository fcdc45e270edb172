"""`build(source)`: a manifest from a site URL, or from a file the site publishes.

A source is a site URL (discovered: see discover.py), the URL of a published file
(`llms.txt`, `sitemap.xml[.gz]`, a sitemap index, `objects.inv`), such a file on disk
(its kind read from its first bytes; give the site with `--url` when its links are
relative), or a folder of documentation sources (see folder.py). The result is validated
exactly as `pinax serve` will load it.
"""

from __future__ import annotations

import re
from dataclasses import replace
from pathlib import Path
from urllib.parse import urlsplit

from pinax import manifest as manifest_io
from pinax.errors import InvalidArgs
from pinax.manifest import NAME_PATTERN, Manifest, Page, PageText
from pinax.pages import AddressPolicy, Origin, origin_of

from . import inventory, llms_source, llmstxt, local, sitemap_source, symbols
from .discover import discover
from .folder import FolderSource
from .model import BuildOptions, Found
from .net import SiteAccess
from .outlines import Validators, read_pages
from .report import Reporter
from .select import Patterns, select
from .site_versions import VersionList, folder_versions, site_versions
from .sniff import sniff
from .titles import fetch_titles
from .urls import default_name, display_site, is_url, origins_for_host, site_base

_SITEMAP_NAME = re.compile(r"sitemap[^/]*\.(xml|txt)(\.gz)?$|\.xml(\.gz)?$", re.I)


def kind_from_name(path: str) -> str | None:
    """The published file a URL or file name says it is, or None (a site to discover)."""
    name = path.rsplit("/", 1)[-1].lower()
    if name == "objects.inv":
        return "objects.inv"
    if llmstxt.is_llms_file("/" + name):
        return "llms.txt"
    if _SITEMAP_NAME.search(name):
        return "sitemap"
    return None


def run_build(
    source: str, options: BuildOptions, reporter: Reporter, texts: list[PageText] | None = None
) -> Manifest:
    """`build` run to its end, for a command. The manifest is kept off the asyncio task:
    as Python 3.11's runner ends, it asks `signal.getsignal` about a handler that names the
    task, whose repr (its result included) is made and thrown away, and for 10,000 pages
    with their outlines that took most of a second."""
    import asyncio

    box: list[Manifest] = []

    async def inner() -> None:
        box.append(await build(source, options, reporter, texts))

    asyncio.run(inner())
    return box[0]


def list_versions(source: str, options: BuildOptions, reporter: Reporter) -> VersionList | None:
    """The versions a docs site or folder publishes (see `site_versions`), or None."""
    if not is_url(source):
        folder = Path(source)
        return folder_versions(folder, options.site_url, reporter) if folder.is_dir() else None
    import asyncio

    async def inner() -> VersionList | None:
        access = _access({origin_of(source)}, options)
        async with access.session():
            return await site_versions(source, access, reporter)

    return asyncio.run(inner())


async def build(
    source: str, options: BuildOptions, reporter: Reporter, texts: list[PageText] | None = None
) -> Manifest:
    """The manifest; with `--content` (which implies `--outline`) each page's text by
    section is added to `texts`, in the manifest's page order."""
    if options.content and not options.outline:
        options = replace(options, outline=True)
    if not is_url(source) and Path(source).is_dir():  # a docs folder: nothing to fetch
        folder = FolderSource(Path(source), options)
        built = folder.build(reporter)
        if texts is not None:
            texts.extend(folder.texts(built))
        return built.manifest
    if is_url(source):
        found, base, access = await _from_url(source, options, reporter)
    else:
        found, base, access = await _from_file(Path(source), options, reporter)
    max_pages = options.max_pages or options.limits.published_max_pages
    pages = select(found.pages, Patterns(options.include, options.exclude), max_pages, reporter)
    if not pages:
        raise InvalidArgs(f"{found.location}: no pages to build a manifest from")
    pages = await _with_symbols(pages, found, base, access, options, reporter, is_url(source))
    site_title = None
    if options.titles == "fetch" and found.titled:
        reporter.note(f"titles come from the {found.kind}; nothing to fetch for them")
        if options.outline:  # titles as the source gave them; the pages read for outlines
            options = replace(options, titles="slug")
    known = options.title or found.title
    if options.outline:
        previous = {page.url: page for page in (*found.previous, *options.previous)}
        validators = Validators.for_site(options.cache_dir, display_site(base))
        pages, site_title = await read_pages(
            pages,
            access,
            options,
            reporter,
            previous,
            validators,
            found.outlines,
            known,
            texts,
            found.texts,
        )
    elif options.titles == "fetch" and not found.titled:
        pages, site_title = await fetch_titles(pages, access, options, reporter, known)
    name = options.name or found.name or default_name(base)
    if not NAME_PATTERN.match(name):
        raise InvalidArgs(f"--name {name!r} is not a valid name (letters, digits, '.', '_', '-')")
    result = Manifest(
        name=name,
        url=display_site(base),
        title=options.title or found.title or site_title or name,
        pages=tuple(pages),
        description=found.description,
    )
    # Validate as `pinax serve` will load it: a build never hands over a file that won't load.
    return manifest_io.loads(manifest_io.dump(result), f"<build of {source}>")


async def _with_symbols(
    pages: list[Page],
    found: Found,
    base: str,
    access: SiteAccess,
    options: BuildOptions,
    reporter: Reporter,
    online: bool,
) -> list[Page]:
    """The pages with the symbols of `--symbols`, or else of the site's own inventory (looked
    for when the pages came from the network and from something else than an inventory)."""
    if options.no_symbols:
        return pages
    if options.symbols:
        by_url = await symbols.read(options.symbols, base, access, options, reporter)
        return pages if by_url is None else symbols.join(pages, by_url, options.symbols, reporter)
    if found.kind in ("objects.inv", "manifest") or not online:
        return pages
    discovered = await symbols.discover(base, access, options, reporter)
    if discovered is None:
        return pages
    location, by_url = discovered
    return symbols.join(pages, by_url, location, reporter)


async def _from_url(
    source: str, options: BuildOptions, reporter: Reporter
) -> tuple[Found, str, SiteAccess]:
    base = site_base(options.site_url or source)
    access = _access({origin_of(source), origin_of(base)}, options)
    kind = kind_from_name(urlsplit(source).path)
    async with access.session():
        if kind is None:
            max_pages = options.max_pages or options.limits.crawl_max_pages
            return await discover(base, access, options, reporter, max_pages), base, access
        if kind == "sitemap":
            found = await sitemap_source.read(source, access, options, reporter)
        else:
            response = await access.get(source)
            found = await _read_published(
                kind, response.url, response.body, base, access, options, reporter
            )
    if not options.site_url:  # every published file: the site is where it was served from
        base = site_base(found.location)
    return found, base, access


async def _from_file(
    path: Path, options: BuildOptions, reporter: Reporter
) -> tuple[Found, str, SiteAccess]:
    body = local.read_file(path, options.limits.fetch.max_bytes)
    kind = sniff(body)
    location = str(path)
    if kind == "manifest":
        return _from_manifest(path, body, options, reporter)
    if kind == "html":
        raise InvalidArgs(f"{path} is an HTML page, not an llms.txt, sitemap or objects.inv")
    site = options.site_url or local.site_of(kind, body, location, options.limits)
    if site is None:
        raise InvalidArgs(
            f"{path}: cannot tell which site it describes (its links are relative); "
            "give the site with --url https://..."
        )
    base = site_base(site)
    reporter.note(f"{path}: read as {kind} for the site {display_site(base)}")
    access = _access({origin_of(base)}, options)
    async with access.session():
        return (
            await _read_published(kind, location, body, base, access, options, reporter),
            base,
            access,
        )


def _from_manifest(
    path: Path, body: bytes, options: BuildOptions, reporter: Reporter
) -> tuple[Found, str, SiteAccess]:
    """A manifest built earlier as the source: its pages as they are, for `--outline` (or
    `--titles fetch`) to add what it lacks. Its outlines are the ones a rebuild reuses."""
    try:
        text = body.decode("utf-8")
    except UnicodeDecodeError:
        raise InvalidArgs(f"{path}: not UTF-8 text") from None
    earlier = manifest_io.loads(text, str(path))
    if not (options.outline or options.titles == "fetch" or options.symbols):
        raise InvalidArgs(
            f"{path} is already a Pinax manifest; give --outline, --titles fetch or "
            "--symbols to add to it, or a site or published file to build from"
        )
    base = site_base(options.site_url or earlier.url)
    reporter.note(f"{path}: a manifest of {len(earlier.pages)} pages for {display_site(base)}")
    origins = {origin_of(base)} | {origin_of(page.url) for page in earlier.pages[:1]}
    access = _access(origins, options)
    found = Found(
        "manifest",
        str(path),
        list(earlier.pages),
        title=earlier.title,
        description=earlier.description,
        titled=options.titles != "fetch",
        name=earlier.name,
        previous=earlier.pages,
    )
    return found, base, access


async def _read_published(
    kind: str,
    location: str,
    body: bytes,
    base: str,
    access: SiteAccess,
    options: BuildOptions,
    reporter: Reporter,
) -> Found:
    link_base = location if is_url(location) else base
    if kind == "llms.txt":
        return await llms_source.read(location, body, link_base, access, options, reporter)
    if kind == "objects.inv":
        parsed = inventory.parse(body, location, options.limits.max_inflated)
        pages = inventory.pages(parsed, site_base(link_base), not options.no_symbols)
        reporter.note(f"{location}: {len(parsed.items)} inventory entries, {len(pages)} documents")
        return Found("objects.inv", location, pages, title=parsed.project)
    return await sitemap_source.read(location, access, options, reporter, data=body, base=base)


def _access(origins: set[Origin], options: BuildOptions) -> SiteAccess:
    if options.symbols and is_url(options.symbols):  # the inventory named: allowed too
        origins = origins | {origin_of(options.symbols)}
    for host in options.allow_hosts:
        origins |= origins_for_host(host)
    addresses = AddressPolicy.from_env(options.allow_private)
    return SiteAccess(origins, options.limits.fetch, options.delay, addresses, options.credentials)
