"""The two factors of the word-shape rules, chosen on the even DEV rows they touch and
checked on the odd rows: `stem_only_share` (a page whose title and headings have a typed
word's stem only in another family, `custom` for `customer`, keeps that share of its score)
and `member_score` (the page documenting most of an owner's members of a kind, `str methods`,
scores at least that).

    python -m bench.experiments.tune_factors
    python -m bench.experiments.tune_factors --shares 0.5,0.7,0.85,1 --scores 0.7,0.85,0.95

The DEV rows are every anchor-text DEV set of ../shared/corpora/eval (eight corpora, outlines
joined, each with its shared content file where there is one) and the four DEV question sets.
A factor moves only the queries its rule looks at: a word the index has as written whose stem
another written word with another base shares (`surface.ambiguous_words`), or an owner and a
kind of member (`members.member_query`); only those rows are searched, each in its own
corpus, through `search_many` with the sheet's rules but the factor. Rows are split even/odd
by their place in their set (as bench.quality.short_queries does): the value is chosen on the
even rows (best mean MRR@10, then R@10, ties to the sheet's value), the odd rows report it.
"""

from __future__ import annotations

import argparse
import json
import time
from collections.abc import Callable
from dataclasses import replace

from bench.harness.corpora import CORPORA, NAMES, outlined_manifest, rows
from bench.harness.scoring import first_rank
from pinax.library import Library
from pinax.search import RANKING, Ranking, search_many
from pinax.search.members import member_query
from pinax.search.surface import ambiguous_words

QUESTION_SETS = ("react", "fastapi", "kubernetes", "django")
SHARES = "0.5,0.6,0.7,0.8,0.85,0.9,0.95,1"
SCORES = "0.6,0.7,0.75,0.8,0.85,0.9,0.95"


def library(name: str) -> Library:
    """One outlined shared manifest, with its content file where there is one."""
    loaded = Library([outlined_manifest(name)])
    path = CORPORA / "content" / f"{name}.jsonl.gz"
    if path.exists():
        loaded.all()[0].content_path = path
        loaded.load_contents()
    return loaded


def dev_rows(name: str) -> list[tuple[int, dict]]:
    """(place in its set, row) of the anchor-text DEV set and the DEV questions of a corpus."""
    found = list(enumerate(rows(name)))
    path = CORPORA / "eval" / f"{name}.questions.jsonl"
    if name in QUESTION_SETS:
        lines = [line for line in path.read_text().splitlines() if line.strip()]
        found += [(at, json.loads(line)) for at, line in enumerate(lines)]
    return found


def key(url: str) -> str:
    return url.split("#")[0].split("?")[0].rstrip("/")


def measure(loaded: Library, data: list[dict], ranking: Ranking) -> tuple[float, float, int]:
    """(R@10, MRR@10, rows) of `data` in one corpus under `ranking`."""
    found = reciprocal = 0.0
    for row in data:
        hits = search_many(loaded.all(), row["query"], 10, ranking).hits
        rank = first_rank([key(h.url) for h in hits], [key(u) for u in row["expected"]])
        found += rank is not None
        reciprocal += 1 / rank if rank else 0.0
    n = max(len(data), 1)
    return found / n, reciprocal / n, len(data)


def sweep(
    field: str,
    values: list[float],
    touched: Callable[[Library, str], bool],
) -> None:
    """Each value of `field` on the even and the odd rows its rule touches, all corpora."""
    halves: dict[str, list[tuple[Library, list[dict]]]] = {"even": [], "odd": []}
    for name in NAMES:
        loaded = library(name)
        chosen = [(at, row) for at, row in dev_rows(name) if touched(loaded, row["query"])]
        halves["even"].append((loaded, [row for at, row in chosen if at % 2 == 0]))
        halves["odd"].append((loaded, [row for at, row in chosen if at % 2 == 1]))
    counts = {half: sum(len(data) for _, data in sets) for half, sets in halves.items()}
    print(f"\n## {field}: rows touched, even {counts['even']}, odd {counts['odd']}\n")
    print("| value | even R@10 | even MRR@10 | odd R@10 | odd MRR@10 |\n|---|---|---|---|---|")
    results = {}
    for value in values:
        ranking = replace(RANKING, **{field: value})
        line = []
        for half in ("even", "odd"):
            total = [measure(loaded, data, ranking) for loaded, data in halves[half] if data]
            n = sum(t[2] for t in total) or 1
            r10 = sum(t[0] * t[2] for t in total) / n
            mrr = sum(t[1] * t[2] for t in total) / n
            line += [r10, mrr]
        results[value] = line
        mark = " (sheet)" if value == getattr(RANKING, field) else ""
        print(f"| {value}{mark} | " + " | ".join(f"{x:.3f}" for x in line) + " |", flush=True)
    sheet = getattr(RANKING, field)
    best = max(results, key=lambda v: (results[v][1], results[v][0], v == sheet))
    print(
        f"\nchosen on the even rows: {field} {best} (even MRR@10 {results[best][1]:.3f}, "
        f"R@10 {results[best][0]:.3f}); odd rows with it: MRR@10 {results[best][3]:.3f}, "
        f"R@10 {results[best][2]:.3f} (sheet {sheet}: {results[sheet][3]:.3f}, "
        f"{results[sheet][2]:.3f})"
        if sheet in results
        else f"\nchosen on the even rows: {field} {best}"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--shares", default=SHARES, help="stem_only_share values")
    parser.add_argument("--scores", default=SCORES, help="member_score values")
    args = parser.parse_args()
    started = time.perf_counter()
    sweep(
        "stem_only_share",
        [float(v) for v in args.shares.split(",") if v],
        lambda loaded, query: bool(ambiguous_words(loaded.all()[0].index.vocabulary, query)),
    )
    sweep(
        "member_score",
        [float(v) for v in args.scores.split(",") if v],
        lambda loaded, query: (
            member_query(query) is not None and bool(loaded.all()[0].pages.symbol_start[-1])
        ),
    )
    print(f"\n({time.perf_counter() - started:.0f} s)")


if __name__ == "__main__":
    main()
