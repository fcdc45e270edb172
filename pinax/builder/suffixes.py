"""The file suffixes of a docs folder's pages.

Its own module because the folder reader (folder) and the test of whether `--docs DIR` is a
docs folder (docs) both need it, and docs runs builds that use the folder reader.
"""

from __future__ import annotations

SOURCE_SUFFIXES = frozenset({".md", ".mdx", ".markdown", ".rst", ".html", ".htm"})
