"""Manifest builders: what a docs site publishes (llms.txt, sitemaps, objects.inv) or a
polite crawl, turned into a deterministic manifest.

This package's door. `build_manifest` makes a manifest from a source and `BuildOptions`,
reporting to a `ConsoleReporter` (`run_build`: the same, run to its end for a command);
`publish_manifest` puts it in place (or checks it); `resolve_docs` lets `--docs` take a site
URL or published file; `previous_texts` reads the content file of a manifest built earlier
(`--content` reuses the text of unchanged pages); `FolderSource` reads a folder of
documentation sources (rebuilt cheaply when it changes), `is_docs_folder` tells one from a
folder of manifests, `folder_name` names one. `stated_by_folder`, `stated_by_inventory` and
`stated_by_url` read the version (and name) a source states of itself; `labelled` stamps
them on a manifest.
`list_versions` reads the versions a site or folder publishes (`choose_versions` picks some,
`version_file` names each one's manifest inside an output folder).
Importing this package is cheap: the network and parsing modules load
only when a build runs.
"""

from typing import TYPE_CHECKING

from pinax.builder.on_demand import is_docs_folder, resolve_docs
from pinax.lazy import lazy_names

if TYPE_CHECKING:
    from pinax.builder.companion import previous_texts
    from pinax.builder.console import ConsoleReporter
    from pinax.builder.core import build as build_manifest
    from pinax.builder.core import list_versions, run_build
    from pinax.builder.folder import FolderSource, folder_name
    from pinax.builder.model import BuildOptions
    from pinax.builder.publish import publish as publish_manifest
    from pinax.builder.site_versions import choose as choose_versions
    from pinax.builder.site_versions import output_file as version_file
    from pinax.builder.versioning import (
        Stated,
        labelled,
        stated_by_folder,
        stated_by_inventory,
        stated_by_url,
    )

__getattr__ = lazy_names(
    __name__,
    {
        "build_manifest": "core:build",
        "BuildOptions": "model",
        "ConsoleReporter": "console",
        "FolderSource": "folder",
        "folder_name": "folder",
        "publish_manifest": "publish:publish",
        "previous_texts": "companion",
        "run_build": "core",
        "list_versions": "core",
        "choose_versions": "site_versions:choose",
        "version_file": "site_versions:output_file",
        "Stated": "versioning",
        "labelled": "versioning",
        "stated_by_folder": "versioning",
        "stated_by_inventory": "versioning",
        "stated_by_url": "versioning",
    },
)

__all__ = [
    "BuildOptions",
    "ConsoleReporter",
    "FolderSource",
    "Stated",
    "build_manifest",
    "choose_versions",
    "folder_name",
    "is_docs_folder",
    "labelled",
    "list_versions",
    "previous_texts",
    "publish_manifest",
    "resolve_docs",
    "run_build",
    "stated_by_folder",
    "stated_by_inventory",
    "stated_by_url",
    "version_file",
]
