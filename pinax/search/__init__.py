"""One manifest's search index: tokens, vocabulary, BM25F postings, the on-disk store, top-k.

This package's only door. Everything outside `pinax/search/` uses these names and no module
behind them:

- `Docs`: one manifest's page table and its `SearchIndex` (`Docs.from_manifest` builds them
  in memory; `open_docs` maps them from the on-disk store kept by an `index_cache`).
- `SearchIndex`: `plan(query)` then `run(plan, limit)` gives a `Ranked` (pages and scores).
- `known_words`, `chunks`: the query's words as the index reads them.
- `pooled`: one query's plans over several indexes, weighted as one (comparable scores).
- `confidence`: a hit's label ("high", "medium", "low") from its score and its lead.
- `ContentIndex` (a `Docs`' `content`, loaded by `Docs.load_content`): what pages say, by
  section, ranked apart; `ContentHit` its result.
- `query_vector`, `Vectors` (an index's `vectors`): meaning beside words, a static embedding
  of titles and headings (see `pinax.search.semantic`); `preload_model` loads it early.
"""

from pinax.search.content import ContentHit, ContentIndex, query_terms
from pinax.search.docs import Docs, index_cache, open_docs
from pinax.search.index import (
    Plan,
    Ranked,
    SearchIndex,
    confidence,
    known_words,
    pooled,
)
from pinax.search.semantic import Vectors, query_vector
from pinax.search.semantic import preload as preload_model
from pinax.search.store import IndexCache
from pinax.search.tokens import chunks

__all__ = [
    "ContentHit",
    "ContentIndex",
    "Docs",
    "IndexCache",
    "Plan",
    "Ranked",
    "SearchIndex",
    "Vectors",
    "chunks",
    "confidence",
    "index_cache",
    "known_words",
    "open_docs",
    "pooled",
    "preload_model",
    "query_terms",
    "query_vector",
]
