"""Manifest builders: what a docs site publishes (llms.txt, sitemaps, objects.inv) or a
polite crawl, turned into a deterministic manifest.

`core.build` makes a manifest; `publish.publish` puts it in place; `resolve_docs` lets
`--docs` take a site URL or published file. Importing this package is cheap: the network
and parsing modules load only when a build runs.
"""

from .docs import resolve_docs

__all__ = ["resolve_docs"]
