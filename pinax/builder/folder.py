"""A folder of documentation sources as a manifest: `pinax build ./docs`, `serve --docs ./docs`.

Sources: Markdown and MDX (`.md`, `.mdx`, `.markdown`), reStructuredText (`.rst`; `.txt` too
in a Sphinx folder, one with a `conf.py` or built `--layout sphinx`) and HTML. Each file is
one page: its title is front matter `title`, else its first H1 (a reST document's title),
else its file name; its outline the headings below; `description` from front matter. Front
matter is never part of the text. A page marked `draft: true` is left out, as its generator
would.

Pages are addressed by the URL their generator would publish (see layouts.py) under `--url`,
else by the `file:` URL of the file itself. What a docs tool would not publish is skipped
(see ignore.py); a symlink that leads out of the folder is skipped, never followed.

`FolderSource` keeps what it read by (path, size, mtime), so a rebuild after a change reads
only the changed files: what `pinax serve` does when a watched folder changes.
"""

from __future__ import annotations

import os
import re
import stat
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime
from pathlib import Path
from urllib.parse import urljoin

from pinax import manifest as manifest_io
from pinax.errors import InvalidArgs, PinaxError
from pinax.files import SpecialFile, read_regular
from pinax.manifest import (
    MAX_HEADING_LENGTH,
    MAX_SYMBOLS,
    NAME_PATTERN,
    SYMBOL_KINDS,
    Heading,
    Manifest,
    Page,
    PageText,
    Symbol,
    parent_section,
)
from pinax.pages import SourcePage, source_page

from . import generators, ignore, layouts
from .generators import slugs
from .markdown_outline import markdown_outline
from .model import BuildOptions
from .report import Reporter, count_pages
from .sections import Sections, split
from .select import Patterns
from .suffixes import SOURCE_SUFFIXES
from .urls import is_url, site_base

HTML = frozenset({".html", ".htm"})
MAX_REMEMBERED = 500_000  # ignore verdicts kept between looks at the folder
SCAN_FACTOR = 4  # source files looked at per page kept (room for --include/--exclude)
MAX_FILE_BYTES = 10 * 1024 * 1024  # get_page's limit: a page it could not read is no page
_GENERIC = frozenset({"docs", "doc", "documentation", "content", "src", "source", "pages"})
_NAME_JUNK = re.compile(r"[^A-Za-z0-9._-]+")

Signature = tuple[int, int, int]  # (size, mtime_ns, inode)
_DRAFT = Page(url="file:///", title="draft", section="/")  # a page left out: `draft: true`


@dataclass(frozen=True)
class Parsed:
    """What one file says about its page, before its URL is known."""

    title: str
    description: str | None
    outline: tuple[Heading, ...]
    meta: dict[str, str]
    symbols: tuple[Symbol, ...] = ()
    untitled: bool = False  # the title is the file's name: the page names none itself


@dataclass
class FolderBuild:
    """A folder's manifest and, for get_page, each page's file (path inside the folder)."""

    manifest: Manifest
    files: dict[str, str]


@dataclass
class FolderSource:
    """One docs folder, rebuilt cheaply: unchanged files are not read again."""

    root: Path
    options: BuildOptions = field(default_factory=BuildOptions)
    _known: dict[str, tuple[Signature, Page | None]] = field(default_factory=dict)
    _texts: dict[str, tuple[Signature, PageText]] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if not self.root.is_dir():
            raise InvalidArgs(f"{self.root}: not a folder")
        self.root = self.root.resolve()
        self.given = self.root  # the folder as given (its config may move `root`)
        layout = self.options.layout
        named = layouts.LAYOUTS + generators.GENERATORS + tuple(generators.VARIANTS)
        if layout is not None and layout not in named:
            known = ", ".join(dict.fromkeys(generators.GENERATORS + layouts.LAYOUTS))
            known += ", " + ", ".join(generators.VARIANTS)
            raise InvalidArgs(f"--layout {layout!r} is not one of {known}")
        # The generator's own config, when the folder has one (`--layout plain`: none).
        self.site = None if layout in ("plain",) else _site_of(self.root, layout)
        self.prefix = ""  # the read folder's path inside the site's pages folder
        if self.site is not None and self.site.source.is_dir():
            self.root, self.prefix = self.site.served_from(self.root)
        self.layout = (
            self.site.generator
            if self.site is not None
            else layout or (layouts.detect(self.root) if self.options.site_url else "plain")
        )
        self.text_is_rst = (
            self.layout in ("sphinx", "sphinx-dirhtml") or (self.root / "conf.py").is_file()
        )
        self.slug_rule = self.site.slug_rule if self.site is not None else "github"
        self.failed: dict[str, str] = {}  # path -> why it could not be parsed
        self._told: set[str] = set()  # failed paths already warned about
        self._warned = False
        self.reads = 0  # files read (parsed) since creation: a rebuild reads only changes
        # The .gitignore files seen together (folder, text) -> a number, and the ignore
        # verdicts by (that number, path, is a folder).
        self._rule_sets: dict[tuple[tuple[tuple[str, ...], str], ...], int] = {}
        self._verdicts: dict[tuple[int, tuple[str, ...], bool], bool] = {}

    def signature(self) -> tuple[tuple[str, Signature], ...]:
        """The folder's source files and their stat: any change to a page changes this."""
        return tuple(self.scan())

    def scan(self) -> Iterator[tuple[str, Signature]]:
        """(path inside the folder, signature) of each source file, in a stable order; at
        most `SCAN_FACTOR` x the page limit of them (a folder of a million files is not read
        to the end to keep 50,000 pages)."""
        left = SCAN_FACTOR * (self.options.max_pages or self.options.limits.published_max_pages)
        rules: list[ignore.Rule] = []
        applied: tuple[tuple[tuple[str, ...], str], ...] = ()  # the .gitignore files so far
        version = self._rule_sets.setdefault(applied, len(self._rule_sets))
        budget = ignore.MAX_RULES
        real_root = str(self.root)
        stack: list[tuple[str, ...]] = [()]
        while stack:
            parts = stack.pop()
            folder = os.path.join(real_root, *parts)
            try:
                with os.scandir(folder) as listing:
                    entries = sorted(listing, key=lambda e: e.name)
            except OSError:
                continue
            gitignore = next((e for e in entries if e.name == ".gitignore"), None)
            if gitignore is not None and budget > 0:
                text = _small_text(gitignore.path)
                found = ignore.parse_gitignore(text, parts, budget)
                rules = [*rules, *found]
                budget -= len(found)
                applied = (*applied, (parts, text))
                version = self._rule_sets.setdefault(applied, len(self._rule_sets))
            folders = []
            for entry in entries:
                if ignore.skipped_name(entry.name, top=not parts):
                    continue
                path = (*parts, entry.name)
                try:
                    is_link = entry.is_symlink()
                    info = os.stat(entry.path) if is_link else entry.stat(follow_symlinks=False)
                except OSError:
                    continue
                if stat.S_ISDIR(info.st_mode):
                    if not is_link and not (rules and self._ignored(rules, version, path, True)):
                        folders.append(path)
                    continue  # a linked folder is not followed: it may loop or lead out
                if not stat.S_ISREG(info.st_mode) or not self._is_source(entry.name):
                    continue
                if self.site is not None and not self.site.is_page(self.prefix + "/".join(path)):
                    continue
                if is_link and not _inside(entry.path, real_root):
                    continue
                if rules and self._ignored(rules, version, path, False):
                    continue
                yield "/".join(path), (info.st_size, info.st_mtime_ns, info.st_ino)
                left -= 1
                if not left:
                    return
            stack.extend(reversed(folders))

    def _ignored(
        self, rules: list[ignore.Rule], version: int, path: tuple[str, ...], is_folder: bool
    ) -> bool:
        """`ignore.ignored`, remembered while the .gitignore files stay the same: a watcher
        looks at the folder every fraction of a second, and the answers do not change."""
        key = (version, path, is_folder)
        verdict = self._verdicts.get(key)
        if verdict is None:
            if len(self._verdicts) > MAX_REMEMBERED:
                self._verdicts.clear()
            verdict = self._verdicts[key] = ignore.ignored(rules, path, is_folder)
        return verdict

    def _is_source(self, name: str) -> bool:
        suffix = os.path.splitext(name)[1].lower()
        if self.site is not None:
            return suffix in self.site.suffixes
        return suffix in SOURCE_SUFFIXES or (suffix == ".txt" and self.text_is_rst)

    def build(
        self,
        reporter: Reporter,
        scanned: Iterable[tuple[str, Signature]] | None = None,
    ) -> FolderBuild:
        """The folder's manifest now, re-reading only files changed since the last build;
        `scanned`: a `signature()` just taken (a watcher's look), instead of a new scan."""
        options = self.options
        patterns = Patterns(options.include, options.exclude)
        max_pages = options.max_pages or options.limits.published_max_pages
        if options.site_url and not is_url(options.site_url):
            raise InvalidArgs(f"--url {options.site_url!r} is not an http(s) URL")
        if self.site is not None and not self._warned:
            self._warned = True
            for warning in self.site.warnings:
                reporter.warn(warning)
        published = self.published_url()
        site = site_base(published) if published else self.root.as_uri() + "/"
        known: dict[str, tuple[Signature, Page | None]] = {}
        pages: list[Page] = []
        files: dict[str, str] = {}
        filtered = unread = drafts = 0
        for path, signature in self.scan() if scanned is None else scanned:
            if not patterns.keeps("/" + path):
                filtered += 1
                continue
            previous = self._known.get(path)
            page = previous[1] if previous and previous[0] == signature else self._page(path, site)
            known[path] = (signature, page)
            if page is None:
                unread += 1
                continue
            if page is _DRAFT:
                drafts += 1
                continue
            if page.url in files:
                continue  # two files published at one URL: the first (in path order) wins
            files[page.url] = path
            pages.append(page)
            if len(pages) >= max_pages:
                reporter.warn(f"kept the first {max_pages:,} pages (--max-pages {max_pages})")
                break
        self._known = known
        if filtered:
            reporter.note(f"--include/--exclude left out {count_pages(filtered)}")
        if drafts:
            reporter.note(f"{count_pages(drafts)} marked draft: true left out")
        failed = [path for path in known if path in self.failed]
        unread -= len(failed)
        failed = [path for path in failed if path not in self._told]  # said once, not per rebuild
        self._told.update(failed)
        for path in failed[:5]:
            reporter.warn(f"skipped {self.root / path}: {self.failed[path]}")
        if len(failed) > 5:
            reporter.warn(f"skipped {len(failed) - 5} more files that could not be parsed")
        if unread:
            reporter.warn(f"{unread} files could not be read (too big, or not readable)")
        if not pages:
            raise InvalidArgs(f"{self.root}: no documentation files (.md, .mdx, .rst, .html)")
        name = options.name or (self.site and self.site.name) or folder_name(self.given)
        if not NAME_PATTERN.match(name):
            raise InvalidArgs(
                f"--name {name!r} is not a valid name (letters, digits, '.', '_', '-')"
            )
        result = Manifest(
            name=name,
            url=site,
            title=options.title or (self.site and self.site.title) or name,
            pages=tuple(pages),
            source=str(self.root),
        )
        return FolderBuild(result, files)

    def texts(self, built: FolderBuild) -> list[PageText]:
        """Each page's text by section (for `--content`, and for searching a served folder's
        text), read from its file as the outline was: front matter left out, reST as
        Markdown, HTML through get_page's extraction; `fetched_at` is the file's modification
        time. A file unchanged since the last call is not read again."""
        found = []
        kept: dict[str, tuple[Signature, PageText]] = {}
        for page in built.manifest.pages:
            path = built.files[page.url]
            signature = self._known[path][0] if path in self._known else None
            previous = self._texts.get(path)
            if previous is not None and previous[0] == signature and previous[1].url == page.url:
                text = previous[1]
            else:
                text = self._text(path, page)
                if text is None:
                    continue
            if signature is not None:
                kept[path] = (signature, text)
            found.append(text)
        self._texts = kept
        return found

    def _text(self, path: str, page: Page) -> PageText | None:
        try:
            body = read_regular(self.root / path, MAX_FILE_BYTES)
            changed = os.stat(self.root / path).st_mtime
        except (OSError, SpecialFile):
            return None
        sections = source_sections(path, body, self.root, self.slug_rule)
        when = datetime.fromtimestamp(changed, tz=UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
        return PageText(page.url, sections.titled(page.title), when)

    def published_url(self) -> str | None:
        """The site the pages are published on: `--url`, else the one the config names."""
        if self.options.site_url:
            return self.options.site_url
        return self.site.site_url if self.site is not None else None

    def _page(self, path: str, site: str) -> Page | None:
        """One file's page, validated as `pinax serve` will load it (each page once, when
        read: a rebuild after one change validates one page); None if it cannot be read.
        A file that cannot be parsed (nested beyond any parser's depth, malformed) is
        recorded in `failed`, and the rest of the folder is served without it."""
        self.failed.pop(path, None)
        try:
            parsed = self._read(path)
            if parsed is None:
                return None
            if parsed.meta.get("draft", "").lower() == "true":
                return _DRAFT
            url = self._url(path, site, parsed)
            title = parsed.title
            if self.site is not None:
                title = self.site.nav_titles.get(self.prefix + path) or title
                if parsed.untitled and title == parsed.title:  # a sidebar label, at least
                    title = self.site.nav_label(self.prefix + path, parsed.meta) or title
            folder = path.rpartition("/")[0]
            page = Page(
                url=url,
                title=title[:500],
                section=parent_section(url) if is_url(url) else "/" + folder,
                description=parsed.description,
            )
            # The outline comes from `outline_of`, which keeps to the manifest's own bounds
            # (levels, lengths, anchors, count): the rest is checked as a manifest's page is.
            one = {"pinax_manifest": 1, "name": "folder", "url": site, "pages": [page.to_dict()]}
            checked = manifest_io.from_dict(one, f"<build of {self.root / path}>").pages[0]
        except (PinaxError, RecursionError, ValueError, MemoryError) as exc:
            reason = exc.message if isinstance(exc, PinaxError) else type(exc).__name__
            if isinstance(exc, RecursionError):
                reason = "nested too deeply to parse"
            self.failed[path] = reason
            return None
        return replace(checked, outline=parsed.outline, symbols=parsed.symbols)

    def _url(self, path: str, site: str, parsed: Parsed) -> str:
        if not self.published_url():
            return (self.root / path).as_uri()
        if self.site is not None:  # the page's title too: a blog post's URL is made of it
            meta = {"title": parsed.title, **parsed.meta}
            return urljoin(site, self.site.page_path(self.prefix + path, meta))
        return urljoin(site, layouts.page_path(path, self.layout, parsed.meta))

    def _read(self, path: str) -> Parsed | None:
        self.reads += 1
        try:
            body = read_regular(self.root / path, MAX_FILE_BYTES)
        except (OSError, SpecialFile):
            return None
        return parse_source(path, body, self.root, self.slug_rule)


def parse_source(
    path: str, body: bytes, root: Path | None = None, slug_rule: str = "github"
) -> Parsed:
    """Title, description, outline and (reST) API symbols of one source file (`path`
    inside the docs folder `root`, whose repository reST may include from); a Markdown
    heading's anchor is its `{#id}`, else the id `slug_rule`'s generator gives it
    (generators/slugs.py); a reST heading's, the one Sphinx gives it."""
    suffix = os.path.splitext(path)[1].lower()
    fallback = _file_title(path)
    if suffix in HTML:
        from pinax.pages import decode_html, extract_page

        from .outlines import outline_of

        extracted = extract_page(decode_html(body, None), Path(path).name)
        title = extracted.title or fallback
        return Parsed(title, None, outline_of(extracted.headings), {}, untitled=title == fallback)
    page = _source(path, body, root)
    meta = page.meta
    if page.headings is None:
        first, outline = markdown_outline(page.markdown, slugs.slugger(slug_rule))
    else:
        from .outlines import outline_of

        first, outline = page.title, outline_of(page.headings)
    title = meta.get("title") or first or fallback
    untitled = not (meta.get("title") or first)
    symbols = _symbols(page.symbols)
    return Parsed(title[:500], meta.get("description"), outline, meta, symbols, untitled)


def _source(path: str, body: bytes, root: Path | None) -> SourcePage:
    suffix = os.path.splitext(path)[1].lower()
    return source_page(body, suffix, None if root is None else root / path, root)


def _symbols(objects: tuple) -> tuple[Symbol, ...]:
    """A reST page's API objects as manifest symbols, within the manifest's bounds."""
    found: dict[tuple[str, str], Symbol] = {}
    for item in objects:
        name, kind, anchor = item.name, item.kind, item.anchor
        if not name or len(name) > MAX_HEADING_LENGTH or kind not in SYMBOL_KINDS:
            continue
        if not anchor or len(anchor) > MAX_HEADING_LENGTH or any(c.isspace() for c in anchor):
            anchor = None
        found.setdefault((name, kind), Symbol(name, kind, anchor or None))
        if len(found) >= MAX_SYMBOLS:
            break
    return tuple(found.values())


def source_sections(
    path: str, body: bytes, root: Path | None = None, slug_rule: str = "github"
) -> Sections:
    """One source file's text cut at its outline's headings (as `parse_source` reads it)."""
    from .markdown_outline import outline_cuts
    from .outlines import html_cuts

    suffix = os.path.splitext(path)[1].lower()
    if suffix in HTML:
        from pinax.pages import decode_html, extract_page

        extracted = extract_page(decode_html(body, None), Path(path).name)
        return split(extracted.markdown, html_cuts(extracted.markdown, extracted.headings))
    page = _source(path, body, root)
    if page.headings is not None:
        return split(page.markdown, html_cuts(page.markdown, page.headings))
    _, cuts = outline_cuts(page.markdown, slugs.slugger(slug_rule))
    return split(page.markdown, cuts)


def _site_of(folder: Path, layout: str | None) -> generators.Site | None:
    """The folder's generator config, read (`layout`: only that generator's)."""
    try:
        known = generators.GENERATORS + tuple(generators.VARIANTS)
        return generators.detect(folder, layout if layout in known else None)
    except ValueError as exc:
        raise InvalidArgs(str(exc)) from None


def _file_title(path: str) -> str:
    """A title from the file name: `getting-started.md` -> `getting started`; an index page
    takes its folder's name."""
    parts = path.split("/")
    stem = os.path.splitext(parts[-1])[0]
    if stem.lower() in ("index", "_index", "readme") and len(parts) > 1:
        stem = parts[-2]
    return re.sub(r"[-_]+", " ", stem).strip() or stem


def folder_name(root: Path) -> str:
    """The folder's name (its project's, for a generic `docs`), as a manifest name."""
    name = root.name
    if name.lower() in _GENERIC and root.parent.name:
        name = root.parent.name
    return _NAME_JUNK.sub("-", name).strip("-._")[:64] or "docs"


def _inside(path: str, real_root: str) -> bool:
    real = os.path.realpath(path)
    return real == real_root or real.startswith(real_root.rstrip(os.sep) + os.sep)


def _small_text(path: str) -> str:
    try:
        return read_regular(path, 256 * 1024).decode("utf-8", errors="replace")
    except (OSError, SpecialFile):
        return ""
