"""Everything `get_page` needs: which URLs may be fetched, fetching, extraction, caching.

This package's door; nothing outside `pinax/pages/` imports the modules behind it. The
fetching and extraction names (`PageReader`, `Fetcher`, `extract_page` ...) load the HTTP stack and
the HTML parser on first use, so a process that never reads a page never imports them.

- budget: `DEFAULT_MAX_TOKENS` and its bounds, `page_slice` (a page's slice for a token budget),
  `SectionNotFound`. headings: `heading_lines` (where a page's headings stand in its
  Markdown).
- cache: `PageCache`, `DEFAULT_TTL`, `default_cache_dir`. cache_shared: `SharedCache`,
  `open_shared` (pages shared through Redis by every process given one `--cache-redis` URL;
  redis-py is imported only when one is given).
- policy: `AddressPolicy`, `UrlPolicy`, `Origin`, `origin_of`, `site_origins`, `ip_literal`
  (where a fetch may go).
- fetch: `Fetcher`, `Limits`, `Response`. reader: `PageReader` (get_page's pipeline).
- text: `clean_markdown` (served Markdown without what the rendered page hides),
  `visible_text` (the same as plain text, for snippets), `strip_invisible`, `fence_lines`
  (the lines that may open or close a code fence).
- credentials: `Credentials` (headers for a site behind a login, by exact origin),
  `read_headers_file`.
- localfiles: `LocalFiles` (a served docs folder's pages, read from disk). sourcetext:
  `source_markdown`, `source_page`, `SourcePage`, `split_front_matter` (a source as its
  author wrote it, and as Markdown: reST through docutils, pinax.pages.rest, with its
  headings' anchors and API symbols); rst_titles: `rst_to_markdown` (its linear fallback),
  `rst_id`.
- extract: `extract_page`, `decode_html` (a saved HTML page to Markdown); its `headings`
  are the page's outline with the anchors the page gives them (outline: `PageHeading`).
"""

from typing import TYPE_CHECKING

from pinax.lazy import lazy_names
from pinax.pages.budget import (
    DEFAULT_MAX_TOKENS,
    MAX_MAX_TOKENS,
    MIN_MAX_TOKENS,
    SectionNotFound,
    page_slice,
)
from pinax.pages.cache import DEFAULT_TTL, PageCache, default_cache_dir
from pinax.pages.credentials import Credentials, read_headers_file
from pinax.pages.headings import heading_lines
from pinax.pages.localfiles import LocalFiles
from pinax.pages.policy import (
    AddressPolicy,
    Origin,
    UrlPolicy,
    ip_literal,
    origin_of,
    site_origins,
)
from pinax.pages.rst_titles import rst_id, rst_to_markdown
from pinax.pages.sourcetext import SourcePage, source_markdown, source_page, split_front_matter
from pinax.pages.text import clean_markdown, fence_lines, strip_invisible, visible_text

if TYPE_CHECKING:
    from pinax.pages.cache_shared import SharedCache, open_shared
    from pinax.pages.extract import decode_html
    from pinax.pages.extract import extract as extract_page
    from pinax.pages.fetch import Fetcher, Limits, Response
    from pinax.pages.outline import PageHeading
    from pinax.pages.reader import PageReader

__getattr__ = lazy_names(
    __name__,
    {
        "PageReader": "reader",
        "SharedCache": "cache_shared",
        "open_shared": "cache_shared",
        "Fetcher": "fetch",
        "Limits": "fetch",
        "Response": "fetch",
        "extract_page": "extract:extract",
        "decode_html": "extract",
        "PageHeading": "outline",
    },
)

__all__ = [
    "DEFAULT_MAX_TOKENS",
    "DEFAULT_TTL",
    "MAX_MAX_TOKENS",
    "MIN_MAX_TOKENS",
    "AddressPolicy",
    "Credentials",
    "Fetcher",
    "Limits",
    "LocalFiles",
    "Origin",
    "PageCache",
    "PageHeading",
    "PageReader",
    "Response",
    "SectionNotFound",
    "SharedCache",
    "SourcePage",
    "UrlPolicy",
    "clean_markdown",
    "decode_html",
    "default_cache_dir",
    "extract_page",
    "fence_lines",
    "heading_lines",
    "ip_literal",
    "open_shared",
    "origin_of",
    "page_slice",
    "read_headers_file",
    "rst_id",
    "rst_to_markdown",
    "site_origins",
    "source_markdown",
    "source_page",
    "split_front_matter",
    "strip_invisible",
    "visible_text",
]
