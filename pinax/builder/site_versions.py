"""The versions a docs site or folder publishes, so `pinax build --versions` can list them and
build one manifest per version.

Read, in order, where each generator writes them:

- mike (MkDocs): `versions.json` at the root of the deployed site, beside one folder per
  version: `[{"version": "1.1", "title": "1.1 (latest)", "aliases": ["latest"]}, ...]`. It is
  looked for in the folder of the URL given and each folder above it, up to the host root.
- Read the Docs: a URL `/<lang>/<version>/` asks its addons API
  (`/_/addons/?api-version=1&project-slug=...&version-slug=...`: `versions.active`, each with
  its `slug` and `urls.documentation`), else the links of the `/<lang>/` index page and of the
  page itself (a flyout rendered into the HTML) to `/<lang>/<version>/`.
- Docusaurus (a folder): `versions.json` (`["3.1.0", "3.0.0"]`, newest first) beside
  `versioned_docs/version-<v>/`; the current `docs/` is the label `next`.

Everything read is untrusted: size-limited (`MAX_LIST_BYTES`), at most `MAX_VERSIONS`
versions, and a version that is not a version string (`../x`, `a/b`, 200 characters) is left
out with a warning, so a version can never name a path outside the build's output folder.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import urlencode, urljoin, urlsplit

from pinax.errors import FetchFailed, InvalidArgs
from pinax.files import SpecialFile, read_regular
from pinax.manifest import NAME_PATTERN, VERSION_PATTERN

from .net import SiteAccess
from .report import Reporter

MAX_VERSIONS = 200  # more than any real site publishes (Django: about 40, Python: 20)
MAX_LIST_BYTES = 1 << 20  # a versions.json or an index page of links
MAX_PATH_DEPTH = 8  # folders above the URL where mike's versions.json is looked for
_RTD_PATH = re.compile(r"^(/(?:[^/]+/)*?)([a-z]{2}(?:[-_][a-zA-Z]{2,4})?)/([^/]+)/")


@dataclass(frozen=True)
class Published:
    """One version a site publishes: as it names it, where its docs are (a URL or a folder),
    its aliases (`latest`, `stable`), and for a folder the URL its pages are served at."""

    version: str
    source: str
    aliases: tuple[str, ...] = ()
    site_url: str | None = None


@dataclass(frozen=True)
class VersionList:
    """The versions one source publishes, newest first as it lists them, and where it said
    so (`kind`: `mike`, `Read the Docs`, `Docusaurus`)."""

    kind: str
    where: str
    versions: tuple[Published, ...]


def folder_versions(folder: Path, site_url: str | None, reporter: Reporter) -> VersionList | None:
    """A Docusaurus site folder's versions (`folder` or its parent holds `versions.json`).
    `site_url` is where the newest version's docs are served (`https://site/docs/`): the
    others are under it (`.../docs/3.0.0/`), the current docs at `.../docs/next/`."""
    for root in (folder, folder.parent):
        listed = root / "versions.json"
        if listed.is_file():
            break
    else:
        return None
    try:
        names = json.loads(read_regular(listed, MAX_LIST_BYTES))
    except (OSError, SpecialFile, ValueError, RecursionError) as exc:
        raise InvalidArgs(f"{listed}: not a Docusaurus versions.json ({exc})") from None
    if not isinstance(names, list) or not all(isinstance(n, str) for n in names):
        raise InvalidArgs(f"{listed}: a Docusaurus versions.json is a list of version strings")
    base = (site_url.rstrip("/") + "/") if site_url else None
    found: list[Published] = []
    for at, name in enumerate(_bounded(names, str(listed), reporter)):
        if not _valid(name, str(listed), reporter):
            continue
        docs = root / "versioned_docs" / f"version-{name}"
        if not docs.is_dir():
            reporter.warn(f"{listed}: version {name} has no folder versioned_docs/version-{name}")
            continue
        url = None if base is None else (base if at == 0 else f"{base}{name}/")
        found.append(Published(name, str(docs), site_url=url))
    current = root / "docs"
    if current.is_dir():
        found.append(Published("next", str(current), site_url=f"{base}next/" if base else None))
    return VersionList("Docusaurus", str(listed), tuple(found))


async def site_versions(url: str, access: SiteAccess, reporter: Reporter) -> VersionList | None:
    """The versions a docs site publishes (mike, then Read the Docs), or None."""
    found = await _mike(url, access, reporter)
    if found is None:
        found = await _read_the_docs(url, access, reporter)
    return found


def choose(listing: VersionList, spec: str) -> list[Published]:
    """The versions `--versions` asks for: `all`, or a comma list (`4.2,5.2`) each matched to
    one published version by its name, an alias, or the one version rule (`5` matches `5.2`
    when that is the only 5.x); one not published is an error naming those that are."""
    if spec.strip().lower() == "all":
        return list(listing.versions)
    chosen: list[Published] = []
    for asked in (part.strip() for part in spec.split(",")):
        if not asked:
            continue
        found = _one(listing, asked)
        if found not in chosen:
            chosen.append(found)
    if not chosen:
        raise InvalidArgs("--versions: name versions (4.2,5.2), or all, or list")
    return chosen


def output_file(folder: Path, name: str, version: str) -> Path:
    """`folder/NAME@VERSION.json`, checked to stay inside `folder` whatever the names."""
    if not NAME_PATTERN.fullmatch(name) or not VERSION_PATTERN.fullmatch(version):
        raise InvalidArgs(f"{name}@{version}: not a name and version a file may be named by")
    path = folder / f"{name}@{version}.json"
    if path.resolve().parent != folder.resolve():
        raise InvalidArgs(f"{name}@{version}: would be written outside {folder}")
    return path


def _one(listing: VersionList, asked: str) -> Published:
    for published in listing.versions:
        if asked == published.version or asked in published.aliases:
            return published
    candidates = [p for p in listing.versions if _numbers_prefix(asked, p.version)]
    if len(candidates) == 1:
        return candidates[0]
    shown = ", ".join(p.version for p in listing.versions) or "none"
    raise InvalidArgs(f"--versions {asked}: not published by {listing.where}; published: {shown}")


async def _mike(url: str, access: SiteAccess, reporter: Reporter) -> VersionList | None:
    parts = urlsplit(url)
    folders = parts.path.split("/")[1:-1] if parts.path else []
    for depth in range(min(len(folders), MAX_PATH_DEPTH), -1, -1):
        base = f"{parts.scheme}://{parts.netloc}/" + "".join(f + "/" for f in folders[:depth])
        listed = base + "versions.json"
        body = await _optional(access, listed)
        if body is None:
            continue
        try:
            entries = json.loads(body)
        except (ValueError, RecursionError):
            continue  # an HTML page served for any path is not a versions.json
        if not isinstance(entries, list) or not all(isinstance(e, dict) for e in entries):
            continue
        found = []
        for entry in _bounded(entries, listed, reporter):
            version, aliases = entry.get("version"), entry.get("aliases")
            aliases = aliases if isinstance(aliases, list) else []
            if not isinstance(version, str) or not _valid(version, listed, reporter):
                continue
            kept = tuple(a for a in aliases if isinstance(a, str) and VERSION_PATTERN.fullmatch(a))
            found.append(Published(version, f"{base}{version}/", kept))
        return VersionList("mike", listed, tuple(found))
    return None


async def _read_the_docs(url: str, access: SiteAccess, reporter: Reporter) -> VersionList | None:
    parts = urlsplit(url)
    path = parts.path if parts.path.endswith("/") else parts.path + "/"
    placed = _RTD_PATH.match(path)
    if placed is None:
        return None
    prefix, lang, current = placed[1], placed[2], placed[3]
    origin = f"{parts.scheme}://{parts.netloc}"
    project = parts.netloc.split(".")[0].split(":")[0]
    query = {"api-version": "1", "client-version": "0.0.0", "project-slug": project}
    query |= {"version-slug": current, "url": url}
    api = f"{origin}/_/addons/?{urlencode(query)}"
    found = _addons(await _optional(access, api), api, reporter)
    if found is not None:
        return found
    index = f"{origin}{prefix}{lang}/"
    links: dict[str, str] = {}
    for page in (index, url):
        body = await _optional(access, page)
        if body is None:
            continue
        for href in _links(body.decode("utf-8", errors="replace")):
            target = urlsplit(urljoin(page, href))
            if target.netloc != parts.netloc:
                continue
            inside = _RTD_PATH.match(target.path + ("" if target.path.endswith("/") else "/"))
            if inside and (inside[1], inside[2]) == (prefix, lang):
                links.setdefault(inside[3], f"{origin}{prefix}{lang}/{inside[3]}/")
    if not links:
        return None
    names = [v for v in _bounded(list(links), index, reporter) if _valid(v, index, reporter)]
    return VersionList("Read the Docs", index, tuple(Published(v, links[v]) for v in names))


def _addons(body: bytes | None, where: str, reporter: Reporter) -> VersionList | None:
    """Read the Docs' addons answer: `{"versions": {"active": [{"slug", "urls":
    {"documentation"}}]}}`."""
    if body is None:
        return None
    try:
        data = json.loads(body)
    except (ValueError, RecursionError):
        return None
    versions = data.get("versions") if isinstance(data, dict) else None
    active = versions.get("active") if isinstance(versions, dict) else None
    if not isinstance(active, list):
        return None
    found = []
    for entry in _bounded(active, where, reporter):
        slug = entry.get("slug") if isinstance(entry, dict) else None
        urls = entry.get("urls") if isinstance(entry, dict) else None
        docs = urls.get("documentation") if isinstance(urls, dict) else None
        if not isinstance(slug, str) or not isinstance(docs, str):
            continue
        if _valid(slug, where, reporter) and urlsplit(docs).scheme in ("http", "https"):
            found.append(Published(slug, docs))
    return VersionList("Read the Docs", where, tuple(found))


async def _optional(access: SiteAccess, url: str) -> bytes | None:
    """A file's bytes, or None when it is missing, refused, or larger than a list can be."""
    try:
        response = await access.get_optional(url)
    except (FetchFailed, InvalidArgs):
        return None
    if response is None or len(response.body) > MAX_LIST_BYTES:
        return None
    return response.body


def _bounded(items: list, where: str, reporter: Reporter) -> list:
    if len(items) > MAX_VERSIONS:
        reporter.warn(f"{where}: {len(items)} versions; only the first {MAX_VERSIONS} are read")
    return items[:MAX_VERSIONS]


def _numbers_prefix(asked: str, version: str) -> bool:
    """Whether `asked`'s release numbers lead `version`'s (`5` of `5.2`, `v1` of `1.4.2`)."""
    mine, theirs = asked.strip().lstrip("vV").split("."), version.lstrip("vV").split(".")
    numbered = all(part.isdigit() for part in mine)
    return numbered and len(mine) <= len(theirs) and theirs[: len(mine)] == mine


def _valid(version: str, where: str, reporter: Reporter) -> bool:
    """Whether a published version is a version string as a manifest takes it (one name: a
    letter or digit first, no `/`, so never `..` or a path)."""
    ok = bool(VERSION_PATTERN.fullmatch(version))
    if not ok:
        reporter.warn(f"{where}: {version[:60]!r} is not a version; left out")
    return ok


class _Links(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.hrefs: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag == "a" and len(self.hrefs) < MAX_VERSIONS * 50:
            href = dict(attrs).get("href")
            if href:
                self.hrefs.append(href)


def _links(html: str) -> list[str]:
    parser = _Links()
    parser.feed(html)
    return parser.hrefs
