"""The shared data every bench reads, from $PINAX_SHARED (default: ../shared beside the
checkout): the DEV query sets, the real manifests, and the manifests with their outlines joined.
The shared files are read, never changed."""

from __future__ import annotations

import json
import os
from dataclasses import replace
from pathlib import Path

from pinax import manifest as manifest_io
from pinax.manifest import Heading, Manifest

ROOT = Path(__file__).resolve().parents[2]
SHARED = Path(os.environ.get("PINAX_SHARED", ROOT.parent / "shared"))
CORPORA = SHARED / "corpora"
NAMES = ("react", "fastapi", "kubernetes", "mdn", "django", "drf", "adk", "textual")
# The four DEV sets the ranking was tuned and barred on; the other four are held out.
BARRED = ("react", "kubernetes", "mdn", "django")


def rows(name: str, typo: bool = False) -> list[dict]:
    """A DEV set (human-written link text -> the linked pages), or its typo twin (the same
    queries, about half with one edit per long word)."""
    path = CORPORA / "eval" / f"{name}.dev{'.typo' if typo else ''}.jsonl"
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def plain_manifest(name: str) -> Manifest:
    return manifest_io.load(CORPORA / "manifests" / f"{name}.json")


def outlined_manifest(name: str) -> Manifest:
    """The shared manifest with each page's shared outline (headings without anchors)."""
    manifest = plain_manifest(name)
    outlines = {}
    for line in (CORPORA / "outlines" / f"{name}.jsonl").read_text().splitlines():
        entry = json.loads(line)
        outlines[entry["url"]] = tuple(
            Heading(level, text.strip())
            for level, text in entry["headings"]
            if text.strip() and 2 <= level <= 6  # a few pages have a second H1: not below it
        )
    pages = tuple(replace(p, outline=outlines.get(p.url, ())) for p in manifest.pages)
    return replace(manifest, pages=pages)
