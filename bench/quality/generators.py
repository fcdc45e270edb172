"""How faithfully docs folders are read as their generators publish them.

    python -m bench.quality.generators [DIR...] [--sitemap DIR=FILE ...] [--layout NAME]
        [--mirrors /work/.mirror]

Each DIR is a checkout of a documentation repository (or the folder holding its generator's
config). Per folder it prints: the generator found, the pages, how many URLs follow that
generator's URL rules (an independent check of shape: no source suffix, no source folder,
the generator's ending), how many of the navigation's entries that title their pages
(MkDocs `nav:`, mdBook's SUMMARY.md) name a page found, and how many of those pages carry the
navigation's title; how many sidebar labels (VitePress and Starlight sidebars, read from the
config: labels only, the pages keep their own titles) name a page found; how many of the
authors' site-absolute links (`](/guide/x)`) name a page found (`links`: an independent check
of URLs; a link to a page made by code, a redirect or a non-docs route misses); and, with
`--sitemap DIR=FILE` (the site's published sitemap.xml of the same commit), how many of the
pages' URLs the sitemap lists and how many sitemap URLs are missing. `--mirrors DIR` adds
the REPOS table's repositories that DIR holds (bare git directories, as the `fetch` tool
stores them), each checked out to a scratch folder. Nothing is fetched: configs and pages
are read from disk.
"""

from __future__ import annotations

import argparse
import itertools
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
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
# Real documentation repositories, each at the folder a user points Pinax at, with the
# generator they are built by (`--mirrors DIR` reads those DIR holds, as the `fetch` tool
# stores them: DIR/<owner>+<name>/repo, a bare git directory) and the file its site
# publishes (in $PINAX_SHARED/corpora/published) when one of the same commit is kept.
REPOS: tuple[tuple[str, str, str | None], ...] = (
    ("vuejs/docs", "", None),
    ("vitejs/vite", "docs", None),
    ("vitest-dev/vitest", "docs", None),
    ("vuejs/pinia", "packages/docs", None),
    ("encode/httpx", "", None),
    ("encode/django-rest-framework", "", "django-rest-framework/sitemap.xml"),
    ("modelcontextprotocol/python-sdk", "", "mcp-python-sdk/sitemap.xml"),
    ("google/adk-docs", "", "google-adk/sitemap.xml"),
    ("Textualize/textual", "", "textual/sitemap.xml"),
    ("facebook/react-native-website", "website", None),
    ("jestjs/jest", "website", None),
    ("prettier/prettier", "website", None),
    ("gohugoio/hugoDocs", "", None),
    ("google/docsy", "docsy.dev", None),
    ("alex-shpak/hugo-book", "exampleSite", None),
    ("withastro/starlight", "docs", None),
    ("biomejs/website", "", None),
    ("tauri-apps/tauri-docs", "", None),
    ("mintlify/docs", "", None),
    ("mem0ai/mem0", "docs", None),
    ("rust-lang/rust-by-example", "", None),
    ("rust-lang/book", "", None),
    ("rust-lang/mdBook", "guide", None),
    ("pallets/flask", "docs", None),
    ("pallets/click", "docs", None),
    ("psf/requests", "docs", None),
    ("pytorch/ao", "docs", None),
)
MAX_BLOB = 3_000_000  # bytes: a bigger file in a docs repository is no page
_LINK = re.compile(r"\]\((/[^)\s#?]*)")
_ASSET = re.compile(r"\.(png|svg|jpe?g|gif|webp|ico|mp4|pdf|zip|json|ya?ml|xml|txt|css|js)$", re.I)
SOURCE_SUFFIX = re.compile(r"\.(md|mdx|markdown|rst|txt|mdoc)$", re.I)
PLACEHOLDER = "https://site.invalid/"


def checkout(git_dir: Path, into: Path) -> None:
    """The text of a bare repository's HEAD written under `into` (files over MAX_BLOB and
    blobs the store lacks are left out, as a partial clone leaves them)."""
    listing = subprocess.run(
        ["git", "--git-dir", str(git_dir), "ls-tree", "-r", "-l", "-z", "HEAD"],
        capture_output=True,
        check=True,
    ).stdout.split(b"\0")
    wanted = []
    for line in filter(None, listing):
        meta, _, path = line.partition(b"\t")
        mode, kind, sha, size = meta.split()
        if kind == b"blob" and mode != b"120000" and size.isdigit() and int(size) <= MAX_BLOB:
            wanted.append((sha, path.decode("utf-8", "replace")))
    with subprocess.Popen(
        ["git", "--git-dir", str(git_dir), "cat-file", "--batch"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
    ) as cat:
        assert cat.stdin is not None and cat.stdout is not None
        for sha, path in wanted:
            cat.stdin.write(sha + b"\n")
            cat.stdin.flush()
            head = cat.stdout.readline().split()
            if len(head) < 3 or head[1] == b"missing":
                continue
            data = cat.stdout.read(int(head[2]))
            cat.stdout.read(1)
            target = into / path
            if ".." in Path(path).parts or path.startswith("/"):
                continue
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(data)
        cat.stdin.close()


def links_resolved(source: FolderSource, built: object) -> tuple[int, int]:
    """(site-absolute Markdown links `](/x/y)` in the pages that name a page found, all of
    them, assets aside): an independent check of URLs, by the authors' own links."""
    pages = built.manifest.pages  # type: ignore[attr-defined]
    paths = {_plain(urlsplit(page.url).path) for page in pages}
    base = urlsplit(built.manifest.url).path.rstrip("/")  # type: ignore[attr-defined]
    hit = total = 0
    for page in pages:
        try:
            text = (source.root / built.files[page.url]).read_text(errors="replace")  # type: ignore[attr-defined]
        except OSError:
            continue
        for link in _LINK.findall(text):
            if _ASSET.search(link):
                continue
            total += 1
            path = _plain(link)
            hit += path in paths or _plain(base + link) in paths
    return hit, total


def _plain(path: str) -> str:
    """A URL path as links and pages may both write it: `/x/index.html`, `/x.md`, `/x/` and
    `/X` are `/x` (VitePress and Mintlify links name a page without its `.html` or index)."""
    path = path.lower().rstrip("/")
    for suffix in (".html", ".md", ".mdx", "/index"):
        path = path.removesuffix(suffix)
    return path


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
    hit, total = links_resolved(source, built)
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
        "links": f"{hit}/{total}" if total else "n/a",
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
    parser.add_argument("folders", nargs="*", type=Path)
    parser.add_argument(
        "--mirrors",
        type=Path,
        metavar="DIR",
        help="also measure the REPOS table's repositories found in DIR (<owner>+<name>/repo)",
    )
    parser.add_argument("--sitemap", action="append", default=[], metavar="DIR=FILE")
    parser.add_argument("--layout", help="the generator (e.g. sphinx-dirhtml), for every DIR")
    args = parser.parse_args(argv)
    sitemaps = {}
    for item in args.sitemap:
        folder, _, file = item.partition("=")
        sitemaps[Path(folder).resolve()] = Path(file)
    keys = ["generator", "name", "pages", "urls_shaped", "nav_pages", "nav_titles", "nav_labels"]
    keys += ["links", "in_sitemap"]
    keys += ["sitemap_missing", "warnings", "seconds", "site", "folder"]
    print("\t".join(keys))
    with tempfile.TemporaryDirectory(prefix="pinax-generators-") as scratch:
        folders = [(folder, sitemaps.get(folder.resolve())) for folder in args.folders]
        mirrored = _mirrored(args.mirrors, Path(scratch)) if args.mirrors else iter(())
        for folder, sitemap in itertools.chain(folders, mirrored):  # one checkout at a time
            try:
                row = measure(folder, sitemap, args.layout)
            except Exception as exc:  # a bench reports a folder it cannot read, and goes on
                print(f"{folder}: {type(exc).__name__}: {exc}", file=sys.stderr)
                continue
            print("\t".join(str(row.get(key, "")) for key in keys), flush=True)
    return 0


def _mirrored(mirrors: Path, scratch: Path) -> Iterator[tuple[Path, Path | None]]:
    """The REPOS table's folders, each checked out from `mirrors` when asked for."""
    shared = os.environ.get("PINAX_SHARED")
    for repo, folder, sitemap in REPOS:
        git_dir = mirrors / repo.replace("/", "+") / "repo"
        if not git_dir.is_dir():
            print(f"{repo}: not in {mirrors}, skipped", file=sys.stderr)
            continue
        into = scratch / repo.replace("/", "+")
        checkout(git_dir, into)
        published = Path(shared, "corpora", "published", sitemap) if shared and sitemap else None
        yield into / folder, published if published and published.is_file() else None
        shutil.rmtree(into, ignore_errors=True)


if __name__ == "__main__":
    raise SystemExit(main())
