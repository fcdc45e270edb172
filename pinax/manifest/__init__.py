"""The manifest's shapes in one place: this package's only door.

- model: the value types (`Manifest`, `Page`, `Heading`, `Symbol`), `load`/`loads`/`from_dict`
  (clear errors naming file and place) and `dump`, the one writer of the format.
- columns: a manifest as columns (`ManifestColumns`, `PageColumns`, flat `Headings` and
  `Symbols`), validated in bulk for large builds (`parse_columns`), falling back to
  `from_dict` so a bad manifest fails with the same message.
- pagetable: a manifest's pages as flat arrays (`PageTable`, built by `build_table`, maybe
  memory-mapped), found by URL and by URL path (sections) with binary searches.
- pagetext: the companion content file, each page's text by section (`PageText`, `Section`;
  `companion_path` names it, `read_page_texts` and `write_page_texts` stream it, bounded).

The model and the content file load at once (the CLI reads them); the columns and the page
table (numpy) on first use.
"""

from typing import TYPE_CHECKING

from pinax.lazy import lazy_names
from pinax.manifest.model import (
    HEADING_LEVELS,
    MAX_HEADING_LENGTH,
    MAX_HEADINGS,
    MAX_SYMBOLS,
    NAME_PATTERN,
    OPTIONAL_PAGE_FIELDS,
    PACKAGE_PATTERN,
    SCHEMA_VERSION,
    SYMBOL_KINDS,
    VERSION_PATTERN,
    Heading,
    Manifest,
    Page,
    Symbol,
    dump,
    from_dict,
    identity,
    load,
    loads,
    manifest_files,
    outline_of,
    parent_section,
    parse_json,
    read_bytes,
    slug_title,
    symbols_of,
)
from pinax.manifest.pagetext import MAX_HEADING as MAX_SECTION_HEADING
from pinax.manifest.pagetext import MAX_LINE_BYTES as MAX_PAGE_TEXT_LINE_BYTES
from pinax.manifest.pagetext import PageText, Section, is_date
from pinax.manifest.pagetext import companion as companion_path
from pinax.manifest.pagetext import open_regular as open_page_texts
from pinax.manifest.pagetext import read as read_page_texts
from pinax.manifest.pagetext import write as write_page_texts

if TYPE_CHECKING:
    from pinax.manifest.columns import Headings, ManifestColumns, PageColumns, Symbols
    from pinax.manifest.columns import loads as parse_columns
    from pinax.manifest.pagetable import (
        PageTable,
        Picked,
        Strings,
        build_table,
        narrow,
        raw_path,
        raw_paths_of,
        trim,
        url_path,
    )

__getattr__ = lazy_names(
    __name__,
    {
        "Headings": "columns",
        "ManifestColumns": "columns",
        "PageColumns": "columns",
        "Symbols": "columns",
        "parse_columns": "columns:loads",
        "PageTable": "pagetable",
        "Picked": "pagetable",
        "Strings": "pagetable",
        "build_table": "pagetable",
        "narrow": "pagetable",
        "raw_path": "pagetable",
        "raw_paths_of": "pagetable",
        "trim": "pagetable",
        "url_path": "pagetable",
    },
)

__all__ = [
    "HEADING_LEVELS",
    "MAX_HEADINGS",
    "MAX_HEADING_LENGTH",
    "MAX_PAGE_TEXT_LINE_BYTES",
    "MAX_SECTION_HEADING",
    "MAX_SYMBOLS",
    "NAME_PATTERN",
    "OPTIONAL_PAGE_FIELDS",
    "PACKAGE_PATTERN",
    "SCHEMA_VERSION",
    "SYMBOL_KINDS",
    "VERSION_PATTERN",
    "Heading",
    "Headings",
    "Manifest",
    "ManifestColumns",
    "Page",
    "PageColumns",
    "PageTable",
    "PageText",
    "Picked",
    "Section",
    "Strings",
    "Symbol",
    "Symbols",
    "build_table",
    "companion_path",
    "dump",
    "from_dict",
    "identity",
    "is_date",
    "load",
    "loads",
    "manifest_files",
    "narrow",
    "open_page_texts",
    "outline_of",
    "parent_section",
    "parse_columns",
    "parse_json",
    "raw_path",
    "raw_paths_of",
    "read_bytes",
    "read_page_texts",
    "slug_title",
    "symbols_of",
    "trim",
    "url_path",
    "write_page_texts",
]
