"""Everything from a query to ranked, placed hits. This package's only door: everything outside
`pinax/search/` uses these names and no module behind them.

- `search_many(docs, query, limit, ranking, explain)`: the one entry point. It plans the query
  in each manifest's index, pools document frequencies across them, runs each, fuses words,
  meaning and content, discounts alike libraries and names each hit's place; it returns
  `SearchResults` (their `hits`: page, score, place, snippet, confidence). `near_urls`: the
  known URLs a mistyped one may mean.
- `Ranking`, `RANKING`: the one sheet of ranking rules (weights and constants, each with its
  evidence); `content_formula` and `meaning_formula` say how scores are fused, for clients.
- `Collection`: one manifest's page table, search index and content index
  (`Collection.from_manifest` builds them in memory; `open_collection` maps them from the
  on-disk store kept by an `index_cache`). `preload_model` loads the embedding model early.

The sheet is imported at once (the CLI's help reads it); the rest on first use, so opening the
door costs nothing until a search needs numpy and the index.
"""

from typing import TYPE_CHECKING

from pinax.lazy import lazy_names
from pinax.search.ranking import RANKING, Ranking, content_formula, meaning_formula

if TYPE_CHECKING:
    from pinax.search.collection import Collection, index_cache, open_collection
    from pinax.search.query import SearchResults, near_urls, search_many
    from pinax.search.semantic import preload as preload_model

__getattr__ = lazy_names(
    __name__,
    {
        "Collection": "collection",
        "index_cache": "collection",
        "open_collection": "collection",
        "SearchResults": "query",
        "near_urls": "query",
        "search_many": "query",
        "preload_model": "semantic:preload",
    },
)

__all__ = [
    "RANKING",
    "Collection",
    "Ranking",
    "SearchResults",
    "content_formula",
    "index_cache",
    "meaning_formula",
    "near_urls",
    "open_collection",
    "preload_model",
    "search_many",
]
