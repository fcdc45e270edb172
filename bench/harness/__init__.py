"""What the benches share, so that each bench script is only what it measures:

- corpora: the shared data ($PINAX_SHARED): DEV query sets, manifests, outlines joined;
- scoring: recall@1/@10, MRR@10 and hit ranks of a ranking on a query set;
- timing: percentiles; memory: RSS, high-water marks, a process tree's peak;
- runs: how a bench runs a piece of itself (a worker process, words alone);
- sites: the generators' fixture pages served on loopback; mcp_floor: the two halves of an
  MCP round trip; synth: synthetic manifests of any size; bm25: the plain BM25 baseline.
"""
