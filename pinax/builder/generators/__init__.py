"""Site generators read from their own configuration: which files of a folder are pages,
the URL each is published at, the titles the site's navigation shows, and the docs set's
name. One module per generator, each with `detect(folder) -> Site | None` (see site.py).
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from . import docusaurus, hugo, mdbook, mintlify, mkdocs, sphinx, starlight, vitepress
from .site import Site, glob_matches

# Most specific first: a Starlight or VitePress repository may hold a stray conf.py.
DETECTORS: dict[str, Callable[[Path], Site | None]] = {
    "vitepress": vitepress.detect,
    "mkdocs": mkdocs.detect,
    "docusaurus": docusaurus.detect,
    "starlight": starlight.detect,
    "mdbook": mdbook.detect,
    "mintlify": mintlify.detect,
    "hugo": hugo.detect,
    "sphinx": sphinx.detect,
}
GENERATORS = tuple(DETECTORS)
# A generator run another way than its config says: Sphinx's builder is chosen on the command
# line (`sphinx-build -b dirhtml`), never in `conf.py`; Django's docs are published that way.
VARIANTS = {"sphinx-dirhtml": "sphinx"}


def detect(folder: Path, generator: str | None = None) -> Site | None:
    """The generator whose config the folder (or the folder around it) holds, read; with
    `generator`, only that one (or a variant of it, VARIANTS). None: no generator's config
    found."""
    variant, generator = generator, VARIANTS.get(generator or "", generator)
    for name, find in DETECTORS.items():
        if generator is not None and name != generator:
            continue
        try:
            site = find(folder)
        except (OSError, RecursionError, ValueError) as exc:  # an unreadable tree
            site = None
            if generator is not None:
                raise ValueError(f"{folder}: cannot read the {name} config: {exc}") from None
        if site is not None:
            if variant == "sphinx-dirhtml" and isinstance(site, sphinx.SphinxSite):
                site.directory_urls = True
            return site
    return None


__all__ = ["DETECTORS", "GENERATORS", "VARIANTS", "Site", "detect", "glob_matches"]
