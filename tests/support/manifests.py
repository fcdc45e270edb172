"""Small manifests written for a test: pages at paths of a site, titled after their path."""

from __future__ import annotations

import json
from pathlib import Path


def write_manifest(folder: Path, name: str, site_url: str, paths: tuple[str, ...]) -> Path:
    """`folder/<name>.json`: one page at each path of `site_url`, titled from the path."""
    pages = [
        {"url": site_url.rstrip("/") + p, "title": p.strip("/").title() or "Home"} for p in paths
    ]
    data = {"pinax_manifest": 1, "name": name, "url": site_url, "pages": pages}
    path = folder / f"{name}.json"
    path.write_text(json.dumps(data))
    return path
