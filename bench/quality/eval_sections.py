"""Ranking with page outlines (the bars outlines were held to), beside today's search in the same
run.

    python -m bench.quality.eval_sections   # every corpus: without and with outlines,
                                            # then all eight loaded together
    python -m bench.quality.eval_sections --corpora react,mdn --no-together

The DEV sets and typo sets of ../shared/corpora/eval; the outlines of
../shared/corpora/outlines joined to ../shared/corpora/manifests by URL, in memory (the shared
files are read, never changed). "Together" loads all eight outlined manifests at once and
searches with no `docs` argument, as a client that names no library does; it also reports how
often each confidence level's top hit is right.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections import Counter

from bench.harness.corpora import CORPORA, NAMES, outlined_manifest, plain_manifest, rows
from bench.harness.scoring import TOGETHER_SHARE, Scores, first_rank, score
from pinax.library import Library

# The bars outlines were held to: recall@10 with outlines on four corpora, MRR@10 over today's, no
# loss elsewhere, typo recall against clean recall, and the eight loaded together.
RECALL_BARS = {"react": 0.85, "kubernetes": 0.87, "mdn": 0.75, "django": 0.82}
MRR_GAIN, NO_LOSS, TYPO_SHARE = 0.12, 0.01, 0.9
HIGH_PRECISION = 0.80


def evaluate(library: Library, name: str, docs: str | None) -> Scores:
    def rank_of(row: dict) -> int | None:
        found = library.search(row["query"], 10, docs)
        return first_rank([hit.url for hit in found.hits], row["expected"])

    return score(rank_of, rows(name), rows(name, typo=True))


def together(names: list[str], single: dict[str, Scores]) -> list[str]:
    """All manifests loaded at once, no `docs` argument: recall against each alone, and the
    precision of each confidence level's top hit."""
    library = Library([outlined_manifest(n) for n in NAMES])
    failures = []
    print("\n## All eight loaded together (no docs argument)\n")
    print("| corpus | R@10 alone | R@10 together | share | MRR@10 together | bar |")
    print("|---|---|---|---|---|---|")
    right: Counter[str] = Counter()
    shown: Counter[str] = Counter()
    for name in names:
        result = evaluate(library, name, None)
        share = result.r10 / single[name].r10 if single[name].r10 else 1.0
        ok = share >= TOGETHER_SHARE
        failures += [] if ok else [f"{name} together"]
        print(
            f"| {name} | {single[name].r10:.3f} | {result.r10:.3f} | {share:.2f} "
            f"| {result.mrr:.3f} | {'pass' if ok else 'FAIL'} |",
            flush=True,
        )
        for row in rows(name):
            hits = library.search(row["query"], 1).hits
            if hits:
                level = hits[0].confidence
                shown[level] += 1
                right[level] += hits[0].url in row["expected"]
    print("\n| confidence | top hits | right | precision |")
    print("|---|---|---|---|")
    for level in ("high", "medium", "low"):
        precision = right[level] / shown[level] if shown[level] else 1.0
        print(f"| {level} | {shown[level]} | {right[level]} | {precision:.3f} |")
    if shown["high"] and right["high"] / shown["high"] < HIGH_PRECISION:
        failures.append("high precision")
    return failures


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--corpora", default=",".join(NAMES))
    parser.add_argument("--no-together", action="store_true")
    args = parser.parse_args()
    names = [n for n in args.corpora.split(",") if n]
    if not (CORPORA / "outlines").is_dir():
        sys.exit(f"no outlines under {CORPORA}: set PINAX_SHARED")
    started = time.perf_counter()
    print("# DEV sets: today's search (no outlines) vs outlines joined\n")
    print(
        "| corpus | n | today R@10 | today MRR@10 | outlines R@10 | outlines MRR@10 "
        "| typo R@10 (x clean) | bars |"
    )
    print("|---" * 8 + "|")
    failures: list[str] = []
    single: dict[str, Scores] = {}
    for name in names:
        today = evaluate(Library([plain_manifest(name)]), name, None)
        ours = single[name] = evaluate(Library([outlined_manifest(name)]), name, None)
        if name in RECALL_BARS:
            ok = ours.r10 >= RECALL_BARS[name] and ours.mrr >= today.mrr + MRR_GAIN
        else:
            ok = ours.r10 >= today.r10 - NO_LOSS and ours.mrr >= today.mrr - NO_LOSS
        typo_share = ours.typo_r10 / ours.r10 if ours.r10 else 1.0
        ok = ok and typo_share >= TYPO_SHARE
        failures += [] if ok else [name]
        print(
            f"| {name} | {len(rows(name))} | {today.r10:.3f} | {today.mrr:.3f} "
            f"| {ours.r10:.3f} ({ours.r10 - today.r10:+.3f}) "
            f"| {ours.mrr:.3f} ({ours.mrr - today.mrr:+.3f}) "
            f"| {ours.typo_r10:.3f} ({typo_share:.2f}) | {'pass' if ok else 'FAIL'} |",
            flush=True,
        )
    if not args.no_together:
        failures += together(names, single)
    verdict = f"FAIL: {', '.join(failures)}" if failures else "every bar met"
    print(f"\n{verdict} ({time.perf_counter() - started:.0f} s)")


if __name__ == "__main__":
    main()
