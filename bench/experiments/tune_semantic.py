"""How far meaning can lift search: where the misses sit, what any re-rank could reach at
best, and the blend's weights chosen on one half of each DEV set and checked on the other.

    python -m bench.experiments.tune_semantic                       # the four barred DEV sets
    python -m bench.experiments.tune_semantic --corpora react,mdn --weights 0.8,0.2 0.65,0.35

Every corpus is loaded with its shared outlines joined (as bench.quality.eval_semantic does).

1. Misses: the DEV queries words alone (embedding_weight 0) miss in the top 10, by where the
   expected page sits in the lexical ranking (11-30, 31-100, 101-300, not in the top 300).
   Re-ranking a pool of N lexical candidates can only bring in the first kind (N = 30).
2. Ceilings: recall@10 if every query that one of two top-10 lists finds were found, the
   lexical top 10 beside (a) the 10 pages of the lexical top 30 or 100 closest in meaning (the
   best re-rank of that pool, at best), (b) the 10 closest of all pages (a dense candidate set
   over every title and heading, exact). No blend of the two lists beats its ceiling.
   Tighter, for the blend itself: recall@10 if each query had the embedding share of the
   blend (0, 0.05, .. 1) that suits it best, over the lexical top 30 and top 100 (a perfect
   per-query choice of weights: no score built from these two parts does better).
3. Weights: recall@10 and MRR@10 with each (lexical, embedding) weight pair beside
   embedding_weight 0, on the even rows and the odd rows of each DEV set and on its typo set,
   through `Library.search` itself. Choose on the even half; the odd half says how well the
   choice holds.
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from bench.harness.corpora import BARRED, outlined_manifest, rows
from bench.harness.scoring import recall_mrr
from pinax.library import Library
from pinax.search.semantic import query_vector
from pinax.tools import EMBEDDING_WEIGHT, LEXICAL_WEIGHT

DEPTH = 300  # lexical candidates looked at to place a miss
BUCKETS = ((11, 30), (31, 100), (101, DEPTH))
SWEPT = ("0.8,0.2", "0.7,0.3", "0.65,0.35", "0.6,0.4")  # the defaults first, then these
SHARES = np.linspace(0.0, 1.0, 21)  # the embedding's shares of the blend an oracle picks from
POOLS = (30, 100)  # lexical candidates the oracle's blend re-ranks


def lexical_ranks(library: Library, name: str, queries: list[dict]) -> list[tuple[list[int], int]]:
    """Per query: the lexical ranking (page numbers, best first, up to `DEPTH`) and the rank
    (1-based) of its first expected page in it, or 0 when it is not there."""
    docs = library.get(name)
    out = []
    for row in queries:
        ranked = docs.index.run(docs.index.plan(row["query"]), DEPTH)
        expected = {docs.pages.find(url) for url in row["expected"]}
        rank = next((at + 1 for at, doc in enumerate(ranked.pages) if doc in expected), 0)
        out.append((ranked.pages, rank))
    return out


def misses(ranks: list[tuple[list[int], int]]) -> str:
    """How many queries words alone miss in the top 10, by where the expected page sits."""
    counts = [sum(lo <= rank <= hi for _, rank in ranks) for lo, hi in BUCKETS]
    missing = sum(rank == 0 for _, rank in ranks)
    found = sum(1 <= rank <= 10 for _, rank in ranks)
    return f"{found} | " + " | ".join(map(str, counts)) + f" | {missing}"


def ceilings(library: Library, name: str, queries: list[dict], ranks) -> list[float]:
    """Recall@10 of the union of the lexical top 10 with the 10 closest in meaning among the
    lexical top 30, top 100, and all pages (see the module's docstring)."""
    docs = library.get(name)
    vectors = docs.index.vectors
    everything = list(range(len(docs.pages)))
    found = [0, 0, 0, 0]
    for row, (ranking, _) in zip(queries, ranks, strict=True):
        expected = {docs.pages.find(url) for url in row["expected"]}
        vector = query_vector(row["query"])
        lexical = set(ranking[:10])
        found[0] += bool(expected & lexical)
        if vector is None or vectors is None:
            continue
        for slot, pool in ((1, ranking[:30]), (2, ranking[:100]), (3, everything)):
            if not pool:
                continue
            scores = np.asarray(vectors.score(vector, pool)[0])
            closest = {pool[at] for at in np.argsort(-scores, kind="stable")[:10].tolist()}
            found[slot] += bool(expected & (lexical | closest))
    return [f / max(1, len(queries)) for f in found]


def best_share(library: Library, name: str, queries: list[dict], pool: int) -> float:
    """Recall@10 when each query is re-ranked with the embedding share (of `SHARES`) that
    puts its page in the top 10, if any does: the most any weighting of the two scores can
    reach with `pool` lexical candidates."""
    docs = library.get(name)
    vectors = docs.index.vectors
    found = 0
    for row in queries:
        ranked = docs.index.run(docs.index.plan(row["query"]), pool)
        vector = query_vector(row["query"])
        if not ranked.pages or vector is None or vectors is None:
            continue
        expected = {docs.pages.find(url) for url in row["expected"]}
        wanted = np.asarray([doc in expected for doc in ranked.pages])
        lexical = np.asarray(ranked.scores)
        embedding = np.asarray(vectors.score(vector, ranked.pages)[0])
        order = np.arange(len(lexical))
        for share in SHARES:
            blend = np.round((1 - share) * lexical + share * embedding, 4)
            if wanted[np.lexsort((order, -blend))[:10]].any():
                found += 1
                break
    return found / max(1, len(queries))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--corpora", default=",".join(BARRED))
    parser.add_argument(
        "--weights",
        nargs="+",
        default=list(dict.fromkeys([f"{LEXICAL_WEIGHT},{EMBEDDING_WEIGHT}", *SWEPT])),
    )
    args = parser.parse_args()
    names = [n for n in args.corpora.split(",") if n]
    started = time.perf_counter()
    libraries = {name: Library([outlined_manifest(name)]) for name in names}
    print("## 1. Where the expected page sits in the lexical ranking (clean DEV sets)\n")
    print("| corpus | n | top 10 | 11-30 | 31-100 | 101-300 | not in top 300 |")
    print("|---|---|---|---|---|---|---|")
    placed = {}
    for name in names:
        queries = rows(name)
        placed[name] = lexical_ranks(libraries[name], name, queries)
        print(f"| {name} | {len(queries)} | {misses(placed[name])} |", flush=True)
    print(
        "\n## 2. Recall@10 ceilings: the lexical top 10 with the 10 closest in meaning, "
        "and each query's best share of meaning\n"
    )
    print(
        "| corpus | words alone | + closest of lexical top 30 | + of top 100 | + of all pages "
        "| best share per query, top 30 | top 100 |"
    )
    print("|---|---|---|---|---|---|---|")
    gains = []
    for name in names:
        found = ceilings(libraries[name], name, rows(name), placed[name])
        found += [best_share(libraries[name], name, rows(name), pool) for pool in POOLS]
        gains.append([f - found[0] for f in found[1:]])
        cells = " | ".join(f"{f:.3f} ({f - found[0]:+.3f})" for f in found[1:])
        print(f"| {name} | {found[0]:.3f} | {cells} |", flush=True)
    mean = np.mean(gains, axis=0)
    print("\nMean ceiling gain: " + " / ".join(f"{m:+.3f}" for m in mean))
    print("\n## 3. Weights (lexical,embedding) against embedding_weight 0: even | odd | typo\n")
    print("| weights | corpus | even R@10 | even MRR@10 | odd R@10 | odd MRR@10 | typo R@10 |")
    print("|---|---|---|---|---|---|---|")
    words_only = (1.0, 0.0)
    base = {}
    for name in names:
        clean, typo = rows(name), rows(name, typo=True)
        sets = (clean[0::2], clean[1::2], typo)
        base[name] = [recall_mrr(libraries[name], name, s, words_only) for s in sets]
    for text in args.weights:
        weights = tuple(float(x) for x in text.split(","))
        deltas = []
        for name in names:
            clean, typo = rows(name), rows(name, typo=True)
            sets = (clean[0::2], clean[1::2], typo)
            got = [recall_mrr(libraries[name], name, s, weights) for s in sets]
            delta = [got[i][j] - base[name][i][j] for i, j in ((0, 0), (0, 1), (1, 0), (1, 1))]
            delta.append(got[2][0] - base[name][2][0])
            deltas.append(delta)
            print(f"| {text} | {name} | " + " | ".join(f"{d:+.3f}" for d in delta) + " |")
        average = np.mean(deltas, axis=0)
        worst = np.min(deltas, axis=0)
        print(
            f"| {text} | mean (worst) | "
            + " | ".join(f"{a:+.4f} ({w:+.3f})" for a, w in zip(average, worst, strict=True))
            + " |",
            flush=True,
        )
    print(f"\n({time.perf_counter() - started:.0f} s)")


if __name__ == "__main__":
    main()
