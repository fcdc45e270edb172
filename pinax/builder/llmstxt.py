"""llms.txt (llmstxt.org): an H1 title, a `>` summary, `##` sections of `- [Title](url): notes`.

Parsing is pure (text in, links out). Real files bend the format, and both bends seen in the
wild are accepted: a file whose H1s are section names (several H1s, or one after the first
link: LangGraph), and links to Markdown twins (`/testing.md`, `/get-started/index.md`) of the
HTML pages. A link to another llms file is not a page: the caller may follow it one level.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from urllib.parse import urlsplit, urlunsplit

from pinax.manifest import Page, parent_section

from .urls import resolve

# Closing `#`s are cut by `_heading_text`; `(.+?)\s*#*\s*$` backtracked in cubic time.
_HEADING = re.compile(r"^(#{1,6})\s+(.+)$")
_BULLET_LINK = re.compile(
    r"^\s*[-*+]\s+\[(?P<title>(?:[^\[\]]|\[[^\[\]]*\])*)\]"
    r"\(\s*<?(?P<url>[^)\s>]+)>?(?:\s+\"[^\"]*\")?\s*\)(?P<rest>.*)$"
)
_INLINE_MARKUP = re.compile(r"`|\*\*|__")
_LLMS_FILE = re.compile(r"/llms(?:-[\w.-]+)?\.txt$", re.I)
_FULL_TEXT_VARIANT = re.compile(r"/llms-(?:full|small|medium|ctx|ctx-full)\.txt$", re.I)


@dataclass(frozen=True)
class Link:
    title: str
    url: str  # absolute, as written (resolved against the file's URL)
    description: str | None
    group: str | None


@dataclass(frozen=True)
class LlmsTxt:
    title: str | None
    summary: str | None
    links: tuple[Link, ...]
    groups: tuple[str, ...]


def parse(text: str, base_url: str) -> LlmsTxt:
    """Read an llms.txt; relative links are resolved against `base_url` (the file's URL)."""
    lines = text.splitlines()
    h1_lines = [i for i, line in enumerate(lines) if _level(line) == 1]
    first_link = next((i for i, line in enumerate(lines) if _BULLET_LINK.match(line)), len(lines))
    title_line = h1_lines[0] if len(h1_lines) == 1 and h1_lines[0] < first_link else None

    title = _plain(_heading_text(lines[title_line])) if title_line is not None else None
    summary = _summary(lines, 0 if title_line is None else title_line + 1, first_link)
    group: str | None = None
    groups: list[str] = []
    links: list[Link] = []
    for i, line in enumerate(lines):
        level = _level(line)
        if level and i != title_line:
            if level <= 2:
                group = _plain(_heading_text(line))
                groups.append(group)
            continue
        match = _BULLET_LINK.match(line)
        if not match:
            continue
        url = resolve(match.group("url"), base_url)
        if url is None:
            continue
        description = match.group("rest").strip().lstrip(":-–—").strip() or None
        links.append(Link(_plain(match.group("title")) or url, url, description, group))
    return LlmsTxt(title, summary, tuple(links), tuple(groups))


def is_llms_file(url: str) -> bool:
    return bool(_LLMS_FILE.search(urlsplit(url).path))


def is_full_text(url: str) -> bool:
    """`llms-full.txt` and kin: the whole docs in one file, not an index worth following."""
    return bool(_FULL_TEXT_VARIANT.search(urlsplit(url).path))


def html_twin(markdown_url: str) -> str | None:
    """The HTML page a Markdown twin stands for: `/a.html.md` -> `/a.html`,
    `/a/index.md` -> `/a/`, `/a.md` -> `/a`; None when the URL is not a `.md` file."""
    parts = urlsplit(markdown_url)
    path = parts.path
    if not path.lower().endswith(".md"):
        return None
    cut = len("index.md") if path.lower().endswith("/index.md") else len(".md")
    path = path[:-cut]
    if not path:
        return None
    return urlunsplit((parts.scheme, parts.netloc, path, parts.query, ""))


def to_page(link: Link, own_site: bool) -> Page:
    """A manifest page; a Markdown twin on the site itself keeps its HTML page as `url`."""
    twin = html_twin(link.url) if own_site else None
    url, markdown_url = (twin, link.url) if twin else (link.url, None)
    return Page(
        url=url,
        title=link.title,
        section=parent_section(url),
        description=link.description,
        group=link.group,
        markdown_url=markdown_url,
    )


def _heading_text(line: str) -> str:
    """A heading line's text, without the closing `#`s and blanks (as `(.+?)\\s*#*\\s*$`)."""
    match = _HEADING.match(line)
    text = match.group(2) if match else ""
    bare = text.rstrip().rstrip("#").rstrip()
    return bare or text[:1]


def _level(line: str) -> int:
    match = _HEADING.match(line)
    return len(match.group(1)) if match else 0


def _summary(lines: list[str], start: int, stop: int) -> str | None:
    """The first `>` blockquote between the title and the first link, joined into one line."""
    quoted: list[str] = []
    for line in lines[start:stop]:
        stripped = line.strip()
        if stripped.startswith(">"):
            quoted.append(stripped.lstrip(">").strip())
        elif quoted or _level(line):
            break
    text = " ".join(part for part in quoted if part)
    return text or None


def _plain(text: str) -> str:
    return " ".join(_INLINE_MARKUP.sub("", text).split())
