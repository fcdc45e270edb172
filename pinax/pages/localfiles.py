"""get_page for the pages of a served docs folder: read from disk, never from the network.

Only a page the folder's manifest lists can be read (by its URL, `file:` or the site URL
its layout gives it), and only while the file it names is still a regular file inside the
folder: the path may hold no `..`, every symlink on the way is resolved and must stay
under the folder's own real path, the last step is opened without following a link, and
the size limit is get_page's. The text goes through the same cleaning as served Markdown
(HTML through the HTML extraction; reST as Markdown, see pinax.pages.rest), so a folder
page reads like a fetched one, with `source: "file"`.
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Mapping
from datetime import UTC, datetime
from pathlib import Path, PurePosixPath
from typing import Any

from pinax.errors import FetchFailed, InvalidArgs
from pinax.files import SpecialFile, read_regular
from pinax.pages.sourcetext import SourcePage, source_page

HTML_SUFFIXES = frozenset({".html", ".htm"})


class LocalFiles:
    """The pages of served docs folders: page URL -> (folder, path relative to it)."""

    def __init__(self, pages: Mapping[str, tuple[Path, str]], max_bytes: int | None = None) -> None:
        self.pages = dict(pages)
        from pinax.pages.fetch import Limits  # get_page's size limit (the HTTP stack: lazily)

        self.max_bytes = max_bytes or Limits().max_bytes
        self._real: dict[Path, Path] = {}

    def __contains__(self, url: str) -> bool:
        return url in self.pages

    def path_of(self, url: str) -> Path:
        """The file a folder page's URL names, checked to lie inside its folder."""
        root, relative = self.pages[url]
        parts = PurePosixPath(relative).parts
        if not parts or relative.startswith("/") or any(p in ("..", ".", "") for p in parts):
            raise InvalidArgs(f"{url}: not a path inside the docs folder; refused")
        real_root = self._real.get(root) or self._real.setdefault(root, root.resolve())
        path = real_root.joinpath(*parts)
        real = Path(os.path.realpath(path))
        if real != path and not real.is_relative_to(real_root):
            raise InvalidArgs(f"{url}: the file leads out of the docs folder (a symlink); refused")
        return real

    def read(self, url: str) -> dict[str, Any]:
        """The page as a cache-entry-shaped dict (`source: "file"`), read now."""
        path = self.path_of(url)
        try:
            body = read_regular(path, self.max_bytes, follow_links=False)
        except SpecialFile as exc:
            raise FetchFailed(f"{url}: {exc}") from None
        except FileNotFoundError:
            raise FetchFailed(f"{url}: the file is gone from the docs folder", status=404) from None
        except OSError as exc:  # ELOOP: the last step became a symlink
            raise FetchFailed(f"{url}: cannot read the file: {exc.strerror or exc}") from None
        return entry_of(url, path, body, self.pages[url][0])


def entry_of(url: str, path: Path, body: bytes, folder: Path | None = None) -> dict[str, Any]:
    """A folder file's text as get_page gives a page: Markdown, cleaned as served Markdown;
    reST with the anchors of its headings and its API entries beside (as HTML extraction
    gives them), and its includes followed within the folder's repository."""
    from pinax.pages.text import clean_markdown_counted

    suffix = path.suffix.lower()
    title = ""
    extra: dict[str, Any] = {}
    if suffix in HTML_SUFFIXES:
        from pinax.pages.extract import decode_html, extract

        extracted = extract(decode_html(body, None), url)
        markdown, title = extracted.markdown, extracted.title
        if any(heading.anchor for heading in extracted.headings):
            from pinax.pages.budget import HEADING_IDS

            extra[HEADING_IDS] = [heading.anchor for heading in extracted.headings]
    else:
        page = source_page(body, suffix, path, folder)
        markdown, removed = clean_markdown_counted(page.markdown)
        if removed:
            extra["removed_hidden"] = removed
        else:
            extra.update(_beside(markdown, page))
        title = page.meta.get("title") or page.title or ""
    content_hash = "sha256:" + hashlib.sha256(markdown.encode("utf-8")).hexdigest()
    if not title:
        from pinax.pages.budget import document

        first = next((h for h in document(markdown, content_hash).headings if h.level == 1), None)
        title = first.title if first else path.stem
    modified = datetime.fromtimestamp(path.stat().st_mtime, UTC).isoformat(timespec="seconds")
    return {
        "url": url,
        "title": title,
        "source": "file",
        **extra,
        "source_url": path.as_uri(),
        "fetched_at": modified,
        "content_hash": content_hash,
        "markdown": markdown,
    }


def _beside(markdown: str, page: SourcePage) -> dict[str, Any]:
    """A reST page's heading ids and API entries, as the entry's side fields (only while
    they still match the Markdown: one id per heading get_page sees)."""
    from pinax.pages.budget import ENTRIES, HEADING_IDS, Document

    extra: dict[str, Any] = {}
    if page.headings and len(Document(markdown).headings) == len(page.headings):
        extra[HEADING_IDS] = [anchor for _, _, anchor in page.headings]
    if page.entries and markdown == page.markdown:  # spans of this very text
        extra[ENTRIES] = [list(entry) for entry in page.entries]
    return extra
