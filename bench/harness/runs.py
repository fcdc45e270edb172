"""How a bench runs part of itself: words alone, as if the embedding model were not installed
(the baseline the embedding's memory, build time and ranking are read against)."""

from __future__ import annotations

import logging


def lexical_only() -> None:
    """This process as if the embedding model were not installed (PINAX_BENCH_LEXICAL_ONLY):
    the baseline of the embedding's memory and build time."""
    from pinax.search import semantic

    semantic.model_folder = lambda: None  # type: ignore[assignment]
    logging.getLogger("pinax").setLevel(logging.ERROR)
