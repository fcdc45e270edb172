"""Symbols for any manifest: an auxiliary `objects.inv` (`--symbols URL|FILE`) read and joined
to the pages by normalised URL.

The inventory is an extra here, not the source of the pages: whatever is wrong with it (not
an inventory, corrupt, truncated, a zip bomb, huge lines, millions of entries) costs one
warning naming it and a manifest without symbols, never the build. Reading it is bounded
as any published file is (the build's fetch and inflate limits, and the inventory reader's
own: see `pinax.builder.inventory`). A symbol whose page is not in the manifest is dropped
and counted in the build report.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

from pinax.errors import PinaxError
from pinax.manifest import Page, Symbol

from . import inventory, local
from .model import BuildOptions
from .net import SiteAccess
from .report import Reporter
from .sniff import INVENTORY_MAGIC
from .urls import clean, host_root, is_url, site_base

API_DESCRIPTION = "API: "  # what the inventory builder writes where it records no symbols


def normalised(url: str) -> str:
    """A page URL as pages and inventories are joined by: cleaned, no query, no trailing
    `index.html`, `.html` or `/` (Sphinx's `json.html` and a sitemap's `json.html` meet, and
    MkDocs' `ref/agent/` and `ref/agent/index.html`)."""
    parts = urlsplit(clean(url))
    path = parts.path
    for suffix in ("index.html", "index.htm"):
        if path.endswith("/" + suffix):
            path = path[: -len(suffix)]
    path = path.removesuffix(".html").rstrip("/")
    return urlunsplit((parts.scheme, parts.netloc, path, "", ""))


async def discover(
    base: str, access: SiteAccess, options: BuildOptions, reporter: Reporter
) -> tuple[str, dict[str, tuple[Symbol, ...]]] | None:
    """The site's own inventory, looked for at the docs root, then the host root: where it
    is found, its location and symbols. Not there (or not an inventory): None, quietly; an
    inventory that cannot be read: None and a warning."""
    candidates = list(dict.fromkeys([base + "objects.inv", host_root(base) + "objects.inv"]))
    for url in candidates:
        try:
            async with access.session():
                response = await access.get_optional(url)
        except PinaxError:
            continue
        if response is None or not response.body.startswith(INVENTORY_MAGIC):
            continue
        found = _parsed(response.body, url, site_base(response.url), options, reporter)
        return None if found is None else (url, found)
    return None


async def read(
    location: str, base: str, access: SiteAccess, options: BuildOptions, reporter: Reporter
) -> dict[str, tuple[Symbol, ...]] | None:
    """The symbols of an inventory by normalised page URL; None (and a warning) when it
    cannot be read as one. Relative links resolve against the inventory's folder (a URL) or
    the site being built (a file)."""
    try:
        if is_url(location):
            async with access.session():
                response = await access.get(location)
            body, link_base = response.body, site_base(response.url)
        else:
            body = local.read_file(Path(location), options.limits.fetch.max_bytes)
            link_base = base
    except PinaxError as exc:
        return _failed(location, exc, reporter)
    return _parsed(body, location, link_base, options, reporter)


def _parsed(
    body: bytes, location: str, link_base: str, options: BuildOptions, reporter: Reporter
) -> dict[str, tuple[Symbol, ...]] | None:
    try:
        parsed = inventory.parse(body, location, options.limits.max_inflated)
    except PinaxError as exc:
        return _failed(location, exc, reporter)
    found = inventory.symbols(parsed, link_base)
    return {normalised(url): symbols for url, symbols in found.items()}


def _failed(location: str, exc: PinaxError, reporter: Reporter) -> None:
    message = exc.message.removeprefix(f"{location}: ")
    reporter.warn(f"{location}: {message}; the manifest is built without symbols")


def join(
    pages: list[Page], by_url: dict[str, tuple[Symbol, ...]], location: str, reporter: Reporter
) -> list[Page]:
    """The pages with their symbols (replacing any recorded before, and an "API: ..."
    description); the symbols of pages not in the manifest dropped and counted."""
    joined = []
    used: set[str] = set()
    for page in pages:
        key = normalised(page.url)
        symbols = by_url.get(key, ())
        if symbols:
            used.add(key)
            description = page.description
            if description and description.startswith(API_DESCRIPTION):
                description = None
            page = replace(page, symbols=symbols, description=description)
        joined.append(page)
    total = sum(len(s) for s in by_url.values())
    kept = sum(len(by_url[key]) for key in used)
    dropped = total - kept
    message = f"{location}: {kept} symbols on {len(used)} pages"
    if dropped:
        message += f"; {dropped} dropped (on {len(by_url) - len(used)} pages not in the manifest)"
    reporter.note(message)
    return joined
