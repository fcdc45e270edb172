"""A page's front matter as data (nested keys kept), for what a generator reads from a page
itself: Hugo's `build`/`cascade`, Starlight's `sidebar: {label}`. pinax.pages' own reader keeps
only top-level scalars, which is all the rest of the build needs.
"""

from __future__ import annotations

import tomllib
from typing import Any

from .mkdocs import load_yaml


def front_matter(text: str) -> dict[str, Any]:
    """A page's YAML (`---`) or TOML (`+++`) front matter, as data ({} when it has none)."""
    for fence, load in (("---", load_yaml), ("+++", load_toml)):
        if text.startswith(fence + "\n"):
            end = text.find("\n" + fence, len(fence))
            data = load(text[len(fence) + 1 : end]) if end > 0 else None
            return data if isinstance(data, dict) else {}
    return {}


def load_toml(text: str) -> Any:
    try:
        return tomllib.loads(text)
    except (tomllib.TOMLDecodeError, RecursionError):
        return None
