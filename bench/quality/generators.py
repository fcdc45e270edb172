"""How faithfully docs folders are read as their generators publish them.

    python -m bench.quality.generators DIR [DIR...] [--sitemap DIR=FILE ...] [--layout NAME]

Each DIR is a checkout of a documentation repository (or the folder holding its generator's
config). Per folder it prints: the generator found, the pages, how many URLs follow that
generator's URL rules (an independent check of shape: no source suffix, no source folder,
the generator's ending), how many of the navigation's entries that title their pages
(MkDocs `nav:`, mdBook's SUMMARY.md) name a page found, and how many of those pages carry the
navigation's title; how many sidebar labels (VitePress and Starlight sidebars, read from the
config: labels only, the pages keep their own titles) name a page found, and how many pages
are titled by their file name only (no front matter title, no H1, no label); and, with
`--sitemap DIR=FILE` (the site's published sitemap.xml of the same commit), how many of the
pages' URLs the sitemap lists and how many sitemap URLs are missing. Nothing is fetched: configs
and pages are read from disk.
"""

from __future__ import annotations

import argparse
import re
import sys
import time
from pathlib import Path
from urllib.parse import urlsplit

from pinax.builder import BuildOptions, ConsoleReporter, FolderSource

# The shape of a page's URL path (relative to the site) each generator publishes.
ENDINGS = {
    "vitepress": re.compile(r"(^|/|\.html|(^|/)[^./]+)$"),
    "mkdocs": re.compile(r"(^|/|\.html)$"),
    "sphinx": re.compile(r"\.html$"),
    "sphinx-dirhtml": re.compile(r"(^|/)$"),
    "mdbook": re.compile(r"\.html$"),
    "docusaurus": re.compile(r"(^|/[^.]*|^[^.]+)$"),
    "mintlify": re.compile(r"(^|^[^.]+)$"),
    "hugo": re.compile(r"(^|/)$"),
    "starlight": re.compile(r"(^|/)$"),
    "plain": re.compile(r".*"),
}
SOURCE_SUFFIX = re.compile(r"\.(md|mdx|markdown|rst|txt|mdoc)$", re.I)
PLACEHOLDER = "https://site.invalid/"


def file_title(path: str) -> str:
    """The title a page without one of its own gets from its file (or folder) name."""
    parts = path.split("/")
    stem = parts[-1].rpartition(".")[0] or parts[-1]
    if stem.lower() in ("index", "_index", "readme") and len(parts) > 1:
        stem = parts[-2]
    return re.sub(r"[-_]+", " ", stem).strip() or stem


def sitemap_urls(path: Path) -> set[str]:
    return set(re.findall(r"<loc>\s*([^<\s]+)\s*</loc>", path.read_text(errors="replace")))


def measure(folder: Path, sitemap: Path | None, layout: str | None = None) -> dict[str, object]:
    started = time.perf_counter()
    reporter = ConsoleReporter(quiet=True)  # warnings on stderr, and counted
    source = FolderSource(folder, BuildOptions(layout=layout))
    built = source.build(reporter)
    seconds = time.perf_counter() - started
    manifest = built.manifest
    published = manifest.url.startswith("http")
    if not published:  # the URL rules still apply under whatever site it is published on
        source = FolderSource(folder, BuildOptions(site_url=PLACEHOLDER, layout=layout))
        built = source.build(ConsoleReporter(quiet=True))
    base = built.manifest.url
    relative = [page.url.removeprefix(base) for page in built.manifest.pages]
    layout = source.layout
    if layout == "sphinx" and getattr(source.site, "directory_urls", False):
        layout = "sphinx-dirhtml"
    rule = ENDINGS.get(layout, ENDINGS["plain"])
    # The folder the pages are read from, as the repository names it: never in a URL.
    given = folder.resolve()
    inner = source.root.relative_to(given).as_posix() + "/" if source.root != given else None
    shaped = [
        path
        for path in relative
        if rule.search(urlsplit(path).path)
        and not SOURCE_SUFFIX.search(path)
        and not (inner and path.startswith(inner))
    ]
    site = source.site
    nav = site.nav_titles if site is not None else {}
    by_path = {built.files[page.url]: page for page in built.manifest.pages}
    nav_found = [(path, title) for path, title in nav.items() if path in by_path]
    nav_kept = sum(1 for path, title in nav_found if by_path[path].title == title)
    labels = site.nav_labels if site is not None else {}
    labels_found = sum(1 for path in labels if path in by_path)
    untitled = sum(1 for path, page in by_path.items() if page.title == file_title(path))
    row: dict[str, object] = {
        "folder": str(folder),
        "generator": source.layout,
        "name": manifest.name,
        "pages": len(manifest.pages),
        "site": base if published else "(none in the config; shapes checked under a placeholder)",
        "urls_shaped": f"{len(shaped)}/{len(relative)}",
        "nav_pages": f"{len(nav_found)}/{len(nav)}" if nav else "n/a",
        "nav_titles": f"{nav_kept}/{len(nav_found)}" if nav else "n/a",
        "nav_labels": f"{labels_found}/{len(labels)}" if labels else "n/a",
        "file_titles": untitled,
        "warnings": len(reporter.warnings),
        "seconds": round(seconds, 2),
    }
    if sitemap is not None:
        listed = sitemap_urls(sitemap)
        ours = {page.url for page in manifest.pages}
        row["in_sitemap"] = f"{len(ours & listed)}/{len(ours)}"
        row["sitemap_missing"] = len(listed - ours)
    odd = sorted(set(relative) - set(shaped))[:3]
    if odd:
        print(f"{folder}: off-shape URLs, e.g. {odd}", file=sys.stderr)
    return row


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("folders", nargs="+", type=Path)
    parser.add_argument("--sitemap", action="append", default=[], metavar="DIR=FILE")
    parser.add_argument("--layout", help="the generator (e.g. sphinx-dirhtml), for every DIR")
    args = parser.parse_args(argv)
    sitemaps = {}
    for item in args.sitemap:
        folder, _, file = item.partition("=")
        sitemaps[Path(folder).resolve()] = Path(file)
    keys = ["generator", "name", "pages", "urls_shaped", "nav_pages", "nav_titles", "nav_labels"]
    keys += ["file_titles", "in_sitemap"]
    keys += ["sitemap_missing", "warnings", "seconds", "site", "folder"]
    print("\t".join(keys))
    for folder in args.folders:
        try:
            row = measure(folder, sitemaps.get(folder.resolve()), args.layout)
        except Exception as exc:  # a bench reports a folder it cannot read, and goes on
            print(f"{folder}: {type(exc).__name__}: {exc}", file=sys.stderr)
            continue
        print("\t".join(str(row.get(key, "")) for key in keys))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
