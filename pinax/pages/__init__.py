"""Everything `get_page` needs: which URLs may be fetched, fetching, extraction, caching."""
