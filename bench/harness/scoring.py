"""How a ranking is scored on a query set: a query counts as found at rank r if any of its
expected URLs is at rank r of the first ten; recall@1, recall@10 and MRR@10 (the mean of 1/r,
0 when not found) follow from those ranks."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from pinax.library import Library

# All eight DEV manifests loaded together (no `docs` argument) keep at least this share of
# each one's recall@10 alone.
TOGETHER_SHARE = 0.90


@dataclass
class Scores:
    r1: float
    r10: float
    mrr: float
    typo_r10: float
    typo_edited_r10: float


def first_rank(urls: list[str], expected: list[str]) -> int | None:
    return next((i + 1 for i, url in enumerate(urls[:10]) if url in expected), None)


def score(rank_of: Callable[[dict], int | None], clean: list[dict], typo: list[dict]) -> Scores:
    """R@1, R@10 and MRR@10 on the clean set; R@10 on the typo set and its edited queries."""
    ranks = [rank_of(r) for r in clean]
    typo_ranks = [rank_of(r) for r in typo]
    edited = [rank for r, rank in zip(typo, typo_ranks, strict=True) if r["query"] != r["original"]]
    return Scores(
        r1=sum(r == 1 for r in ranks) / len(ranks),
        r10=sum(r is not None for r in ranks) / len(ranks),
        mrr=sum(1 / r for r in ranks if r) / len(ranks),
        typo_r10=sum(r is not None for r in typo_ranks) / len(typo_ranks),
        typo_edited_r10=sum(r is not None for r in edited) / max(1, len(edited)),
    )


def recall_mrr(
    library: Library, name: str, queries: list[dict], weights: tuple[float, float]
) -> tuple[float, float]:
    """(recall@10, MRR@10) of `queries` searched in `name` with (lexical, embedding) weights."""
    found = mrr = 0.0
    for row in queries:
        hits = library.search(row["query"], 10, name, False, *weights).hits
        rank = first_rank([h.url for h in hits], row["expected"])
        found += rank is not None
        mrr += 1 / rank if rank else 0.0
    n = max(1, len(queries))
    return found / n, mrr / n
